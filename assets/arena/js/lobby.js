/*
 * lobby.js — the lobby: rooms waiting for a player (join or watch) and live rooms
 * (watch), refreshed every 5 s while the lobby shows; creating a room (my seat and
 * the opponent) and joining one by its code. A room entered or created opens with
 * the `open(code)` given to initLobby.
 */

import { ApiError, errorText } from "/kernel/js/api.js";
import { showNetworkError } from "/kernel/js/banner.js";
import { $, button, clear, el, showError } from "/kernel/js/dom.js";
import { getJson, postJson } from "./api.js";
import { seatChoice } from "./seats.js";
import { rememberPersonName } from "./storage.js";
import { PHASES, T } from "./text.js";

const REFRESH_MS = 5000;
const CODE = /^[0-9A-Z]{6}$/;

let open = () => {};
let timer = 0;
let busy = false;

export function initLobby(openRoom) {
  open = openRoom;
}

export const normalizeCode = (text) => String(text || "").replace(/\s+/g, "").toUpperCase();

function seatName(seat) {
  return seat ? seat.name : T.emptySeat;
}

function roomItem(room, waiting) {
  const item = el("li", "room-item");
  item.setAttribute("data-testid", waiting ? "waiting-room" : "live-room");
  item.setAttribute("data-code", room.code);
  const text = el("div", "room-item-text");
  text.appendChild(el("span", "room-item-code", room.code));
  if (room.ladder) {
    text.appendChild(el("span", "badge badge-ranked", T.ladderBadge));
    item.setAttribute("data-ladder", "true");
  }
  text.appendChild(el("span", "room-item-players", seatName(room.seats[0]) + " – " + seatName(room.seats[1])));
  const detail = room.queuePlace ? T.queue(room.queuePlace)
    : room.phase === "PLAYING" ? T.lobbyTurn(room.turn, room.turnLimit) : (PHASES[room.phase] || room.phase);
  text.appendChild(el("span", "muted small", detail));
  item.appendChild(text);
  const row = el("div", "button-row");
  if (waiting) {
    const join = button(T.join, "btn-small btn-primary", "join-room");
    join.setAttribute("aria-label", T.join + " phòng " + room.code);
    join.addEventListener("click", () => joinRoom(room.code));
    row.appendChild(join);
  }
  const watch = button(T.watch, "btn-small", "watch-room");
  watch.setAttribute("aria-label", T.watch + " phòng " + room.code);
  watch.addEventListener("click", () => open(room.code));
  row.appendChild(watch);
  item.appendChild(row);
  return item;
}

function render(list, id, emptyId, waiting) {
  clear($(id));
  list.forEach((room) => $(id).appendChild(roomItem(room, waiting)));
  $(emptyId).hidden = list.length > 0;
}

export function refreshLobby() {
  return getJson("/rooms").then((lobby) => {
    render(lobby.waiting || [], "waiting-rooms", "waiting-empty", true);
    render(lobby.live || [], "live-rooms", "live-empty", false);
  }, (err) => {
    if (err instanceof ApiError && err.kind === "network") {
      showNetworkError(err, refreshLobby);
    }
  });
}

export function startLobby() {
  stopLobby();
  refreshLobby();
  timer = window.setInterval(() => {
    if (document.visibilityState === "visible") {
      refreshLobby();
    }
  }, REFRESH_MS);
}

export function stopLobby() {
  window.clearInterval(timer);
  timer = 0;
}

function mySeat() {
  const name = $("person-name").value.trim();
  if ($("seat-select").value === "person") {
    rememberPersonName(name);
  }
  return seatChoice($("seat-select").value, name);
}

function failed(err) {
  busy = false;
  showError($("play-error"), errorText(err, T.networkError));
}

export function createRoom(event) {
  event.preventDefault();
  if (busy) {
    return;
  }
  const body = { seat: mySeat() };
  const opponent = seatChoice($("opponent-select").value, "");
  if (opponent) {
    body.opponent = opponent;
  }
  busy = true;
  showError($("play-error"), "");
  postJson("/rooms", body).then((answer) => {
    busy = false;
    open(answer.room.code, answer.room);
  }, failed);
}

export function joinRoom(code) {
  if (busy) {
    return;
  }
  busy = true;
  showError($("play-error"), "");
  postJson("/rooms/" + encodeURIComponent(code) + "/join", { seat: mySeat() }).then((answer) => {
    busy = false;
    open(answer.room.code, answer.room);
  }, failed);
}

// The code typed in #join-code, or "" (with the reason shown).
function typedCode() {
  const code = normalizeCode($("join-code").value);
  if (!CODE.test(code)) {
    showError($("play-error"), T.badCode);
    return "";
  }
  $("join-code").value = code;
  return code;
}

export function joinTyped(event) {
  event.preventDefault();
  const code = typedCode();
  if (code) {
    joinRoom(code);
  }
}

export function watchTyped() {
  const code = typedCode();
  if (code) {
    showError($("play-error"), "");
    open(code);
  }
}

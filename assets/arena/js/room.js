/*
 * room.js — the room view: who sits where, the board (from the live snapshot, the
 * viewer's own pieces during placement, or the replay's frame once the match is
 * over), the turn, the pieces left, who is thinking, the queue, the countdown, the
 * controls of a person, the result with BOT_FAILED's code (and, for the bot's owner,
 * the detail and its stderr), surrender and leave.
 *
 * openRoom(code, room) shows a room and watches it live; closeRoom() stops watching.
 */

import { getJson, postJson } from "./api.js";
import { errorText } from "./banner.js";
import { createBoard, cursorTo, renderBoard } from "./board.js";
import { showCountdown, stopCountdown } from "./clock.js";
import { askConfirm, closeConfirm } from "./confirm.js";
import { $, clear, el, showError } from "./dom.js";
import { reconnectNow, stopWatching, watch } from "./live.js";
import {
  activate, cancel, clearSelection, pass, passOnly, randomPlacement, ready, renderTray, selection
} from "./play.js";
import { frame, frameIndex, loadReplay, onFrame, resetReplay, wireReplay } from "./replay.js";
import {
  accept, fetchRoom, isMine, myTurn, onRoomChange, personSide, placing, resetRoom, seatOf, state, viewSide
} from "./roomstate.js";
import { fillSeatSelect, seatChoice } from "./seats.js";
import { rememberPersonName } from "./storage.js";
import { describeAction, FAILURES, PHASES, REASONS, T } from "./text.js";

const LIVE = { WAITING: 1, PLACEMENT: 1, PLAYING: 1 };
const KIND_WORDS = { person: T.person, upload: T.uploadKind, builtin: T.builtinKind };

let onHome = () => {};
let failureFor = "";

const other = (side) => (side === "P1" ? "P2" : "P1");

function seatBar(node, side) {
  const room = state.room;
  const seat = seatOf(side);
  clear(node);
  node.className = "seat-bar seat-" + side + (room && room.currentPlayer === side ? " to-move" : "") +
    (room && room.thinking === side ? " is-thinking" : "");
  node.setAttribute("data-side", side);
  const marker = el("span", "mini-piece side-" + side, side === "P1" ? "●" : "■");
  marker.setAttribute("aria-hidden", "true");
  node.appendChild(marker);
  const who = el("span", "seat-name");
  who.appendChild(el("strong", "", side));
  who.appendChild(document.createTextNode(" " + (seat ? seat.name : T.emptySeat)));
  node.appendChild(who);
  const tags = [];
  if (seat) {
    tags.push(KIND_WORDS[seat.kind] || seat.kind);
  }
  if (isMine(side)) {
    tags.push(T.you);
  }
  if (room && room.phase === "PLACEMENT" && seat && seat.ready) {
    tags.push(T.ready);
  }
  node.appendChild(el("span", "seat-tags muted small", tags.join(" · ")));
  if (room && room.piecesLeft && room.phase !== "WAITING") {
    node.appendChild(el("span", "seat-count", String(room.piecesLeft[side])));
  }
}

function boardModel() {
  const room = state.room;
  const chosen = selection();
  let pieces = room.board && room.board.pieces ? room.board.pieces : [];
  let last = room.lastAction || null;
  let animateKey = last ? room.code + ":" + last.turn : "";
  const replayed = room.phase === "FINISHED" ? frame() : null;
  if (replayed) {
    pieces = replayed.pieces;
    last = replayed.last;
    animateKey = last ? "replay:" + frameIndex() : "";
  } else if (room.phase === "PLACEMENT" && personSide()) {
    pieces = state.ownPieces;
  }
  return {
    orientation: viewSide(),
    pieces: pieces,
    mine: state.mine,
    selected: chosen.selected,
    targets: chosen.targets,
    placeable: chosen.placeable,
    selectable: chosen.selectable,
    last: last && last.action && last.action.type === "MOVE"
      ? { from: last.action.from, to: last.action.to, fight: last.fight } : null,
    animateKey: animateKey
  };
}

function resultTitle(result) {
  if (!result.winner) {
    return result.reason === "ABANDONED" ? T.abandoned : T.draw;
  }
  if (isMine(result.winner) && !isMine(other(result.winner))) {
    return T.youWin;
  }
  if (isMine(other(result.winner)) && !isMine(result.winner)) {
    return T.youLose;
  }
  const seat = seatOf(result.winner);
  return T.sideWins(result.winner, seat ? seat.name : result.winner);
}

function renderFailureDetails(details) {
  const box = $("failure-details");
  clear(box);
  (details.bots || []).forEach((bot) => {
    if (bot.detail) {
      box.appendChild(el("p", "small", T.detail + " (" + bot.player + "): " + bot.detail));
    }
    const wrap = el("details", "stderr");
    wrap.open = Boolean(bot.failureCode);
    wrap.appendChild(el("summary", "", T.stderr(bot.player)));
    const pre = el("pre", "messages", bot.stderr || T.noStderr);
    pre.tabIndex = 0;
    pre.setAttribute("data-testid", "bot-stderr");
    wrap.appendChild(pre);
    box.appendChild(wrap);
  });
  box.hidden = !box.firstChild;
}

// The owner of an uploaded bot seated here sees why it failed and its stderr.
function loadFailureDetails(room) {
  const owned = state.mine.some((side) => {
    const seat = seatOf(side);
    return seat && seat.kind === "upload";
  });
  if (!owned || !room.matchId || failureFor === room.matchId) {
    return;
  }
  failureFor = room.matchId;
  getJson("/matches/" + encodeURIComponent(room.matchId) + "/failure").then(renderFailureDetails, () => {
    failureFor = "";
  });
}

function renderResult(room) {
  const done = room.phase === "FINISHED" || room.phase === "ABANDONED";
  $("result-box").hidden = !done || !room.result;
  if (!done || !room.result) {
    return;
  }
  const result = room.result;
  $("result-box").setAttribute("data-winner", result.winner || "");
  $("result-box").setAttribute("data-reason", result.reason);
  $("result-title").textContent = resultTitle(result);
  let reason = REASONS[result.reason] || result.reason;
  if (result.winner && REASONS[result.reason]) {
    reason = result.winner + " thắng: " + reason;
  }
  $("result-reason").textContent = reason + " (" + result.turns + " lượt).";
  const failure = result.failure;
  $("failure-box").hidden = !failure;
  if (failure) {
    $("failure-code").textContent = failure.code;
    $("failure-help").textContent = failure.player + ": " + (FAILURES[failure.code] || "");
  }
  if (room.phase === "FINISHED" && room.matchId && room.replayReady) {
    loadReplay(room.matchId);
  }
  loadFailureDetails(room);
}

function renderStatus(room) {
  $("room-phase").textContent = PHASES[room.phase] || room.phase;
  $("room-phase").setAttribute("data-phase", room.phase);
  const started = room.phase === "PLAYING" || room.phase === "FINISHED";
  $("turn-counter").textContent = started ? T.turn(room.turn, room.turnLimit) : "";
  $("pieces-left").textContent = room.phase === "WAITING" ? "" : T.piecesLeft(room.piecesLeft.P1, room.piecesLeft.P2);
  $("queue-place").hidden = !room.queuePlace;
  $("queue-place").textContent = room.queuePlace ? T.queue(room.queuePlace) : "";
  let thinking = "";
  if (room.phase === "PLAYING" && room.thinking) {
    const seat = seatOf(room.thinking);
    thinking = T.thinkingBot(room.thinking + " " + (seat ? seat.name : ""));
  } else if (room.phase === "PLAYING" && room.currentPlayer && !myTurn()) {
    const seat = seatOf(room.currentPlayer);
    thinking = T.thinkingPerson(room.currentPlayer + " " + (seat ? seat.name : ""));
  } else if (room.phase === "PLACEMENT" && personSide() && !placing() && !room.queuePlace) {
    thinking = T.waitOther;
  }
  $("thinking").textContent = thinking;
  $("last-move").textContent = LIVE[room.phase] || !frame() ? describeAction(room.lastAction) : describeAction(frame().last);
  const current = room.currentPlayer ? seatOf(room.currentPlayer) : null;
  if (room.phase === "PLAYING" && room.deadlineMs && current && current.kind === "person") {
    showCountdown(room.deadlineMs, T.countdownPlay);
  } else if (placing() && room.placementDeadlineMs) {
    showCountdown(room.placementDeadlineMs, T.countdownPlacement);
  } else {
    stopCountdown();
  }
}

function renderPanels(room) {
  const seated = state.mine.length > 0;
  const open = !room.seats[0] || !room.seats[1];
  $("join-seat").hidden = !(room.phase === "WAITING" && !seated && open);
  $("share-box").hidden = !(room.phase === "WAITING" && open);
  if (!$("share-box").hidden) {
    $("share-code").textContent = room.code;
    $("share-url").value = window.location.origin + "/arena/?room=" + room.code;
  }
  $("placement-box").hidden = !placing();
  if (placing()) {
    renderTray(render);
  }
  const turn = myTurn() && state.keyed;
  $("play-box").hidden = !turn;
  $("pass-button").hidden = !(turn && passOnly());
  $("play-hint").textContent = turn ? (passOnly() ? T.passOnly : T.yourTurn) : "";
  const live = Boolean(LIVE[room.phase]) && room.phase !== "WAITING";
  const sides = state.mine.slice().sort();
  $("surrender-button").hidden = !(live && sides.length);
  $("surrender-other").hidden = !(live && sides.length > 1);
  $("surrender-button").textContent = sides.length > 1 ? T.surrenderFor(sides[0]) : T.surrender;
  $("surrender-other").textContent = sides.length > 1 ? T.surrenderFor(sides[1]) : "";
}

function render() {
  const room = state.room;
  if (state.missing) {
    $("room-notice").hidden = false;
    $("room-notice").textContent = T.roomNotFound;
  }
  if (!room) {
    return;
  }
  $("view-room").setAttribute("data-phase", room.phase);
  $("view-room").setAttribute("data-view", viewSide());
  $("view-room").setAttribute("data-mine", state.mine.join(" "));
  seatBar($("seat-bottom"), viewSide());
  seatBar($("seat-top"), other(viewSide()));
  renderStatus(room);
  renderPanels(room);
  renderResult(room);
  renderBoard(boardModel());
}

function surrender(side, anchor) {
  askConfirm(anchor, T.surrenderConfirm, () => {
    postJson("/rooms/" + encodeURIComponent(state.code) + "/surrender", { side: side }).then((room) => {
      accept(room, true);
    }, (err) => showError($("room-error"), errorText(err, T.networkError)));
  });
}

function leave() {
  const room = state.room;
  const seated = state.mine.length > 0 && room && LIVE[room.phase];
  if (!seated) {
    onHome();
    return;
  }
  const go = () => {
    postJson("/rooms/" + encodeURIComponent(state.code) + "/leave").then(() => onHome(),
      (err) => showError($("room-error"), errorText(err, T.networkError)));
  };
  if (room.phase === "WAITING") {
    go();
  } else {
    askConfirm($("leave-button"), T.leaveConfirm, go);
  }
}

function joinHere() {
  const value = $("room-seat-select").value;
  const name = $("room-person-name").value.trim();
  if (value === "person") {
    rememberPersonName(name);
  }
  postJson("/rooms/" + encodeURIComponent(state.code) + "/join", { seat: seatChoice(value, name) }).then((answer) => {
    accept(answer.room, true);
  }, (err) => showError($("room-error"), errorText(err, T.networkError)));
}

function copyLink() {
  const input = $("share-url");
  input.select();
  const done = () => {
    $("room-notice").hidden = false;
    $("room-notice").textContent = T.copied;
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(done, () => undefined);
  } else {
    try {
      document.execCommand("copy");
      done();
    } catch (e) {
      /* the text stays selected for a manual copy */
    }
  }
}

export function initRoom(goHome) {
  onHome = goHome;
  createBoard((row, col) => activate(row, col, render), () => cancel(render));
  onRoomChange(render);
  onFrame(render);
  wireReplay();
  $("random-button").addEventListener("click", randomPlacement);
  $("ready-button").addEventListener("click", ready);
  $("pass-button").addEventListener("click", pass);
  $("surrender-button").addEventListener("click", () => {
    surrender(state.mine.slice().sort()[0], $("room-actions"));
  });
  $("surrender-other").addEventListener("click", () => {
    surrender(state.mine.slice().sort()[1], $("room-actions"));
  });
  $("leave-button").addEventListener("click", leave);
  $("back-button").addEventListener("click", () => onHome());
  $("room-join-button").addEventListener("click", joinHere);
  $("copy-button").addEventListener("click", copyLink);
  $("room-seat-select").addEventListener("change", () => {
    $("room-name-row").hidden = $("room-seat-select").value !== "person";
  });
}

export function openRoom(code, room) {
  closeRoom();
  resetRoom(code);
  $("room-code").textContent = code;
  $("room-notice").hidden = true;
  showError($("room-error"), "");
  fillSeatSelect($("room-seat-select"), true, false, "person");
  if (room) {
    accept(room, true);
  }
  cursorTo(viewSide() === "P2" ? 0 : 8, viewSide() === "P2" ? 8 : 0);
  fetchRoom();
  watch(code, {
    onRoom: (snapshot) => accept(snapshot, false),
    onEnd: () => fetchRoom(),
    onMissing: () => {
      state.missing = true;
      render();
    },
    onState: (connected) => {
      $("room-notice").hidden = connected;
      if (!connected) {
        $("room-notice").textContent = T.reconnecting;
      }
    }
  });
}

export function closeRoom() {
  stopWatching();
  stopCountdown();
  closeConfirm();
  clearSelection();
  resetReplay();
  failureFor = "";
}

// Back to the tab: the socket reconnects now and a person's view is fetched again.
export function roomVisible() {
  if (state.code) {
    reconnectNow();
    fetchRoom();
  }
}

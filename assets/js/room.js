/*
 * room.js — room mode (spec B10): people against people on a group's room card.
 *
 * The page is in room mode when its link carries the room claim and api/room/join
 * accepts it. From then on the live feed (feed.js) brings the member's full view
 * after every change; the page never polls. Its actions (start, the bot's level, a
 * word, give up, leave) are POSTs whose answers are views too. What a view means
 * (whose turn, the end of a game as this member sees it) is roomview.js's.
 *
 * Once the page is no longer in the room (it left, another page took its place, the
 * credential or the room is gone, or the join failed) it shows #room-away instead of
 * the room, with a button that joins again with the link it still holds.
 *
 * Hooks for browser tests (id and data-testid of the same name):
 *   #screen-room (data-status="lobby|playing", data-you="<seat>|",
 *                 data-connection="up|down", data-away="<kind>|")
 *   #room-away      #room-away-title, #room-away-text, #room-rejoin
 *                   (data-away kinds: left, replaced, no_member, gone, join_failed)
 *   #room-status, #room-error, #room-watchers
 *   #room-players   <li> per player: data-seat, data-alive, data-out, .is-turn, .is-you,
 *                   .room-name, .room-points
 *   #room-host      the host's controls: #room-bot-level (a choice applies at once), #room-start
 *   #room-score, #room-countdown (whole seconds), #room-countdown-bar (--frac), #room-current
 *   #room-word-input, #room-send, #room-reject (a refused word, under the input),
 *   #room-word-report (after a not_in_dictionary refusal: "Báo thiếu từ", js/report.js),
 *   #room-give-up (two taps), #room-leave (two taps during a game: data-armed="true")
 *   #room-chain     <li> per word of the game in play, newest first: data-word, data-seat, .chain-who
 *   #room-recap     the last game's words (#room-old-chain), folded, in the lobby
 *   #room-result    data-kind="won|placed|ended|previous": #room-result-title, #room-winner,
 *                   #room-reason, #room-standings (<li data-seat data-rank>), #room-order-note,
 *                   #room-report
 */

import { errorText } from "/kernel/js/api.js";
import { hideNetworkError, showBanner } from "/kernel/js/banner.js";
import { deviceNow, secondsLeft } from "/kernel/js/clock.js";
import { $, el, focusQuietly } from "/kernel/js/dom.js";
import { post, postOnce } from "./api.js";
import { openFeed } from "./feed.js";
import { hideReport, offerReport } from "./report.js";
import {
  gameKey, leaveNeedsConfirm, resultModel, statusLine, turnCue, turnInfo
} from "./roomview.js";
import { showScreen } from "./screens.js";
import { turnLimitMs } from "./start.js";
import { OUT_REASONS, REPORT_TEXT, ROOM_TEXT } from "./text.js";
import { toInt, waitSeconds } from "./values.js";

const TICK_MS = 200;
const ARM_MS = 3000;
const URGENT_MS = 5000;
const VIBRATE_MS = 200;

let token = "";
let member = "";
let view = null;
let feed = null;
let away = "";
let wired = false;
let deadlineLeftMs = 0;
let turnMs = 0;
let receivedAt = 0;
let busy = false;
let botPending = false;
let seen = null; // the game this page saw running: {key, seat}
let lastTurnKey = "";
let retryTimer = 0;
const armTimers = {};

function feedUrl(socket) {
  const url = new URL("api/room/feed", window.location.href);
  url.search = "?member=" + encodeURIComponent(member);
  url.hash = "";
  if (socket) {
    url.protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
  }
  return url.toString();
}

function setText(id, text) {
  $(id).textContent = text;
}

function showError(message) {
  const box = $("room-error");
  box.textContent = message || "";
  box.hidden = !message;
}

function showReject(message) {
  setText("room-reject", message || "");
}

// A limit's answer, with the wait it asked for when it said one.
function tooFastText(err, base) {
  return err.retryAfterMs ? base + " " + ROOM_TEXT.waitFor(waitSeconds(err.retryAfterMs)) : base;
}

// --- the feed ------------------------------------------------------------------------

function onConnection(up) {
  $("screen-room").setAttribute("data-connection", up ? "up" : "down");
  if (up) {
    hideNetworkError();
  } else if (!away) {
    showBanner(ROOM_TEXT.reconnecting, reconnectNow);
  }
}

function reconnectNow() {
  if (feed) {
    feed.online();
  }
}

function onFeedEnd(kind) {
  feed = null;
  goAway(kind === "room_gone" ? "gone" : kind === "replaced" ? "replaced" : "no_member");
}

function follow() {
  if (feed) {
    feed.close();
  }
  onConnection(true);
  feed = openFeed(feedUrl, { onView: render, onState: onConnection, onEnd: onFeedEnd });
}

// --- away from the room --------------------------------------------------------------------

const AWAY = {
  left: { title: "leftTitle", text: "leftText", button: "rejoin" },
  replaced: { title: "replacedTitle", text: "replacedText", button: "playHere" },
  no_member: { title: "noMemberTitle", text: "noMemberText", button: "rejoin" },
  gone: { title: "goneTitle", text: "goneText", button: "rejoin" }
};

// Links that joining again cannot mend: the player needs a new one from Telegram.
const DEAD_LINKS = ["token_expired", "bad_token", "room_link"];

// The page is no longer in the room: `kind` is one of AWAY's, or "join_failed" with the
// join's error.
function goAway(kind, err) {
  away = kind;
  if (feed) {
    feed.close();
    feed = null;
  }
  view = null;
  disarm("room-give-up");
  disarm("room-leave");
  hideNetworkError();
  document.title = ROOM_TEXT.pageTitle;
  lastTurnKey = "";
  const screen = $("screen-room");
  screen.setAttribute("data-away", kind);
  screen.removeAttribute("data-status");
  $("room-live").hidden = true;
  $("room-away").hidden = false;
  const rejoin = $("room-rejoin");
  window.clearInterval(retryTimer);
  retryTimer = 0;
  rejoin.disabled = false;
  if (kind === "join_failed") {
    setText("room-away-title", ROOM_TEXT.joinFailedTitle);
    const limited = err && err.kind === "api" && err.code === "too_fast";
    setText("room-away-text", limited ? tooFastText(err, ROOM_TEXT.tooFast) : errorText(err, ROOM_TEXT.network));
    rejoin.hidden = !!err && err.kind === "api" && DEAD_LINKS.indexOf(err.code) >= 0;
    rejoin.textContent = ROOM_TEXT.retry;
    if (limited && err.retryAfterMs) {
      holdRetry(err.retryAfterMs);
    }
  } else {
    const words = AWAY[kind];
    setText("room-away-title", ROOM_TEXT[words.title]);
    setText("room-away-text", ROOM_TEXT[words.text]);
    rejoin.hidden = false;
    rejoin.textContent = ROOM_TEXT[words.button];
  }
  focusQuietly(rejoin.hidden || rejoin.disabled ? $("room-away-title") : rejoin);
}

// The retry button waits out the limit, counting down on its label.
function holdRetry(waitMs) {
  const rejoin = $("room-rejoin");
  const until = deviceNow() + waitMs;
  const step = () => {
    const left = until - deviceNow();
    if (left <= 0) {
      window.clearInterval(retryTimer);
      retryTimer = 0;
      rejoin.disabled = false;
      rejoin.textContent = ROOM_TEXT.retry;
      return;
    }
    rejoin.disabled = true;
    rejoin.textContent = ROOM_TEXT.retryIn(secondsLeft(left));
  };
  step();
  retryTimer = window.setInterval(step, TICK_MS);
}

function comeBack() {
  away = "";
  const screen = $("screen-room");
  screen.removeAttribute("data-away");
  $("room-away").hidden = true;
  $("room-live").hidden = false;
  window.clearInterval(retryTimer);
  retryTimer = 0;
}

// Joins with the link; resolves true in room mode, false when the server says the link
// is not a room's (only asked on the first join: the caller opens the solo game).
function join(first) {
  const rejoin = $("room-rejoin");
  rejoin.disabled = true;
  return postOnce("room/join", { token: token }).then((answer) => {
    rejoin.disabled = false;
    member = String(answer.member);
    enterRoomMode();
    comeBack();
    showError("");
    showReject("");
    render(answer.room);
    follow();
    return true;
  }, (err) => {
    rejoin.disabled = false;
    if (first && err && err.code === "not_a_room_link") {
      return false;
    }
    enterRoomMode();
    goAway("join_failed", err);
    return true;
  });
}

function enterRoomMode() {
  showScreen("room");
  document.body.setAttribute("data-mode", "room");
  const sub = document.querySelector(".brand-sub");
  if (sub) {
    sub.textContent = ROOM_TEXT.subtitle;
  }
}

// --- rendering --------------------------------------------------------------------------

function renderPlayers() {
  const list = $("room-players");
  list.textContent = "";
  view.players.forEach((player) => {
    const item = el("li", "room-player");
    item.setAttribute("data-seat", String(player.seat));
    item.setAttribute("data-alive", player.alive ? "true" : "false");
    item.setAttribute("data-out", player.out_reason || "");
    if (view.status === "playing" && view.turn === player.seat) {
      item.classList.add("is-turn");
    }
    if (view.you === player.seat) {
      item.classList.add("is-you");
    }
    item.appendChild(el("span", "room-seat", player.seat + "."));
    const who = el("span", "room-who");
    who.appendChild(el("span", "room-name", player.name || ROOM_TEXT.noName));
    const notes = [];
    if (view.you === player.seat) {
      notes.push(ROOM_TEXT.you);
    }
    if (view.host === player.seat) {
      notes.push(ROOM_TEXT.host);
    }
    if (player.out_reason) {
      notes.push(OUT_REASONS[player.out_reason] || player.out_reason);
    }
    if (notes.length) {
      who.appendChild(document.createTextNode(" "));
      who.appendChild(el("span", "room-note", "(" + notes.join(", ") + ")"));
    }
    item.appendChild(who);
    if (view.status === "playing") {
      item.appendChild(el("span", "room-points", ROOM_TEXT.points(player.score)));
    }
    list.appendChild(item);
  });
  setText("room-watchers", view.watchers ? ROOM_TEXT.watchers(view.watchers) : "");
}

function fillChain(list, chain) {
  list.textContent = "";
  for (let i = chain.length - 1; i >= 0; i--) {
    const link = chain[i];
    const item = el("li", "chain-item");
    item.setAttribute("data-word", link.word);
    item.setAttribute("data-seat", String(link.seat));
    item.setAttribute("data-by", link.by);
    const row = el("div", "chain-row");
    row.appendChild(el("span", "chain-word", link.word));
    row.appendChild(el("span", "chain-who", link.seat ? link.name : ROOM_TEXT.opening));
    if (link.seat) {
      row.appendChild(el("span", "chain-points", "+" + link.points));
    }
    item.appendChild(row);
    list.appendChild(item);
  }
}

function renderChains(playing) {
  const chain = view.chain || [];
  fillChain($(playing ? "room-chain" : "room-old-chain"), chain);
  fillChain($(playing ? "room-old-chain" : "room-chain"), []);
  $("room-chain-head").hidden = !playing;
  $("room-chain").hidden = !playing;
  const recap = $("room-recap");
  const wasHidden = recap.hidden;
  recap.hidden = playing || !chain.length;
  if (recap.hidden || wasHidden) {
    recap.open = false; // the last game's words stay folded until asked for
  }
  setText("room-recap-count", chain.length ? "(" + chain.length + " từ)" : "");
}

function renderResult() {
  const box = $("room-result");
  const model = resultModel(view, seen);
  box.hidden = !model;
  if (!model) {
    return;
  }
  box.setAttribute("data-kind", model.kind);
  setText("room-result-title", model.title);
  setText("room-winner", model.winner);
  setText("room-reason", model.reason);
  $("room-reason").hidden = !model.reason;
  const list = $("room-standings");
  list.textContent = "";
  model.rows.forEach((row) => {
    const item = el("li", "room-standing");
    item.setAttribute("data-seat", String(row.seat));
    item.setAttribute("data-rank", String(row.rank));
    if (row.mine) {
      item.classList.add("is-you");
    }
    const rank = el("span", "room-rank", row.rank + ".");
    rank.setAttribute("aria-hidden", "true");
    item.appendChild(rank);
    const who = el("span", "room-who");
    who.appendChild(el("span", "room-name", row.name));
    if (row.note) {
      who.appendChild(document.createTextNode(" "));
      who.appendChild(el("span", "room-note", "(" + row.note + ")"));
    }
    item.appendChild(who);
    item.appendChild(el("span", "room-points", ROOM_TEXT.points(row.score)));
    list.appendChild(item);
  });
  setText("room-order-note", model.orderNote);
  $("room-order-note").hidden = !model.orderNote;
  const report = $("room-report");
  const reported = view.result.score_reported || "";
  report.setAttribute("data-state", reported);
  report.textContent = REPORT_TEXT[reported] || "";
}

// The player's attention: the title while it is their turn, one buzz when it comes.
function cue() {
  const next = turnCue(view, lastTurnKey);
  lastTurnKey = next.key;
  if (document.title !== next.title) {
    document.title = next.title;
  }
  const nav = window.navigator;
  if (next.vibrate && nav && typeof nav.vibrate === "function" &&
      (!nav.userActivation || nav.userActivation.hasBeenActive)) {
    try {
      nav.vibrate(VIBRATE_MS);
    } catch (e) {
      /* not allowed here */
    }
  }
}

function render(next) {
  if (away || !next || typeof next.status !== "string") {
    return;
  }
  const wasMyTurn = !!view && turnInfo(view).myTurn;
  view = next;
  const info = turnInfo(view);
  if (info.playing) {
    seen = { key: gameKey(view), seat: view.you || 0 };
  }
  const screen = $("screen-room");
  screen.setAttribute("data-status", view.status);
  screen.setAttribute("data-you", view.you ? String(view.you) : "");
  setText("room-status", statusLine(view));
  renderPlayers();
  renderChains(info.playing);
  renderResult();

  $("room-hud").hidden = !info.playing;
  $("room-bar").hidden = !info.playing;
  $("room-turn").hidden = !info.playing;
  $("room-score-box").hidden = !info.me;
  setText("room-score", String(info.me ? toInt(info.me.score, 0) : 0));
  $("room-move-form").hidden = !info.inGame;
  $("room-reject").hidden = !info.inGame;
  $("room-give-up").hidden = !info.inGame;
  $("room-word-input").disabled = !info.myTurn;
  $("room-send").disabled = !info.myTurn;
  $("room-host").hidden = info.playing || !view.you || view.host !== view.you;
  if (!botPending) {
    $("room-bot-level").value = view.bot || "";
  }
  if (info.playing) {
    setText("room-current", view.current || "");
    deadlineLeftMs = toInt(view.deadline_ms, 0) - toInt(view.server_now_ms, 0);
    turnMs = turnLimitMs(view);
    receivedAt = deviceNow();
    tick();
  }
  if (info.myTurn && !wasMyTurn) {
    showReject("");
    focusQuietly($("room-word-input"));
  }
  if (!info.inGame) {
    disarm("room-give-up");
  }
  if (!leaveNeedsConfirm(view)) {
    disarm("room-leave");
  }
  cue();
}

function tick() {
  if (away || !view || view.status !== "playing") {
    return;
  }
  const left = Math.max(deadlineLeftMs - (deviceNow() - receivedAt), 0);
  setText("room-countdown", String(secondsLeft(left)));
  const frac = Math.min(Math.max(left / Math.max(turnMs, 1), 0), 1);
  const bar = $("room-countdown-bar");
  bar.style.setProperty("--frac", frac.toFixed(4));
  const urgent = left <= URGENT_MS;
  $("room-timer-box").classList.toggle("urgent", urgent);
  bar.classList.toggle("urgent", urgent);
}

// --- actions ---------------------------------------------------------------------------

// Posts an action; resolves with the answer, or null when it failed (`onError(err)` then
// says why, by default in #room-error). Losing the credential or the room leaves it.
function act(route, body, onError) {
  if (busy || away) {
    return Promise.resolve(null);
  }
  busy = true;
  showError("");
  const payload = Object.assign({ member: member }, body || {});
  // A word gets solo's one retry on too_fast: a quick correction is no flood.
  return (route === "move" ? post : postOnce)("room/" + route, payload).then((answer) => {
    busy = false;
    const next = answer && answer.state ? answer.state : answer;
    if (next && next.status) {
      render(next);
    }
    return answer;
  }, (err) => {
    busy = false;
    if (err && err.kind === "api" && (err.code === "no_member" || err.code === "room_gone")) {
      goAway(err.code === "room_gone" ? "gone" : "no_member");
      return null;
    }
    const text = err && err.kind === "api" && err.code === "too_fast"
      ? tooFastText(err, ROOM_TEXT.tooFast)
      : errorText(err, ROOM_TEXT.network);
    (onError || showError)(text, err);
    return null;
  });
}

function sendWord() {
  const input = $("room-word-input");
  const word = input.value.trim();
  if (!word) {
    showReject(ROOM_TEXT.empty);
    return;
  }
  act("move", { word: word }, (text, err) => {
    // A refused word, too long or too fast: under the input, where the eye is.
    showReject(err && err.kind === "api" && err.code === "too_fast" ? ROOM_TEXT.moveTooFast : text);
    focusQuietly(input);
  }).then((answer) => {
    if (!answer || !answer.result) {
      return;
    }
    if (answer.result.accepted) {
      input.value = "";
      showReject("");
    } else {
      showReject(answer.result.message);
    }
    if (answer.result.reason === "not_in_dictionary") {
      const reporter = member;
      offerReport("room-", word, (refused) => postOnce("room/report-word", { member: reporter, word: refused }));
    } else {
      hideReport("room-");
    }
  });
}

const ARMED_TEXT = { "room-give-up": "giveUpArmed", "room-leave": "leaveArmed" };
const PLAIN_TEXT = { "room-give-up": "giveUp", "room-leave": "leave" };

function disarm(id) {
  const button = $(id);
  button.removeAttribute("data-armed");
  button.textContent = ROOM_TEXT[PLAIN_TEXT[id]];
  window.clearTimeout(armTimers[id]);
}

// The first tap of a button that asks to be sure: true when this tap is the second.
function confirmed(id) {
  const button = $(id);
  if (button.getAttribute("data-armed") === "true") {
    disarm(id);
    return true;
  }
  button.setAttribute("data-armed", "true");
  button.textContent = ROOM_TEXT[ARMED_TEXT[id]];
  armTimers[id] = window.setTimeout(() => disarm(id), ARM_MS);
  return false;
}

function giveUpPressed() {
  if (confirmed("room-give-up")) {
    act("give-up");
  }
}

function leavePressed() {
  if (view && leaveNeedsConfirm(view) && !confirmed("room-leave")) {
    return;
  }
  act("leave").then((answer) => {
    if (answer) {
      goAway("left");
    }
  });
}

// The host's choice of the bot applies at once.
function botChosen() {
  const select = $("room-bot-level");
  applyBot(select.value);
}

function applyBot(level) {
  const select = $("room-bot-level");
  botPending = true;
  select.disabled = true;
  return act("add-bot", { level: level || null }).then((answer) => {
    botPending = false;
    select.disabled = false;
    if (!answer && view) {
      select.value = view.bot || ""; // not applied: show what the room has
    }
    return answer;
  });
}

// "Bắt đầu ván" starts with the level the menu shows, applying it first if need be.
function startPressed() {
  const chosen = $("room-bot-level").value;
  const first = view && chosen !== (view.bot || "") ? applyBot(chosen) : Promise.resolve(true);
  first.then((applied) => {
    if (applied) {
      act("start");
    }
  });
}

function onVisible() {
  if (document.visibilityState === "visible" && feed) {
    feed.online();
  }
}

function wire() {
  if (wired) {
    return;
  }
  wired = true;
  $("room-move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sendWord();
  });
  $("room-give-up").addEventListener("click", giveUpPressed);
  $("room-start").addEventListener("click", startPressed);
  $("room-bot-level").addEventListener("change", botChosen);
  $("room-leave").addEventListener("click", leavePressed);
  $("room-rejoin").addEventListener("click", () => join(false));
  window.addEventListener("offline", () => {
    if (feed) {
      feed.offline();
    }
  });
  window.addEventListener("online", reconnectNow);
  document.addEventListener("visibilitychange", onVisible);
  window.setInterval(tick, TICK_MS);
}

// Joins with a room link: resolves true in room mode, false when the server says the
// link is not a room's (the caller opens the solo game then).
export function openRoom(roomToken) {
  token = roomToken;
  wire();
  return join(true);
}

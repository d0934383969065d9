/*
 * clock.js — the turn's countdown: #countdown, #countdown-bar and #timer-box.urgent.
 *
 * The server owns the deadline. Each view gives deadline_ms and server_now_ms; the
 * kernel's serverClock carries the server's now forward on this page's own
 * performance.now(), so the two machines' clocks never need to agree. At zero it
 * asks for the state (through the handler given to `onExpiry`), which settles the
 * turn on the server, and asks again a little later while the game still goes on.
 */

import { deviceNow, secondsLeft, serverClock } from "/kernel/js/clock.js";
import { $ } from "/kernel/js/dom.js";
import { isBusy, isThinking } from "./controls.js";
import { currentScreen } from "./screens.js";
import { turnLimitMs } from "./start.js";
import { TEXT } from "./text.js";
import { toInt } from "./values.js";

const TICK_MS = 100;
const URGENT_MS = 5000;
const EXPIRY_RECHECK_MS = 1200;
const EXPIRY_MAX_CHECKS = 8;

const server = serverClock();
let deadlineMs = 0; // the turn's end on the server's clock
let turnMs = 0; // the turn's length, for the bar
let tickTimer = 0;
let announcedTen = false;
let expiryChecks = 0;
let lastExpiryCheck = 0;
let expiryHandler = () => Promise.resolve();

// `handler(quiet)` fetches the state and returns a promise; `quiet` is true from the
// second check on, when a network error need not be shown again.
export function onExpiry(handler) {
  expiryHandler = handler;
}

// Starts the turn of `view` over.
export function setClock(view) {
  const deadline = toInt(view.deadline_ms, 0);
  const serverNow = toInt(view.server_now_ms, 0);
  turnMs = turnLimitMs(view);
  if (deadline && serverNow) {
    server.note(serverNow);
    deadlineMs = deadline;
  } else {
    deadlineMs = server.now() + turnMs;
  }
  if (timeLeftMs() > 0) {
    expiryChecks = 0; // a turn with time on it: the expiry checks start over
  }
}

// A new turn: "Còn 10 giây." may be said again.
export function resetTenSecondNote() {
  announcedTen = false;
}

function timeLeftMs() {
  return server.until(deadlineMs);
}

export function startTicking() {
  if (!tickTimer) {
    tickTimer = window.setInterval(tick, TICK_MS);
  }
  tick();
}

export function stopTicking() {
  if (tickTimer) {
    window.clearInterval(tickTimer);
    tickTimer = 0;
  }
}

function tick() {
  if (currentScreen() !== "play") {
    stopTicking();
    return;
  }
  const left = Math.max(timeLeftMs(), 0);
  const seconds = secondsLeft(left);
  const counter = $("countdown");
  if (counter.textContent !== String(seconds)) {
    counter.textContent = String(seconds);
  }
  const frac = Math.min(Math.max(left / Math.max(turnMs, 1), 0), 1);
  $("countdown-bar").style.setProperty("--frac", frac.toFixed(4));
  const urgent = left <= URGENT_MS;
  $("timer-box").classList.toggle("urgent", urgent);
  $("countdown-bar").classList.toggle("urgent", urgent);
  if (!announcedTen && left <= 10000 && left > 0 && !isThinking()) {
    announcedTen = true;
    announce(TEXT.tenSeconds);
  }
  if (left <= 0) {
    checkExpiry();
  }
}

// Says `text` through the #sr-live region the entry module adds at boot.
function announce(text) {
  const live = $("sr-live");
  live.textContent = "";
  window.setTimeout(() => {
    live.textContent = text;
  }, 50);
}

// At zero the server settles the turn (after its 2 s grace), so ask it, and ask
// again a little later while it still says "playing".
function checkExpiry() {
  if (isBusy() || isThinking()) {
    return;
  }
  if (expiryChecks >= EXPIRY_MAX_CHECKS) {
    return;
  }
  if (expiryChecks > 0 && deviceNow() - lastExpiryCheck < EXPIRY_RECHECK_MS) {
    return;
  }
  expiryChecks += 1;
  lastExpiryCheck = deviceNow();
  expiryHandler(expiryChecks > 1).then(() => {
    lastExpiryCheck = deviceNow();
  });
}

/*
 * start.js — the start screen: the difficulty radios (remembered for the tab), the
 * turn length in the rules, the start button's two labels, #start-error (also the
 * early warning about a link that is unreadable or out of date, which turns the start
 * button off) and #session-message. Owns the timer of that warning and what it learnt
 * of the server's clock; starting a game is game.js's `startGame`.
 */

import { fetchWithTimeout } from "/kernel/js/api.js";
import { $, focusQuietly } from "/kernel/js/dom.js";
import { setBusy } from "./controls.js";
import { currentScreen, showScreen } from "./screens.js";
import { currentToken, leaveGame } from "./session.js";
import { storedDifficulty, storeDifficulty } from "./storage.js";
import { TEXT } from "./text.js";
import { tokenExpiry, tokenProblem } from "./token.js";
import { toInt } from "./values.js";

const LONGEST_TIMER_MS = 0x7fffffff;
const CLOCK_SLACK_S = 5; // the Date header's whole seconds, and the trip
const CLOCK_PROBE = "/kernel/js/text.js"; // the smallest file the server serves the page

let expiryTimer = 0;
let skewSeconds = 0; // the server's clock minus this device's, once learnt
let startBlocked = false;

// Checks the difficulty this tab used last, if any.
export function restoreDifficulty() {
  const remembered = storedDifficulty();
  if (remembered && $("difficulty-" + remembered)) {
    $("difficulty-" + remembered).checked = true;
  }
}

// The checked difficulty, remembered for next time.
export function chooseDifficulty() {
  const checked = document.querySelector('input[name="difficulty"]:checked');
  const difficulty = checked ? checked.value : "medium";
  storeDifficulty(difficulty);
  return difficulty;
}

// The turn length of `view` in ms; when the view does not say, the one in the rules.
// The page keeps no turn length of its own: the server writes its setting into the
// rules' mark (data-limit="turn_s"), and each view brings it (turn_limit_ms).
export function turnLimitMs(view) {
  const ms = toInt(view && view.turn_limit_ms, 0);
  return ms > 0 ? ms : toInt($("rules-turn-seconds").textContent, 0) * 1000;
}

// The same in whole seconds, as the rules say it (rounded half up, at least 1).
export function turnSeconds(view) {
  return Math.max(Math.round(turnLimitMs(view) / 1000), 1);
}

// The rules say the server's turn length; each view keeps it right, should the
// server's setting change.
export function showTurnLength(view) {
  const seconds = String(turnSeconds(view));
  const box = $("rules-turn-seconds");
  if (box.textContent !== seconds) {
    box.textContent = seconds;
  }
}

// Leaves any game and shows the start screen, with `message` above the rules. With a
// message (the page left a game it was showing), the focus goes to the start button,
// which is described by the message, instead of being lost with the hidden screen.
export function goToStart(message) {
  leaveGame();
  setBusy(false);
  showScreen("start");
  const note = $("session-message");
  note.textContent = message || "";
  note.hidden = !message;
  hideStartError();
  setStarting(false);
  warnAboutToken();
  if (message) {
    focusQuietly($("start-button"));
  }
}

// Says at once when the link cannot work, without waiting for "Bắt đầu"; and again
// when it runs out while the start screen is showing. "Bắt đầu" is off meanwhile: it
// could only be refused. This device's clock may be wrong, so a link it calls expired
// is checked against the server's clock (the Date of a small file's answer) once.
function warnAboutToken() {
  if (expiryTimer) {
    window.clearTimeout(expiryTimer);
    expiryTimer = 0;
  }
  const token = currentToken();
  const nowSeconds = Date.now() / 1000 + skewSeconds;
  const problem = tokenProblem(token, nowSeconds);
  blockStart(!!problem);
  if (problem) {
    showStartError(problem === "expired" ? TEXT.tokenExpired : TEXT.badToken);
    if (problem === "expired" && skewSeconds === 0) {
      learnServerClock().then((learnt) => {
        if (learnt && currentScreen() === "start" && currentToken() === token) {
          hideStartError();
          warnAboutToken();
        }
      });
    }
    return;
  }
  const wait = (tokenExpiry(token) - nowSeconds) * 1000 + 1000;
  if (wait < LONGEST_TIMER_MS) {
    expiryTimer = window.setTimeout(() => {
      expiryTimer = 0;
      if (currentScreen() === "start") {
        warnAboutToken();
      }
    }, wait);
  }
}

// Learns how far this device's clock is from the server's; resolves true when it
// differs by more than a few seconds (the skew is then applied).
function learnServerClock() {
  const url = new URL(CLOCK_PROBE, window.location.href);
  return fetchWithTimeout(url.toString(), { cache: "no-store" }).then((response) => response.text().then(() => {
    const serverMs = Date.parse(response.headers.get("Date") || "");
    if (!isFinite(serverMs)) {
      return false;
    }
    const skew = (serverMs - Date.now()) / 1000;
    if (Math.abs(skew) <= CLOCK_SLACK_S) {
      return false;
    }
    skewSeconds = skew;
    return true;
  }), () => false);
}

function blockStart(flag) {
  startBlocked = flag;
  $("start-button").disabled = flag;
}

// The start button while a start request is in flight ("Đang bắt đầu…") or not.
export function setStarting(flag) {
  const button = $("start-button");
  button.disabled = flag || startBlocked;
  button.textContent = flag ? TEXT.starting : TEXT.start;
}

// The server refused the link itself: "Bắt đầu" could only be refused again.
export function refuseLink(text) {
  showStartError(text);
  blockStart(true);
}

export function showStartError(text) {
  const box = $("start-error");
  box.textContent = text;
  box.hidden = false;
}

// Both notes describe the start button (aria-describedby), hidden or not: a hidden
// one keeps no text, so a screen reader never reads a stale message.
export function hideStartError() {
  const box = $("start-error");
  box.hidden = true;
  box.textContent = "";
}

export function hideSessionMessage() {
  const note = $("session-message");
  note.hidden = true;
  note.textContent = "";
}

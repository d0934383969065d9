/*
 * start.js — the start screen: the difficulty radios (remembered for the tab), the
 * start button's two labels, #start-error and #session-message. Owns no state of
 * its own beyond the DOM; starting a game is game.js's `startGame`.
 */

import { setBusy } from "./controls.js";
import { $ } from "./dom.js";
import { showScreen } from "./screens.js";
import { leaveGame } from "./session.js";
import { storedDifficulty, storeDifficulty } from "./storage.js";
import { TEXT } from "./text.js";

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

// Leaves any game and shows the start screen, with `message` above the rules.
export function goToStart(message) {
  leaveGame();
  setBusy(false);
  showScreen("start");
  const note = $("session-message");
  note.textContent = message || "";
  note.hidden = !message;
  $("start-error").hidden = true;
  setStarting(false);
}

// The start button while a start request is in flight ("Đang bắt đầu…") or not.
export function setStarting(flag) {
  const button = $("start-button");
  button.disabled = flag;
  button.textContent = flag ? TEXT.starting : TEXT.start;
}

export function showStartError(text) {
  const box = $("start-error");
  box.textContent = text;
  box.hidden = false;
}

export function hideStartError() {
  $("start-error").hidden = true;
}

export function hideSessionMessage() {
  $("session-message").hidden = true;
}

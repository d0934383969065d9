/*
 * thinking.js — the bot's short "Máy đang nghĩ…" pause before its word shows.
 *
 * Owns the pause's timer. While it runs the turn line shows the player's syllable as
 * the one the bot must answer, and the thinking flag (controls.js) blocks sending.
 */

import { $ } from "/kernel/js/dom.js";
import { updateSendButton, setThinking } from "./controls.js";
import { guard } from "./session.js";
import { TEXT } from "./text.js";
import { lastSyllable } from "./values.js";

const THINK_MIN_MS = 650;
const THINK_MAX_MS = 900;

let timer = 0;

// Shows the pause after `playerWord`, then calls `done` unless the game was left.
export function startThinking(playerWord, done) {
  cancelThinking();
  setThinking(true);
  updateSendButton();
  $("bot-word").textContent = TEXT.thinking;
  $("bot-word").setAttribute("data-key", "thinking");
  $("turn-label").textContent = TEXT.botAnswers;
  $("current-syllable").textContent = lastSyllable(playerWord);
  $("current-syllable").classList.add("pending");
  const wait = THINK_MIN_MS + Math.floor(Math.random() * (THINK_MAX_MS - THINK_MIN_MS));
  const stillHere = guard();
  timer = window.setTimeout(() => {
    timer = 0;
    setThinking(false);
    updateSendButton();
    if (stillHere()) {
      done();
    }
  }, wait);
}

// Drops a running pause without showing what it was waiting for.
export function cancelThinking() {
  if (timer) {
    window.clearTimeout(timer);
    timer = 0;
  }
  setThinking(false);
}

/*
 * play.js — the play screen: the score, the bot's word and the syllable to answer,
 * the input with its #reject-message, and the two-tap give-up button (owns the
 * timer that disarms it). The countdown is clock.js's, the chain chain.js's.
 */

import { $, el, focusQuietly } from "/kernel/js/dom.js";
import { renderChain } from "./chain.js";
import { resetTenSecondNote, setClock, startTicking } from "./clock.js";
import { updateSendButton } from "./controls.js";
import { currentScreen, showScreen } from "./screens.js";
import { TEXT } from "./text.js";
import { startThinking } from "./thinking.js";
import { chainOf, lastSyllable, toInt } from "./values.js";

const GIVE_UP_ARM_MS = 3000;

let giveUpTimer = 0;

export function showScore(view) {
  $("score").textContent = String(toInt(view.score, 0));
}

// Shows a game that is on. Options:
//   keepClock     keep the countdown as it is (the reveal after the bot's pause)
//   newTurn       the turn changed hands: the ten-second note may be said again
//   keepFocus     leave the focus where it is
//   thinkingWord  the player's accepted word: show it now, the bot's answer after a pause
export function renderPlay(view, opts) {
  const chain = chainOf(view);
  const wasPlaying = currentScreen() === "play";
  if (!wasPlaying) {
    showScreen("play");
  }
  $("screen-play").setAttribute("data-status", String(view.status));
  showScore(view);
  if (!opts.keepClock) {
    setClock(view); // the delayed reveal after "thinking" keeps the clock it had
  }
  if (opts.newTurn || !wasPlaying) {
    resetTenSecondNote();
  }

  if (opts.thinkingWord) {
    // The player's word is shown at once; the bot's reply waits a moment.
    renderChain("play", chain.slice(0, chain.length - 1), view.session);
    startThinking(opts.thinkingWord, () => {
      renderPlay(view, { newTurn: true, keepClock: true, keepFocus: true });
    });
    startTicking();
    return;
  }

  renderChain("play", chain, view.session);
  const last = chain.length ? chain[chain.length - 1] : null;
  // Rewrite the live region only when the bot's word changed, so a screen reader
  // does not repeat it after every refused word or refresh.
  const botLine = $("bot-word");
  const prefix = chain.length === 1 ? TEXT.opening : TEXT.botSaid;
  const key = last && last.by === "bot" ? chain.length + ":" + last.word : "";
  if (botLine.getAttribute("data-key") !== key) {
    botLine.setAttribute("data-key", key);
    botLine.textContent = "";
    if (key) {
      botLine.appendChild(document.createTextNode(prefix));
      botLine.appendChild(el("strong", "bot-word-text", last.word));
    }
  }
  $("turn-label").textContent = TEXT.answerWith;
  $("current-syllable").textContent = String(view.current || (last ? lastSyllable(last.word) : ""));
  $("current-syllable").classList.remove("pending");
  $("word-input").placeholder = (view.current ? view.current + " …" : "");
  updateSendButton();
  startTicking();
  if (!opts.keepFocus) {
    focusInput(false);
  }
}

// Focuses the word input (and selects its text) while the play screen shows.
export function focusInput(select) {
  const input = $("word-input");
  if (currentScreen() !== "play") {
    return;
  }
  focusQuietly(input);
  if (select) {
    input.select();
  }
}

// The typed word, spaces tidied ("" when nothing was typed).
export function typedWord() {
  return $("word-input").value.replace(/\s+/g, " ").trim();
}

export function clearInput() {
  $("word-input").value = "";
}

// `kind` "reject" (a refused word: the input is marked invalid) or "hint" (cleared
// as soon as the player types); `reason` goes to data-reason.
export function showReject(text, kind, reason) {
  const box = $("reject-message");
  box.textContent = text;
  box.setAttribute("data-kind", kind || "reject");
  if (reason) {
    box.setAttribute("data-reason", reason);
  } else {
    box.removeAttribute("data-reason");
  }
  $("word-input").setAttribute("aria-invalid", kind === "reject" ? "true" : "false");
}

export function clearReject() {
  const box = $("reject-message");
  box.textContent = "";
  box.removeAttribute("data-kind");
  box.removeAttribute("data-reason");
  $("word-input").removeAttribute("aria-invalid");
}

// The input's handler: typing clears a hint (not a refusal).
export function onTyping() {
  if ($("reject-message").getAttribute("data-kind") === "hint") {
    clearReject();
  }
}

export function isGiveUpArmed() {
  return $("give-up-button").getAttribute("data-armed") === "true";
}

// The first tap: the button asks to be sure, and reverts by itself after 3 s.
export function armGiveUp() {
  const button = $("give-up-button");
  button.setAttribute("data-armed", "true");
  button.textContent = TEXT.giveUpArmed;
  giveUpTimer = window.setTimeout(disarmGiveUp, GIVE_UP_ARM_MS);
}

export function disarmGiveUp() {
  if (giveUpTimer) {
    window.clearTimeout(giveUpTimer);
    giveUpTimer = 0;
  }
  const button = $("give-up-button");
  button.removeAttribute("data-armed");
  button.textContent = TEXT.giveUp;
}

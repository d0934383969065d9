/*
 * controls.js — whether the player may act right now.
 *
 * Two flags: busy (a request of the page's own is in flight) and thinking (the bot's
 * pretend pause before its word shows). Either one disables #send-button; busy
 * also disables #give-up-button.
 */

import { $ } from "/kernel/js/dom.js";

let busy = false;
let thinking = false;

export const isBusy = () => busy;
export const isThinking = () => thinking;

// Brings #send-button up to date with the flags.
export function updateSendButton() {
  const blocked = busy || thinking;
  $("send-button").disabled = blocked;
  $("send-button").setAttribute("aria-busy", blocked ? "true" : "false");
}

export function setBusy(flag) {
  busy = flag;
  updateSendButton();
  $("give-up-button").disabled = flag;
}

// Sets the flag only, leaving the buttons alone (for the resume at boot, while the
// loading note hides every screen).
export function markBusy() {
  busy = true;
}

// Sets the flag only; the caller updates the send button when it should.
export function setThinking(flag) {
  thinking = flag;
}

/*
 * banner.js — the #network-error banner and its #retry-button, which runs the action
 * that failed. Owns that pending retry.
 */

import { $ } from "./dom.js";
import { TEXT } from "./text.js";

let retry = null;

// `err` is an ApiError (or anything with a status); `again` is the action to retry,
// or nothing for no retry button.
export function showNetworkError(err, again) {
  const text = err && err.status >= 500 && err.code !== "offline" ? TEXT.server : TEXT.network;
  $("network-error-text").textContent = text;
  $("network-error").hidden = false;
  retry = again || null;
  $("retry-button").hidden = !again;
}

export function hideNetworkError() {
  $("network-error").hidden = true;
  retry = null;
}

// The retry button's click.
export function retryPressed() {
  const again = retry;
  hideNetworkError();
  if (again) {
    again();
  }
}

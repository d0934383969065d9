/*
 * banner.js — the #network-error banner both pages carry: its #network-error-text
 * and its #retry-button, which runs the action that failed. Owns that pending retry.
 */

import { $ } from "./dom.js";
import { KERNEL_TEXT } from "./text.js";

let retry = null;

// The banner's sentence for `err`: the server's trouble for a 5xx it answered, the
// connection's otherwise.
export function bannerText(err) {
  return err && err.status >= 500 && err.code !== "offline" ? KERNEL_TEXT.server : KERNEL_TEXT.network;
}

// `err` is the ApiError that stopped `again`, the action to retry (nothing for no
// retry button).
export function showNetworkError(err, again) {
  showBanner(bannerText(err), again);
}

// The banner with a sentence of the page's own (e.g. a live feed reconnecting).
export function showBanner(text, again) {
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

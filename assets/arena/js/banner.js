/*
 * banner.js — #network-error: shown when the server cannot be reached, with a retry
 * that runs whatever the page last failed to do.
 */

import { $ } from "./dom.js";

let retry = null;

export function showNetworkError(again) {
  retry = again || null;
  $("network-error").hidden = false;
}

export function hideNetworkError() {
  $("network-error").hidden = true;
}

export function retryPressed() {
  hideNetworkError();
  const again = retry;
  retry = null;
  if (again) {
    again();
  }
}

// An ApiError's text for a person: the server's own sentence, or the banner's.
export function errorText(err, fallback) {
  if (err && err.kind === "api" && err.message) {
    return err.message;
  }
  return fallback;
}

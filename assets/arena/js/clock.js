/*
 * clock.js — the person's countdown, from the server's deadline (ms since the epoch)
 * corrected for this device's clock: skew = serverNowMs − Date.now() when the
 * snapshot arrived, so a phone whose clock is off still counts the server's seconds.
 */

import { $ } from "./dom.js";

let skewMs = 0;
let deadline = 0;
let timer = 0;

export function noteServerTime(serverNowMs) {
  if (typeof serverNowMs === "number" && serverNowMs > 0) {
    skewMs = serverNowMs - Date.now();
  }
}

export const serverNow = () => Date.now() + skewMs;

function tick() {
  const left = Math.max(0, Math.ceil((deadline - serverNow()) / 1000));
  $("countdown").textContent = String(left);
  $("countdown-line").classList.toggle("urgent", left <= 10);
  if (left <= 0) {
    window.clearInterval(timer);
    timer = 0;
  }
}

// Counts down to `deadlineMs` under `label`; a null deadline hides the countdown.
export function showCountdown(deadlineMs, label) {
  if (!deadlineMs) {
    stopCountdown();
    return;
  }
  $("countdown-label").textContent = label;
  $("countdown-line").hidden = false;
  if (deadline !== deadlineMs || !timer) {
    deadline = deadlineMs;
    window.clearInterval(timer);
    timer = window.setInterval(tick, 250);
  }
  tick();
}

export function stopCountdown() {
  window.clearInterval(timer);
  timer = 0;
  deadline = 0;
  $("countdown-line").hidden = true;
}

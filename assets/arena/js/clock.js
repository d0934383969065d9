/*
 * clock.js — the person's countdown, from the server's deadline (ms since the epoch)
 * read on the kernel's serverClock: a snapshot's serverNowMs sets it, so a phone
 * whose clock is off still counts the server's seconds.
 */

import { secondsLeft, serverClock } from "/kernel/js/clock.js";
import { $ } from "/kernel/js/dom.js";

const server = serverClock();
let deadline = 0;
let timer = 0;

export function noteServerTime(serverNowMs) {
  server.note(serverNowMs);
}

function tick() {
  const left = secondsLeft(server.until(deadline));
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

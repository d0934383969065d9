/*
 * clock.js — the server's clock as this page sees it. A view carries the server's
 * now (ms since the epoch); the page keeps its offset from this device's own clock
 * when the view arrived and reads the server's now from there, so a device whose
 * clock is set wrong still counts the server's seconds.
 */

// This device's monotonic milliseconds (performance.now where there is one).
export function deviceNow() {
  return typeof performance === "object" && performance.now ? performance.now() : Date.now();
}

// The server's clock; `local` is the device's clock (deviceNow unless a test gives
// its own).
export function serverClock(local) {
  const read = local || deviceNow;
  let offsetMs = null;
  return {
    // Notes the server's now from a view; anything but a positive number is ignored.
    note(serverNowMs) {
      if (typeof serverNowMs === "number" && isFinite(serverNowMs) && serverNowMs > 0) {
        offsetMs = serverNowMs - read();
      }
    },
    // The server's now; this device's Date.now() until a view said the server's.
    now() {
      return offsetMs === null ? Date.now() : read() + offsetMs;
    },
    // Milliseconds from the server's now to `deadlineMs` (negative once past).
    until(deadlineMs) {
      return deadlineMs - this.now();
    }
  };
}

// The whole seconds a countdown shows for `leftMs`: rounded up, never below 0.
export function secondsLeft(leftMs) {
  return Math.max(0, Math.ceil(leftMs / 1000));
}

/*
 * telegram.js — the one thing the page asks of Telegram: sharing the score.
 *
 * games.js (loaded async in index.html) defines window.TelegramGameProxy, inside
 * Telegram only; it is looked up at each call because it may arrive after this
 * module has run, or never.
 */

export function canShare() {
  return !!(window.TelegramGameProxy && typeof window.TelegramGameProxy.shareScore === "function");
}

export function shareScore() {
  if (!canShare()) {
    return;
  }
  try {
    window.TelegramGameProxy.shareScore();
  } catch (e) {
    /* nothing useful to do; Telegram shows its own UI */
  }
}

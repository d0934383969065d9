/*
 * daily.js — Nối từ hôm nay (B13): the start screen in daily mode (no difficulty to
 * pick: everyone plays medium) and the end screen's daily block (#daily): the streak,
 * the share text with no word in it (from `api/daily`), and "Sao chép", which uses the
 * Clipboard API and, where the browser refuses, selects the text for the player to
 * copy.
 *
 * Owns the block's session and its timer.
 */

import { $ } from "/kernel/js/dom.js";
import { postOnce } from "./api.js";
import { currentScreen } from "./screens.js";
import { currentSession } from "./session.js";
import { DAILY_TEXT, dailyStreak } from "./text.js";

const DAILY_POLL_MS = 500;
const DAILY_POLL_MAX = 10;

let forSession = "";
let timer = 0;
let polls = 0;

// The start screen of a daily link: a note instead of the difficulty radios.
export function markDailyStart(daily) {
  $("daily-note").hidden = !daily;
  $("difficulty-box").hidden = daily;
}

// The end screen of `view` shows: a daily game's asks for its block; another hides it.
export function showDailyFor(view) {
  const daily = !!view.day;
  $("play-again").hidden = daily; // one daily game a day: nothing to play again
  if (!daily) {
    stopDaily();
    forSession = "";
    $("daily").hidden = true;
    return;
  }
  if (String(view.session) === forSession) {
    return;
  }
  stopDaily();
  forSession = String(view.session);
  polls = 0;
  $("daily-share").value = "";
  $("daily-streak").textContent = "";
  $("daily-copy-note").textContent = "";
  $("daily").hidden = true;
  ask();
}

export function stopDaily() {
  if (timer) {
    window.clearTimeout(timer);
    timer = 0;
  }
}

function stillHere(session) {
  return forSession === session && currentSession() === session && currentScreen() === "end";
}

function ask() {
  timer = 0;
  const session = forSession;
  polls += 1;
  postOnce("daily", { session: session }).then((answer) => {
    if (!stillHere(session)) {
      return;
    }
    if (answer && answer.status === "ready" && answer.share) {
      render(answer);
    } else if (polls < DAILY_POLL_MAX) {
      timer = window.setTimeout(ask, DAILY_POLL_MS);
    } else {
      failed();
    }
  }, () => {
    if (stillHere(session)) {
      failed();
    }
  });
}

function render(answer) {
  $("daily-streak").textContent = dailyStreak(Number(answer.streak) || 0);
  $("daily-share").value = String(answer.share);
  $("daily-copy").hidden = false;
  $("daily").hidden = false;
}

function failed() {
  $("daily-streak").textContent = DAILY_TEXT.unavailable;
  $("daily-share").value = "";
  $("daily-copy").hidden = true;
  $("daily").hidden = false;
}

// "Sao chép": the Clipboard API, or the text selected where it is refused.
export function copyShare() {
  const text = $("daily-share").value;
  const note = $("daily-copy-note");
  if (!text) {
    return;
  }
  const refused = () => {
    const box = $("daily-share");
    box.focus();
    box.select();
    note.textContent = DAILY_TEXT.copyRefused;
  };
  const clipboard = navigator.clipboard;
  if (!clipboard || typeof clipboard.writeText !== "function") {
    refused();
    return;
  }
  clipboard.writeText(text).then(() => {
    note.textContent = DAILY_TEXT.copied;
  }, refused);
}

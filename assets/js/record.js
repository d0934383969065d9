/*
 * record.js — the end screen's record block (#record, B12): the player's best and
 * place on this game message, the table's top 3, "Kỷ lục mới!" and this game's best
 * word, from `api/record`.
 *
 * The result shows first; the block asks beside it, says it is loading, and is hidden
 * again when no record came within RECORD_WAIT_MS (Telegram slow or down) or the
 * answer was "unavailable". Asked once per finished game: showing the same game's end
 * again keeps the block as it is.
 *
 * Owns the block's session, its phase, its start time and its timer.
 */

import { $, el } from "/kernel/js/dom.js";
import { postOnce } from "./api.js";
import {
  RECORD_POLL_MS, RECORD_WAIT_MS, recordLines, recordState, stillWaiting
} from "./recordview.js";
import { currentScreen } from "./screens.js";
import { currentSession } from "./session.js";
import { RECORD_TEXT } from "./text.js";

let forSession = "";
let phase = ""; // "asking", "ready" or "gone"
let startedAt = 0;
let timer = 0;

// The end screen of `view` shows: ask for its record (a replaced game shows none).
export function showRecordFor(view, replaced) {
  if (replaced) {
    stopRecord();
    hideRecord();
    return;
  }
  if (view.session === forSession && phase) {
    return;
  }
  stopRecord();
  forSession = String(view.session);
  phase = "asking";
  startedAt = Date.now();
  showLoading();
  ask();
}

// The page leaves the end screen: stop asking (a later end screen asks again).
export function stopRecord() {
  if (timer) {
    window.clearTimeout(timer);
    timer = 0;
  }
  if (phase === "asking") {
    phase = "";
  }
}

function ask() {
  timer = 0;
  const session = forSession;
  const left = RECORD_WAIT_MS - (Date.now() - startedAt);
  if (!stillWaiting(Date.now() - startedAt) || !stillHere(session)) {
    giveUp(session);
    return;
  }
  postOnce("record", { session: session }, Math.max(left, 1)).then((answer) => {
    if (!stillHere(session)) {
      return;
    }
    const state = recordState(answer);
    if (state === "ready" && stillWaiting(Date.now() - startedAt)) {
      phase = "ready";
      renderRecord(recordLines(answer.record));
    } else if (state === "pending") {
      timer = window.setTimeout(ask, RECORD_POLL_MS);
    } else {
      giveUp(session);
    }
  }, () => {
    giveUp(session); // the block is a bonus: a failure hides it quietly
  });
}

function stillHere(session) {
  return phase === "asking" && forSession === session && currentSession() === session &&
    currentScreen() === "end";
}

function giveUp(session) {
  if (forSession === session && phase === "asking") {
    phase = "gone";
    hideRecord();
  }
}

function hideRecord() {
  $("record").hidden = true;
}

function showLoading() {
  const box = $("record");
  box.setAttribute("data-state", "loading");
  $("record-new").hidden = true;
  $("record-best").textContent = RECORD_TEXT.loading;
  $("record-top").textContent = "";
  $("record-top").hidden = true;
  $("record-word").textContent = "";
  $("record-word").hidden = true;
  box.hidden = false;
}

function renderRecord(lines) {
  const box = $("record");
  box.setAttribute("data-state", "ready");
  box.setAttribute("data-new-record", lines.newRecord ? "true" : "false");
  $("record-new").hidden = !lines.newRecord;
  $("record-best").textContent = lines.best;
  const list = $("record-top");
  list.textContent = "";
  lines.top.forEach((row) => {
    const item = el("li", row.you ? "record-row record-you" : "record-row");
    item.setAttribute("data-place", String(row.place));
    item.appendChild(el("span", "record-place", String(row.place)));
    item.appendChild(el("span", "record-name", row.name));
    item.appendChild(el("span", "record-score", String(row.score)));
    list.appendChild(item);
  });
  list.hidden = !lines.top.length;
  $("record-word").textContent = lines.word;
  $("record-word").hidden = !lines.word;
  box.hidden = false;
}

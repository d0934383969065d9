/*
 * recordview.js — what an `api/record` answer means for the end screen's record block
 * (pure: no DOM, no timers; node-tested).
 *
 * The server answers {status, record}: "pending" (ask again), "ready" with the block,
 * or "unavailable" (no block). The page waits RECORD_WAIT_MS for "ready" at most, as
 * long as the server waits for Telegram (a test compares both numbers).
 */

import { RECORD_TEXT, recordBest, recordWord } from "./text.js";
import { toInt } from "./values.js";

export const RECORD_WAIT_MS = 3000;
export const RECORD_POLL_MS = 400;

// "pending", "ready" or "none" (anything else the server might say is "none").
export function recordState(answer) {
  if (!answer || typeof answer !== "object") {
    return "none";
  }
  if (answer.status === "pending") {
    return "pending";
  }
  if (answer.status === "ready" && answer.record && typeof answer.record === "object") {
    return "ready";
  }
  return "none";
}

// The lines the block shows for a ready record: whether it is a new record, the
// player's best and place (or that they are not on the table), the top 3 rows, and
// this game's best word ("" when the player played none).
export function recordLines(record) {
  const best = toInt(record.best, 0);
  const place = toInt(record.place, 0);
  const rows = Array.isArray(record.top) ? record.top : [];
  const word = record.best_word && typeof record.best_word === "object" ? record.best_word : null;
  return {
    newRecord: record.new_record === true,
    best: place > 0 ? recordBest(best, place) : RECORD_TEXT.notOnTable,
    top: rows.slice(0, 3).map((row) => ({
      place: toInt(row && row.place, 0),
      name: String((row && row.name) || RECORD_TEXT.someone) + (row && row.you === true ? RECORD_TEXT.you : ""),
      score: toInt(row && row.score, 0),
      you: !!(row && row.you === true)
    })),
    word: word && word.word ? recordWord(String(word.word), toInt(word.points, 0)) : ""
  };
}

// Whether the page should still wait for the block, `elapsedMs` after the result showed.
export function stillWaiting(elapsedMs) {
  return elapsedMs < RECORD_WAIT_MS;
}

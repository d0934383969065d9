/*
 * report.js — "Báo thiếu từ" (spec B11): after a not_in_dictionary refusal, the page
 * offers to report that word, once per word on this page, and shows the server's
 * answer (the thanks, the word's canonical spelling when it is already in the game, or
 * why it cannot be a word). Solo and rooms share it: each passes its own box ids and
 * its own way of posting the report.
 *
 * Owns: #<prefix>word-report (the box, hidden when there is nothing to offer),
 *       #<prefix>word-report-button and #<prefix>word-report-message inside it
 *       (solo: prefix ""; rooms: "room-").
 */

import { $ } from "/kernel/js/dom.js";

export const WORD_REPORT_TEXT = Object.freeze({
  sending: "Đang gửi…",
  failed: "Chưa gửi được. Bạn thử lại sau nhé.",
  already: "Bạn đã báo từ này rồi. Cảm ơn bạn!"
});

const reported = new Set(); // words reported from this page (normalized as typed)

function normalized(word) {
  return String(word || "").normalize("NFC").toLowerCase().trim().split(/\s+/).join(" ");
}

// `send(word)` posts the report and resolves to the server's answer ({message}).
export function offerReport(prefix, word, send) {
  const box = $(prefix + "word-report");
  const button = $(prefix + "word-report-button");
  const message = $(prefix + "word-report-message");
  const key = normalized(word);
  box.hidden = false;
  message.textContent = "";
  button.hidden = reported.has(key);
  button.disabled = false;
  if (reported.has(key)) {
    message.textContent = WORD_REPORT_TEXT.already;
    return;
  }
  button.onclick = () => {
    button.disabled = true;
    message.textContent = WORD_REPORT_TEXT.sending;
    send(word).then((answer) => {
      reported.add(key);
      button.hidden = true;
      message.textContent = (answer && answer.message) || WORD_REPORT_TEXT.already;
    }, (err) => {
      const answered = err && err.kind === "api" && err.message;
      message.textContent = answered ? err.message : WORD_REPORT_TEXT.failed;
      if (err && err.kind === "api") {
        reported.add(key); // the server's word is final (a cap, or not this word)
        button.hidden = true;
      } else {
        button.disabled = false;
      }
    });
  };
}

export function hideReport(prefix) {
  const box = $(prefix + "word-report");
  box.hidden = true;
  $(prefix + "word-report-message").textContent = "";
}

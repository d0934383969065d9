/*
 * end.js — the end screen: the title and reason, the final score, the leaderboard
 * note (#score-report) with its polling while the server still reports "pending",
 * the record block (record.js),
 * the suggestions after a loss, the whole chain again, and the share button. A game
 * that a newer start replaced says so, and offers "Tiếp tục ván mới" instead.
 *
 * Owns the report poll's timer and count.
 */

import { $, el, focusQuietly } from "/kernel/js/dom.js";
import { postOnce } from "./api.js";
import { renderChain, renderMeanings } from "./chain.js";
import { showDailyFor } from "./daily.js";
import { showRecordFor } from "./record.js";
import { currentScreen, showScreen } from "./screens.js";
import { currentSession, currentView, guard, updateView } from "./session.js";
import { goToStart, turnSeconds } from "./start.js";
import { canShare } from "./telegram.js";
import { END_REASONS, noWordAfter, REPORT_TEXT, TEXT } from "./text.js";
import { cancelThinking } from "./thinking.js";
import { chainOf, itemWord, toInt } from "./values.js";

const REPORT_POLL_MS = 1500;
const REPORT_POLL_MAX = 20;

let reportTimer = 0;
let reportPolls = 0;

// Shows a game that is over.
export function renderEnd(view) {
  cancelThinking();
  showScreen("end");
  $("screen-end").setAttribute("data-status", String(view.status));
  const won = view.status === "won";
  // The spec's end_reason stays (gave_up or no_legal_move); replaced_by says why.
  const replaced = !!view.replaced_by;
  const reason = String(view.end_reason || "");
  let title = won ? TEXT.won : view.status === "lost" ? TEXT.lost : TEXT.over;
  let reasonText = (END_REASONS[reason] || "").replace("{s}", String(turnSeconds(view)));
  if (reason === "no_legal_move" && view.current) {
    reasonText = noWordAfter(view.current);
  }
  if (replaced) {
    title = TEXT.replacedTitle;
    reasonText = TEXT.replaced;
  }
  $("end-title").textContent = title;
  $("end-result").setAttribute("data-outcome", replaced ? "replaced" : won ? "won" : "lost");
  const reasonBox = $("end-reason");
  reasonBox.textContent = reasonText;
  reasonBox.setAttribute("data-reason", reason);
  reasonBox.setAttribute("data-replaced", replaced ? "true" : "false");
  showFinalScore(view);
  renderReport(view.score_reported);
  showRecordFor(view, replaced);
  showDailyFor(view);
  renderSuggestions(view, replaced);
  renderChain("end", chainOf(view), view.session);
  updateShareButton();
  $("continue-button").hidden = !replaced;
  $("play-again").classList.toggle("btn-primary", !replaced);
  reportPolls = 0;
  if (view.score_reported === "pending") {
    scheduleReportPoll();
  }
  focusQuietly($(replaced ? "continue-button" : view.day ? "daily-copy" : "play-again"));
}

function showFinalScore(view) {
  $("final-score").textContent = String(toInt(view.score, 0));
}

function renderReport(state) {
  const box = $("score-report");
  state = state ? String(state) : "";
  box.setAttribute("data-state", state);
  box.textContent = REPORT_TEXT[state] || "";
}

// After a loss, the words the player could have played; not after a replacement,
// which the player did not lose.
function renderSuggestions(view, replaced) {
  const box = $("suggestions");
  box.textContent = "";
  if (view.status !== "lost" || replaced) {
    box.hidden = true;
    return;
  }
  let list = Array.isArray(view.suggestions) ? view.suggestions : [];
  list = list.filter((s) => itemWord(s));
  box.hidden = false;
  if (!list.length) {
    box.appendChild(el("p", "dead-end", TEXT.deadEnd));
    return;
  }
  box.appendChild(el("h3", "suggest-title", TEXT.suggestTitle));
  const ul = el("ul", "suggest-list");
  list.forEach((s) => {
    const li = el("li", "suggest-item");
    li.setAttribute("data-word", itemWord(s));
    li.appendChild(el("span", "suggest-word", itemWord(s)));
    const meanings = renderMeanings(s);
    if (meanings) {
      li.appendChild(meanings);
    }
    ul.appendChild(li);
  });
  box.appendChild(ul);
}

// The share button shows only where Telegram's games.js offers sharing.
export function updateShareButton() {
  $("share-button").hidden = !canShare();
}

// ---- the leaderboard report -----------------------------------------------------

function scheduleReportPoll() {
  stopReportPolling();
  if (reportPolls >= REPORT_POLL_MAX) {
    return;
  }
  reportTimer = window.setTimeout(pollReport, REPORT_POLL_MS);
}

export function stopReportPolling() {
  if (reportTimer) {
    window.clearTimeout(reportTimer);
    reportTimer = 0;
  }
}

// Back on a page whose report was still pending with no poll to come: poll anew.
export function resumeReportPolling() {
  const view = currentView();
  if (view && view.score_reported === "pending" && !reportTimer) {
    reportPolls = 0;
    pollReport();
  }
}

function pollReport() {
  reportTimer = 0;
  const session = currentSession();
  if (currentScreen() !== "end" || !session) {
    return;
  }
  reportPolls += 1;
  const stillHere = guard();
  postOnce("state", { session: session }).then((view) => {
    if (!stillHere() || currentScreen() !== "end" || !view || view.session !== session) {
      return;
    }
    updateView(view);
    renderReport(view.score_reported);
    showFinalScore(view);
    if (view.score_reported === "pending") {
      scheduleReportPoll();
    }
  }, (err) => {
    if (!stillHere() || currentScreen() !== "end") {
      return;
    }
    if (err.kind === "api" && err.code === "no_session") {
      goToStart(TEXT.noSession);
      return;
    }
    // A hiccup while waiting for the leaderboard: keep trying quietly.
    scheduleReportPoll();
  });
}

/*
 * noitu — the player's page for Vietnamese word chaining against the bot.
 *
 * ES modules, no build step: index.html loads this entry module, which imports the
 * others from js/ (served next to it) and the kernel both pages share from
 * /kernel/js/ (dom, api's ApiError and fetch, the network banner, storage, the
 * server's clock), and wires them to the page. The server owns the chain, the clock
 * and the score; this page only shows the session view it gets back and sends the
 * player's words.
 *
 * The modules, each owning its own state (if any) behind the functions it exports:
 *
 *   js/text.js      every Vietnamese string the script writes
 *   js/values.js    reading a view's loosely typed values
 *   js/storage.js   the sessionStorage keys noitu.token, noitu.session, noitu.difficulty
 *   js/api.js       the JSON API client: its known errors, one retry on too_fast
 *   js/session.js   token, session id, latest view, and the epoch guards
 *   js/screens.js   which screen shows; onScreenChange
 *   js/controls.js  the busy and thinking flags and the buttons they disable
 *   js/thinking.js  the bot's pause before its word shows
 *   js/clock.js     the turn countdown and the check at zero
 *   js/chain.js     #chain and #end-chain, with the meanings panels
 *   js/token.js     reading the game link's expiry, for an early warning
 *   js/start.js     the start screen
 *   js/play.js      the play screen: score, turn line, input, give-up button
 *   js/end.js       the end screen, the leaderboard note and its polling
 *   js/record.js    the end screen's record block: best, place, top 3, best word
 *   js/recordview.js  what an api/record answer means for the block (pure)
 *   js/daily.js     Nối từ hôm nay (B13): the daily start and the end screen's block
 *   js/telegram.js  TelegramGameProxy (games.js), for sharing the score
 *   js/game.js      the actions: start, move, give up, refresh, resume
 *   js/room.js      room mode: a group's room, driven by its live feed (see there)
 *   js/roomview.js  what a room's view means for this page (pure)
 *   js/feed.js      the room's live feed: reconnecting, and the feed's endings
 *   js/report.js    "Báo thiếu từ" after a word the dictionary lacks (solo and rooms)
 *
 * The syntax stays within what every browser with module scripts understands
 * (no optional chaining, no ??).
 *
 * Stable hooks for browser tests (each element has the id and a data-testid of the
 * same name):
 *
 *   Screens (exactly one is visible, the others carry `hidden`):
 *     #screen-notoken   no game link: how to open the game from Telegram
 *     #screen-start     rules, difficulty, start
 *     #screen-play      the game
 *     #screen-end       the result
 *     #screen-room      room mode (its hooks are listed in js/room.js)
 *   Start:
 *     #difficulty-easy, #difficulty-medium, #difficulty-hard   radio inputs
 *     #start-button (off while the link cannot work), #start-error (also the early
 *                       warning about an unreadable or expired link, shown before any
 *                       request)
 *     #session-message  "Ván chơi không còn nữa…" after a no_session error
 *     #rules-turn-seconds  the turn length the rules state (the server's setting)
 *   Play:
 *     #score            the score (digits only)
 *     #countdown        whole seconds left (digits only); #timer-box gets .urgent
 *     #countdown-bar    the bar; its --frac custom property is the fraction left
 *     #bot-word         live region: the bot's last word / "Máy đang nghĩ…"
 *     #current-syllable the syllable to answer
 *     #word-input, #send-button
 *     #reject-message   the server's message for a refused word
 *     #word-report      after a not_in_dictionary refusal: #word-report-button ("Báo
 *                       thiếu từ") and #word-report-message (the server's answer)
 *     #give-up-button   needs two taps (data-armed="true" after the first)
 *     #chain            <li> per word, newest first, with data-by="bot|player",
 *                       data-word, .chain-word, .chain-points (the player's),
 *                       .chain-bot-points (the bot's, not counted; none on the
 *                       opening), and, only for a word with meanings, a
 *                       button.meaning-toggle[aria-expanded] opening .meanings
 *   End:
 *     #end-title, #end-reason (data-reason="<end_reason>", data-replaced="true"
 *     when a newer start replaced the game), #final-score,
 *     #score-report (data-state="<score_reported>"), #suggestions (<li> per word),
 *     #continue-button ("Tiếp tục ván mới", only on a replaced game),
 *     #play-again, #share-button, #end-chain (the whole chain again)
 *     #record           the record block (hidden until asked, and when none came in
 *                       3 s); data-state="loading|ready", data-new-record; inside:
 *                       #record-new ("Kỷ lục mới!"), #record-best, #record-top (<li
 *                       class="record-row"> per row, data-place, .record-you for the
 *                       player), #record-word
 *     #daily            a daily game's block (hidden otherwise): #daily-streak,
 *                       #daily-share (the share text, a read-only textarea),
 *                       #daily-copy ("Sao chép"), #daily-copy-note (what copying did);
 *                       #play-again is hidden for a daily game
 *   Start, a daily link: #daily-note shows, the difficulty radios hide
 *   Anywhere:
 *     #network-error, #retry-button
 *
 * #screen-play and #screen-end also carry data-status="<status>".
 */

import { retryPressed } from "/kernel/js/banner.js";
import { $, el } from "/kernel/js/dom.js";
import { onChainClick } from "./js/chain.js";
import { onExpiry, stopTicking } from "./js/clock.js";
import { copyShare, markDailyStart, stopDaily } from "./js/daily.js";
import { isThinking } from "./js/controls.js";
import { resumeReportPolling, stopReportPolling, updateShareButton } from "./js/end.js";
import {
  continueNewer, giveUpPressed, playAgain, refreshState, resume, sendMove, startGame
} from "./js/game.js";
import { disarmGiveUp, onTyping } from "./js/play.js";
import { stopRecord } from "./js/record.js";
import { openRoom } from "./js/room.js";
import { currentScreen, onScreenChange, showLoading, showScreen } from "./js/screens.js";
import { currentToken, readToken, restoreSession } from "./js/session.js";
import { goToStart, restoreDifficulty } from "./js/start.js";
import { shareScore } from "./js/telegram.js";
import { cancelThinking } from "./js/thinking.js";
import { isDailyToken, isRoomToken } from "./js/token.js";

// What belongs to a screen stops when the page leaves it.
function onLeave(name) {
  if (name !== "play") {
    stopTicking();
    disarmGiveUp();
    cancelThinking();
  }
  if (name !== "end") {
    stopReportPolling();
    stopRecord();
    stopDaily();
  }
}

// Back to the tab (or back from the bfcache): catch up with the server.
function onVisible() {
  if (document.visibilityState !== "visible") {
    return;
  }
  if (currentScreen() === "play" && !isThinking()) {
    refreshState({ keepFocus: true });
  } else if (currentScreen() === "end") {
    resumeReportPolling();
  }
}

function wire() {
  onScreenChange(onLeave);
  onExpiry((quiet) => refreshState({ keepFocus: true, quietNetwork: quiet }));

  $("start-button").addEventListener("click", startGame);
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sendMove();
  });
  // Keep the keyboard up on phones: tapping Send must not take the focus away
  // from the input (the click still fires).
  ["pointerdown", "mousedown"].forEach((type) => {
    $("send-button").addEventListener(type, (event) => {
      if (document.activeElement === $("word-input")) {
        event.preventDefault();
      }
    });
  });
  $("word-input").addEventListener("input", onTyping);
  $("give-up-button").addEventListener("click", giveUpPressed);
  $("play-again").addEventListener("click", playAgain);
  $("continue-button").addEventListener("click", continueNewer);
  $("share-button").addEventListener("click", shareScore);
  $("daily-copy").addEventListener("click", copyShare);
  $("retry-button").addEventListener("click", retryPressed);
  $("chain").addEventListener("click", onChainClick);
  $("end-chain").addEventListener("click", onChainClick);
  document.addEventListener("visibilitychange", onVisible);
  const games = $("telegram-games-js");
  if (games) {
    games.addEventListener("load", updateShareButton);
  }
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) {
      onVisible();
    }
  });
}

function boot() {
  // The live region clock.js speaks the ten-second note through.
  const live = el("p", "visually-hidden");
  live.id = "sr-live";
  live.setAttribute("aria-live", "polite");
  document.body.appendChild(live);

  wire();
  restoreDifficulty();
  if (!readToken()) {
    showScreen("notoken");
    return;
  }
  if (isRoomToken(currentToken())) {
    showLoading();
    openRoom(currentToken()).then((isRoom) => {
      if (!isRoom) {
        soloBoot();
      }
    });
    return;
  }
  soloBoot();
}

function soloBoot() {
  markDailyStart(isDailyToken(currentToken()));
  if (restoreSession()) {
    resume();
  } else {
    goToStart("");
  }
}

// Module scripts run after the document is parsed, but keep the check anyway.
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", boot);
} else {
  boot();
}

/*
 * game.js — what the player's actions and the server's answers do: start a game,
 * send a word, give up, refresh the state, resume a saved game at boot.
 *
 * Each action takes a guard (session.js) before its request and ignores the answer
 * once the player has left that game. Holds no state of its own: the session lives
 * in session.js, the flags in controls.js, the screens in their modules.
 */

import { ApiError } from "/kernel/js/api.js";
import { hideNetworkError, showNetworkError } from "/kernel/js/banner.js";
import { $ } from "/kernel/js/dom.js";
import { KERNEL_TEXT } from "/kernel/js/text.js";
import { post } from "./api.js";
import { renderChain } from "./chain.js";
import { stopTicking } from "./clock.js";
import { isBusy, isThinking, markBusy, setBusy } from "./controls.js";
import { renderEnd } from "./end.js";
import { hideReport, offerReport } from "./report.js";
import {
  armGiveUp, clearInput, clearReject, disarmGiveUp, focusInput, isGiveUpArmed,
  renderPlay, showReject, showScore, typedWord
} from "./play.js";
import { currentScreen, showLoading } from "./screens.js";
import {
  adoptView, currentSession, currentToken, currentView, guard, isStale, nextEpoch
} from "./session.js";
import {
  chooseDifficulty, goToStart, hideSessionMessage, hideStartError, refuseLink, setStarting,
  showStartError, showTurnLength
} from "./start.js";
import { TEXT } from "./text.js";
import { startThinking } from "./thinking.js";
import { chainOf, waitSeconds } from "./values.js";

// Shows whatever the server says the session is now. Options: `fresh` (a start or
// a resume: take the view even if it is another session) and renderPlay's.
function applyView(view, opts) {
  opts = opts || {};
  if (!view || typeof view !== "object" || !view.session) {
    showNetworkError(new ApiError("network", "bad_view", "", 0), refreshState);
    return;
  }
  if (isStale(view, opts.fresh)) {
    return; // an answer about a game we already left
  }
  adoptView(view);
  showTurnLength(view);
  if (view.status === "playing") {
    renderPlay(view, opts);
  } else {
    renderEnd(view);
  }
}

// The errors every in-game action handles alike. Returns false for the others.
function handleGameError(err, retry) {
  if (err.kind === "api" && (err.code === "no_session" || err.code === "bad_request")) {
    goToStart(TEXT.noSession);
    return true;
  }
  if (err.kind === "api" && err.code === "game_over") {
    refreshState();
    return true;
  }
  if (err.kind !== "api" || err.code === "busy") {
    showNetworkError(err, retry);
    return true;
  }
  return false;
}

// Asks the server for the session's view. Options: `keepFocus`, and `quietNetwork`
// (a network error is not shown). The promise always resolves.
export function refreshState(opts) {
  opts = opts || {};
  if (!currentSession()) {
    return Promise.resolve();
  }
  if (isBusy()) {
    return Promise.resolve();
  }
  const stillHere = guard();
  setBusy(true);
  return post("state", { session: currentSession() }).then((view) => {
    if (!stillHere()) {
      return;
    }
    setBusy(false);
    hideNetworkError();
    applyView(view, { keepFocus: opts.keepFocus });
  }, (err) => {
    if (!stillHere()) {
      return;
    }
    setBusy(false);
    if (opts.quietNetwork && err.kind !== "api") {
      return;
    }
    if (!handleGameError(err, refreshState)) {
      showNetworkError(err, refreshState);
    }
  });
}

export function startGame() {
  if (isBusy()) {
    return;
  }
  hideNetworkError();
  hideStartError();
  const difficulty = chooseDifficulty();
  const stillHere = nextEpoch();
  setBusy(true);
  setStarting(true);
  post("start", { token: currentToken(), difficulty: difficulty }).then((view) => {
    if (!stillHere()) {
      return;
    }
    setBusy(false);
    setStarting(false);
    hideSessionMessage();
    clearInput();
    clearReject();
    applyView(view, { fresh: true });
  }, (err) => {
    if (!stillHere()) {
      return;
    }
    setBusy(false);
    setStarting(false);
    if (err.kind !== "api") {
      showNetworkError(err, startGame);
      return;
    }
    if (err.code === "token_expired") {
      refuseLink(TEXT.tokenExpired);
    } else if (err.code === "bad_token") {
      refuseLink(TEXT.badToken);
    } else if (err.code === "too_fast") {
      showStartError(err.retryAfterMs ? TEXT.startTooFastFor(waitSeconds(err.retryAfterMs)) : TEXT.startTooFast);
    } else if (err.code === "busy") {
      showStartError(TEXT.busy);
    } else {
      showStartError(err.message || KERNEL_TEXT.server);
    }
  });
}

export function sendMove() {
  if (currentScreen() !== "play" || isBusy() || isThinking()) {
    return;
  }
  const word = typedWord();
  if (!word) {
    showReject(TEXT.empty, "hint");
    focusInput(false);
    return;
  }
  hideNetworkError();
  disarmGiveUp();
  const stillHere = guard();
  setBusy(true);
  post("move", { session: currentSession(), word: word }).then((answer) => {
    if (!stillHere()) {
      return;
    }
    setBusy(false);
    const result = answer && answer.result;
    const view = answer && answer.state;
    if (!result || !view) {
      showNetworkError(new ApiError("network", "bad_answer", "", 0), refreshState);
      return;
    }
    if (result.reason === "not_in_dictionary") {
      const session = currentSession();
      offerReport("", word, (refused) => post("report-word", { session: session, word: refused }));
    } else {
      hideReport("");
    }
    if (result.accepted) {
      clearReject();
      clearInput();
      const played = result.player_word || word;
      const opts = { keepFocus: true };
      if (result.bot_word) {
        opts.thinkingWord = played;
      }
      if (view.status === "playing") {
        applyView(view, opts);
      } else if (view.end_reason === "bot_stuck") {
        // The bot could not answer the player's word: let it "think", then end.
        showFinalMove(view, played);
      } else {
        applyView(view);
      }
      focusInput(false);
    } else {
      showReject(result.message || TEXT.moveBusy, "reject", result.reason);
      applyView(view, { keepFocus: true });
      if (view.status === "playing") {
        focusInput(true);
      }
    }
  }, (err) => {
    if (!stillHere()) {
      return;
    }
    setBusy(false);
    if (err.kind === "api" && err.code === "too_fast") {
      showReject(TEXT.moveTooFast, "hint");
      focusInput(true);
      return;
    }
    if (err.kind === "api" && err.code === "busy") {
      showReject(TEXT.moveBusy, "hint");
      focusInput(true);
      return;
    }
    if (err.kind === "api" && err.code === "bad_request" && err.message) {
      // e.g. a word that is too long; the game itself is still fine.
      showReject(err.message, "reject", "bad_request");
      focusInput(true);
      return;
    }
    handleGameError(err, refreshState);
  });
}

// The player's last word left the bot without a reply: show it, pause, then end.
function showFinalMove(view, played) {
  renderChain("play", chainOf(view), view.session);
  showScore(view);
  stopTicking();
  adoptView(view);
  startThinking(played, () => {
    renderEnd(view);
  });
}

// The give-up button's click: the first tap arms it, the second gives up.
export function giveUpPressed() {
  if (isBusy() || isThinking()) {
    return;
  }
  if (!isGiveUpArmed()) {
    armGiveUp();
    return;
  }
  disarmGiveUp();
  hideNetworkError();
  const stillHere = guard();
  setBusy(true);
  post("give-up", { session: currentSession() }).then((view) => {
    if (!stillHere()) {
      return;
    }
    setBusy(false);
    applyView(view);
  }, (err) => {
    if (!stillHere()) {
      return;
    }
    setBusy(false);
    if (!handleGameError(err, refreshState)) {
      showNetworkError(err, refreshState);
    }
  });
}

// At boot with a saved session: fetch it behind the loading note.
export function resume() {
  hideNetworkError();
  showLoading();
  const stillHere = guard();
  markBusy();
  post("state", { session: currentSession() }).then((view) => {
    if (!stillHere()) {
      return;
    }
    setBusy(false);
    applyView(view, { fresh: true });
  }, (err) => {
    if (!stillHere()) {
      return;
    }
    setBusy(false);
    if (err.kind === "api" && (err.code === "no_session" || err.code === "bad_request" || err.code === "game_over")) {
      goToStart(TEXT.noSession);
      return;
    }
    showNetworkError(err, resume);
  });
}

// The end screen's "Tiếp tục ván mới", on a game a newer start replaced: go on in the
// newer game (this player's, opened in another tab or on another game message).
export function continueNewer() {
  const view = currentView();
  const next = view && view.replaced_by ? String(view.replaced_by) : "";
  if (!next || isBusy()) {
    return;
  }
  hideNetworkError();
  const stillHere = nextEpoch();
  setBusy(true);
  post("state", { session: next }).then((fresh) => {
    if (!stillHere()) {
      return;
    }
    setBusy(false);
    clearInput();
    clearReject();
    applyView(fresh, { fresh: true });
  }, (err) => {
    if (!stillHere()) {
      return;
    }
    setBusy(false);
    if (err.kind === "api" && (err.code === "no_session" || err.code === "bad_request")) {
      goToStart(TEXT.noSession);
      return;
    }
    showNetworkError(err, continueNewer);
  });
}

// The end screen's "Chơi lại".
export function playAgain() {
  hideNetworkError();
  goToStart("");
  $("start-button").focus();
}

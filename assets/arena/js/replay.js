/*
 * replay.js — playing back a finished match from its replay (JSON Lines, spec B4):
 * the `setup` event's pieces, then one frame per `applied` event (a MOVE moves its
 * piece; a fight removes the loser, and a won attack stands on the target; a TIE and
 * a PASS change nothing). Unknown events are skipped.
 *
 * The scrubber (#replay-range), the step buttons and Phát/Dừng pick a frame;
 * onFrame(listener) hears every change. frame() is the frame shown, or null when no
 * replay is loaded.
 */

import { getText } from "./api.js";
import { $ } from "./dom.js";
import { T } from "./text.js";

const STEP_MS = 450;

let frames = [];
let index = 0;
let loadedFor = "";
let timer = 0;
let listener = () => {};

export function onFrame(callback) {
  listener = callback;
}

// The pieces after `event` is applied to `pieces` (a new list; the old one stays).
export function applyEvent(pieces, event) {
  const action = event.action || {};
  if (action.type !== "MOVE" || !action.to) {
    return pieces;
  }
  const fight = event.fight;
  const moved = (piece) => ({
    id: piece.id, ownerId: piece.ownerId, type: piece.type, status: piece.status,
    position: { row: action.to.row, col: action.to.col }
  });
  if (!fight) {
    return pieces.map((piece) => (piece.id === action.pieceId ? moved(piece) : piece));
  }
  if (fight.result === "WIN") {
    return pieces.filter((piece) => piece.id !== fight.defender)
      .map((piece) => (piece.id === fight.attacker ? moved(piece) : piece));
  }
  if (fight.result === "LOSE") {
    return pieces.filter((piece) => piece.id !== fight.attacker);
  }
  return pieces;
}

// The frames of a replay's text: [{pieces, last}], frame 0 the setup.
export function framesOf(text) {
  const out = [];
  let pieces = null;
  text.split("\n").forEach((line) => {
    if (!line.trim()) {
      return;
    }
    let event = null;
    try {
      event = JSON.parse(line);
    } catch (e) {
      return;
    }
    if (!event || typeof event !== "object") {
      return;
    }
    if (event.event === "setup" && Array.isArray(event.pieces)) {
      pieces = event.pieces.filter((piece) => piece && piece.position);
      out.length = 0;
      out.push({ pieces: pieces, last: null });
    } else if (event.event === "applied" && pieces) {
      pieces = applyEvent(pieces, event);
      out.push({ pieces: pieces, last: event });
    }
  });
  return out;
}

function show() {
  const last = Math.max(0, frames.length - 1);
  $("replay-range").max = String(last);
  $("replay-range").value = String(index);
  $("replay-position").textContent = index + "/" + last;
  $("replay-range").setAttribute("aria-valuetext", "Lượt " + index + " trên " + last);
  $("replay-prev").disabled = index <= 0;
  $("replay-start").disabled = index <= 0;
  $("replay-next").disabled = index >= last;
  $("replay-end").disabled = index >= last;
  listener();
}

export function frame() {
  return frames.length ? frames[index] : null;
}

export const frameIndex = () => index;

export function goTo(wanted) {
  index = Math.max(0, Math.min(frames.length - 1, wanted));
  if (index >= frames.length - 1) {
    pause();
  }
  show();
}

export function pause() {
  window.clearInterval(timer);
  timer = 0;
  $("replay-play").textContent = T.play;
  $("replay-play").setAttribute("aria-pressed", "false");
}

export function togglePlay() {
  if (timer) {
    pause();
    return;
  }
  if (index >= frames.length - 1) {
    index = 0;
  }
  $("replay-play").textContent = T.pause;
  $("replay-play").setAttribute("aria-pressed", "true");
  timer = window.setInterval(() => goTo(index + 1), STEP_MS);
  show();
}

export function resetReplay() {
  pause();
  frames = [];
  index = 0;
  loadedFor = "";
  $("replay-box").hidden = true;
}

// Loads the replay of `matchId` once; shows the last frame (the final position).
export function loadReplay(matchId) {
  if (loadedFor === matchId) {
    return;
  }
  loadedFor = matchId;
  const path = "/matches/" + encodeURIComponent(matchId) + "/replay";
  $("replay-download").href = "/arena/api" + path;
  $("replay-download").setAttribute("download", "match-" + matchId + ".jsonl");
  $("replay-box").hidden = false;
  $("replay-position").textContent = T.replayLoading;
  getText(path).then((text) => {
    if (loadedFor !== matchId) {
      return;
    }
    frames = framesOf(text);
    index = Math.max(0, frames.length - 1);
    show();
  }, () => {
    if (loadedFor === matchId) {
      $("replay-position").textContent = T.replayFailed;
    }
  });
}

export function wireReplay() {
  $("replay-range").addEventListener("input", () => {
    pause();
    goTo(Number($("replay-range").value));
  });
  $("replay-prev").addEventListener("click", () => {
    pause();
    goTo(index - 1);
  });
  $("replay-next").addEventListener("click", () => {
    pause();
    goTo(index + 1);
  });
  $("replay-start").addEventListener("click", () => {
    pause();
    goTo(0);
  });
  $("replay-end").addEventListener("click", () => {
    pause();
    goTo(frames.length - 1);
  });
  $("replay-play").addEventListener("click", togglePlay);
}

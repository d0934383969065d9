/*
 * replay.js — playing back a finished match from its replay (JSON Lines, spec B4),
 * fetched from the server or read from a file on the author's disk: the `setup`
 * event's pieces, then one frame per `applied` event (a MOVE moves its piece; a
 * fight removes the loser, and a won attack stands on the target; a TIE and a PASS
 * change nothing). Unknown events are skipped.
 *
 * Each frame is a whole position, so everything shown beside the board follows it:
 * {pieces, last (the applied event, or null), turn, toMove (the side to act next, or
 * null once the match is over), left ({P1, P2}: pieces on the board)}.
 *
 * The scrubber (#replay-range), the step buttons and Phát/Dừng pick a frame;
 * onFrame(listener) hears every change. frame() is the frame shown, or null when no
 * replay is loaded.
 */

import { $ } from "/kernel/js/dom.js";
import { getText } from "./api.js";
import { STEP_MS } from "./pace.js";
import { T } from "./text.js";

const SIDES = { P1: true, P2: true };
const TYPES = { ROCK: true, PAPER: true, SCISSORS: true };
const RESULTS = { WIN: true, LOSE: true, TIE: true };
const SIZE = 9;

let frames = [];
let index = 0;
let loadedFor = "";
let timer = 0;
let listener = () => {};

// A replay that cannot be read; `message` is the Vietnamese reason.
export class ReplayError extends Error {}

export function onFrame(callback) {
  listener = callback;
}

const isSquare = (at) => Boolean(at) && Number.isInteger(at.row) && Number.isInteger(at.col) &&
  at.row >= 0 && at.row < SIZE && at.col >= 0 && at.col < SIZE;

const sameSquare = (a, b) => a.row === b.row && a.col === b.col;

export function countSides(pieces) {
  const left = { P1: 0, P2: 0 };
  pieces.forEach((piece) => {
    left[piece.ownerId] += 1;
  });
  return left;
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

function checkPieces(pieces, line) {
  const ids = {};
  const squares = {};
  const ok = Array.isArray(pieces) && pieces.length <= 36 && pieces.every((piece) => {
    if (!piece || typeof piece.id !== "string" || !SIDES[piece.ownerId] || !TYPES[piece.type] ||
        !isSquare(piece.position) || ids[piece.id]) {
      return false;
    }
    const square = piece.position.row + "," + piece.position.col;
    if (squares[square]) {
      return false;
    }
    ids[piece.id] = true;
    squares[square] = true;
    return true;
  });
  if (!ok) {
    throw new ReplayError(T.replayBadSetup(line));
  }
}

// An applied event that fits the pieces before it (else a ReplayError).
function checkApplied(pieces, event, line) {
  const action = event.action;
  const bad = () => new ReplayError(T.replayBadMove(line));
  if (!SIDES[event.player] || !Number.isInteger(event.turn) || event.turn < 0 || !action || typeof action !== "object") {
    throw bad();
  }
  if (action.type === "PASS") {
    return;
  }
  if (action.type !== "MOVE" || !isSquare(action.to)) {
    throw bad();
  }
  const piece = pieces.find((one) => one.id === action.pieceId);
  if (!piece || piece.ownerId !== event.player || (action.from && !sameSquare(action.from, piece.position))) {
    throw bad();
  }
  const there = pieces.find((one) => sameSquare(one.position, action.to));
  const fight = event.fight;
  if (!fight) {
    if (there) {
      throw bad();
    }
    return;
  }
  if (typeof fight !== "object" || !RESULTS[fight.result] || fight.attacker !== piece.id || !there ||
      there.id !== fight.defender || there.ownerId === event.player) {
    throw bad();
  }
}

function checkEnd(event, line) {
  const failure = event.failure;
  const ok = (event.winner === null || SIDES[event.winner]) && typeof event.reason === "string" &&
    Number.isInteger(event.turns) && event.turns >= 0 &&
    (failure === null || failure === undefined || (typeof failure === "object" && SIDES[failure.player]));
  if (!ok) {
    throw new ReplayError(T.replayBadEnd(line));
  }
}

/*
 * Reads a replay's text: {setup, frames, end (or null)}, frame 0 the setup. Anything
 * that is not a replay throws a ReplayError saying which line is wrong and how.
 */
export function parseReplay(text) {
  const lines = String(text).split("\n");
  let setup = null;
  let end = null;
  let pieces = null;
  const out = [];
  lines.forEach((raw, at) => {
    const line = at + 1;
    if (!raw.trim()) {
      return;
    }
    let event = null;
    try {
      event = JSON.parse(raw);
    } catch (e) {
      throw new ReplayError(T.replayNotJson(line));
    }
    if (!event || typeof event !== "object" || Array.isArray(event)) {
      throw new ReplayError(T.replayNotJson(line));
    }
    if (!setup) {
      if (event.event !== "setup") {
        throw new ReplayError(T.replayNoSetup);
      }
      checkPieces(event.pieces, line);
      setup = event;
      pieces = event.pieces.map((piece) => Object.assign({}, piece));
      out.push({ pieces: pieces, last: null, turn: 0, toMove: null, left: countSides(pieces) });
    } else if (event.event === "applied" && !end) {
      checkApplied(pieces, event, line);
      pieces = applyEvent(pieces, event);
      out[out.length - 1].toMove = event.player;
      out.push({ pieces: pieces, last: event, turn: event.turn + 1, toMove: null, left: countSides(pieces) });
    } else if (event.event === "end" && !end) {
      checkEnd(event, line);
      end = event;
    }
  });
  if (!setup) {
    throw new ReplayError(lines.some((raw) => raw.trim()) ? T.replayNoSetup : T.replayFileEmpty);
  }
  // A replay cut short (no `end`): after the last move the other side is to act.
  const final = out[out.length - 1];
  if (!end && final.last) {
    final.toMove = final.last.player === "P1" ? "P2" : "P1";
  }
  return { setup: setup, frames: out, end: end };
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
  $("replay-position").textContent = "0/0";
  $("replay-range").max = "0";
  $("replay-range").value = "0";
  $("replay-download-row").hidden = false;
  $("replay-download").href = "#";
}

// Shows frames read elsewhere (a file from the author's disk), at the last one.
export function showFrames(parsed) {
  resetReplay();
  loadedFor = "file";
  frames = parsed.frames;
  index = Math.max(0, frames.length - 1);
  $("replay-download-row").hidden = true;
  $("replay-box").hidden = false;
  show();
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
    frames = parseReplay(text).frames;
    index = Math.max(0, frames.length - 1);
    show();
  }).catch(() => {
    if (loadedFor === matchId) {
      frames = [];
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

/*
 * roomstate.js — the room being shown: the newest snapshot (`newest`), the one on
 * screen (`room`), whether the newest came with the viewer's key (only then are
 * `legalActions` and, during placement, the viewer's own pieces in it), and the sides
 * the viewer answers for (`mine`, which only a keyed answer carries). Snapshots from
 * the WebSocket and from REST meet here: an older `version` is dropped, and an equal
 * one only replaces a feed snapshot with a keyed one.
 *
 * A watcher's screen follows the newest at the pace of pace.js; a person seated in
 * the room always sees the newest at once (their turn and legal actions wait for
 * nothing). A replay read from a file is shown with showStatic().
 *
 * After a change the listeners of onRoomChange run; when the viewer is a person who
 * must act (placement, or their turn) and the position changed, the room is fetched
 * again with the key.
 */

import { ApiError } from "/kernel/js/api.js";
import { getJson } from "./api.js";
import { noteServerTime } from "./clock.js";
import { catchUp, offer, onPaced, resetPace } from "./pace.js";

export const state = {
  code: "",
  room: null, // on screen
  newest: null,
  keyed: false,
  mine: [],
  ownPieces: [], // the viewer's pieces during placement (the feed shows none)
  missing: false,
  local: false // a replay read from a file: no server, no socket
};

const listeners = [];
let fromKey = false; // the room shown came with the key itself (not merged)
let fetching = false;
let fetchAgain = false;

export function onRoomChange(listener) {
  listeners.push(listener);
}

function notify() {
  listeners.forEach((listener) => listener());
}

onPaced((room) => {
  state.room = room;
  notify();
});

export function resetRoom(code) {
  state.code = code;
  state.room = null;
  state.newest = null;
  state.keyed = false;
  state.mine = [];
  state.ownPieces = [];
  state.missing = false;
  state.local = false;
  fromKey = false;
  resetPace();
}

// A room that does not change (a replay read from a file), on screen at once.
export function showStatic(room) {
  state.room = room;
  state.newest = room;
  state.local = true;
  notify();
}

export const isMine = (side) => state.mine.indexOf(side) >= 0;

export function seatOf(side) {
  const room = state.room;
  if (!room || !room.seats) {
    return null;
  }
  return room.seats[side === "P1" ? 0 : 1] || null;
}

// The side whose pieces are at the bottom: P2 only for a viewer who plays P2 alone.
export const viewSide = () => (isMine("P2") && !isMine("P1") ? "P2" : "P1");

// The side the viewer plays in person, or "".
export function personSide() {
  const found = state.mine.filter((side) => {
    const seat = seatOf(side);
    return seat && seat.kind === "person";
  });
  return found.length ? found[0] : "";
}

// The viewer places pieces now (a person, in placement, not yet ready, not queued).
export function placing() {
  const room = state.room;
  const side = personSide();
  const seat = side ? seatOf(side) : null;
  return Boolean(room && seat && room.phase === "PLACEMENT" && !seat.ready && !room.queuePlace);
}

// The viewer is the person to move now.
export function myTurn() {
  const room = state.room;
  const side = personSide();
  return Boolean(room && side && room.phase === "PLAYING" && room.currentPlayer === side);
}

function needsKey() {
  const room = state.newest;
  if (!room || !personSide()) {
    return false;
  }
  return room.phase === "PLACEMENT" || (room.phase === "PLAYING" && room.currentPlayer === personSide());
}

// Takes a snapshot in; true when it was newer (or the keyed view of the same one).
export function accept(room, keyed) {
  if (!room || room.code !== state.code) {
    return false;
  }
  const now = state.newest;
  if (now && (room.version < now.version || (room.version === now.version && (!keyed || fromKey)))) {
    if (keyed && room.phase !== "WAITING" && Array.isArray(room.mine)) {
      // Whose seats they are cannot change once the match began: a keyed answer that a
      // feed snapshot overtook still says it (else an owner watching a ladder match,
      // asked by key once, would never learn it).
      state.mine = room.mine.slice();
    }
    return false;
  }
  noteServerTime(room.serverNowMs);
  // A feed snapshot of the same position (same phase, turn and side to move: only
  // a seat's readiness or the like changed) keeps what the key showed.
  const same = !keyed && state.keyed && now && room.phase === now.phase && room.turn === now.turn &&
    room.currentPlayer === now.currentPlayer;
  state.newest = same ? Object.assign({}, room, { legalActions: now.legalActions || [] }) : room;
  state.keyed = keyed || same;
  fromKey = keyed;
  if (keyed) {
    state.mine = Array.isArray(room.mine) ? room.mine.slice() : [];
    if (room.phase === "PLACEMENT") {
      state.ownPieces = room.board && room.board.pieces ? room.board.pieces : [];
    }
  }
  if (personSide()) {
    catchUp();
    state.room = state.newest;
    notify();
  } else {
    offer(state.newest);
    notify(); // the screen may wait, but how far behind it is has changed
  }
  if (!state.keyed && needsKey()) {
    fetchRoom();
  }
  return true;
}

// GET the room with the key; one request at a time (a later wish runs after it).
export function fetchRoom() {
  if (fetching) {
    fetchAgain = true;
    return Promise.resolve();
  }
  fetching = true;
  const code = state.code;
  return getJson("/rooms/" + encodeURIComponent(code)).then((room) => {
    fetching = false;
    if (code === state.code) {
      accept(room, true);
    }
  }, (err) => {
    fetching = false;
    if (code === state.code && err instanceof ApiError && err.code === "room_not_found") {
      state.missing = true;
      notify();
    }
  }).then(() => {
    if (fetchAgain) {
      fetchAgain = false;
      return fetchRoom();
    }
    return undefined;
  });
}

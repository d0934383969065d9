/*
 * play.js — a person at the board. Placement: tap a piece (on the board or in the
 * tray of pieces not yet placed), then a free square of one's half (PLACE); or
 * "Xếp ngẫu nhiên" (RANDOM_PLACEMENT) and "Sẵn sàng" (READY). Play: tap one of one's
 * pieces, then one of its highlighted squares from `legalActions` (MOVE); "Bỏ lượt"
 * only when PASS is the only legal action.
 *
 * selection() gives the board what to highlight; activate(row, col) is the board's
 * tap or Enter; cancel() its Escape.
 */

import { errorText } from "/kernel/js/api.js";
import { $, button, clear, showError } from "/kernel/js/dom.js";
import { postJson } from "./api.js";
import { BASES, key } from "./board.js";
import { myTurn, personSide, placing, state, accept } from "./roomstate.js";
import { pieceName, T, typeOfId } from "./text.js";

const TYPES = ["ROCK", "PAPER", "SCISSORS"];
const PER_TYPE = 6;

let selected = "";
let sending = false;

export function clearSelection() {
  selected = "";
}

// All 18 ids of a side, in the order the tray shows them.
function allIds(side) {
  const ids = [];
  TYPES.forEach((type) => {
    for (let n = 1; n <= PER_TYPE; n += 1) {
      ids.push(side + "-" + type + "-" + n);
    }
  });
  return ids;
}

function ownPieces() {
  const side = personSide();
  return state.ownPieces.filter((piece) => piece.ownerId === side);
}

export function unplaced() {
  const side = personSide();
  const placed = {};
  ownPieces().forEach((piece) => {
    placed[piece.id] = true;
  });
  return allIds(side).filter((id) => !placed[id]);
}

// Where a side may stand at the start: its half of the diagonal, never a base.
function mayStart(side, row, col) {
  const base = BASES[side === "P1" ? "P1" : "P2"];
  const other = BASES[side === "P1" ? "P2" : "P1"];
  if ((row === base.row && col === base.col) || (row === other.row && col === other.col)) {
    return false;
  }
  return side === "P1" ? row > col : row < col;
}

function legal() {
  return state.keyed && state.room ? (state.room.legalActions || []) : [];
}

function movesOf(pieceId) {
  return legal().filter((action) => action.type === "MOVE" && action.pieceId === pieceId);
}

export const passOnly = () => legal().length === 1 && legal()[0].type === "PASS";

// What the board highlights: {selected, targets, placeable, selectable}.
export function selection() {
  const targets = {};
  const placeable = {};
  const selectable = {};
  if (placing()) {
    const side = personSide();
    const taken = {};
    ownPieces().forEach((piece) => {
      taken[key(piece.position.row, piece.position.col)] = true;
      selectable[key(piece.position.row, piece.position.col)] = true;
    });
    if (selected) {
      for (let row = 0; row < 9; row += 1) {
        for (let col = 0; col < 9; col += 1) {
          if (mayStart(side, row, col) && !taken[key(row, col)]) {
            placeable[key(row, col)] = true;
          }
        }
      }
    }
  } else if (myTurn()) {
    legal().forEach((action) => {
      if (action.type === "MOVE") {
        selectable[key(action.from.row, action.from.col)] = true;
        if (action.pieceId === selected) {
          targets[key(action.to.row, action.to.col)] = action;
        }
      }
    });
  }
  return { selected: selected, targets: targets, placeable: placeable, selectable: selectable };
}

function send(path, body) {
  if (sending) {
    return;
  }
  sending = true;
  showError($("room-error"), "");
  postJson("/rooms/" + encodeURIComponent(state.code) + path, body).then((room) => {
    sending = false;
    selected = "";
    accept(room, true);
  }, (err) => {
    sending = false;
    showError($("room-error"), errorText(err, T.networkError));
  });
}

function pieceAt(pieces, row, col) {
  for (let i = 0; i < pieces.length; i += 1) {
    const at = pieces[i].position;
    if (at.row === row && at.col === col) {
      return pieces[i];
    }
  }
  return null;
}

function select(id, redraw) {
  selected = selected === id ? "" : id;
  redraw();
}

export function activate(row, col, redraw) {
  if (placing()) {
    const own = pieceAt(ownPieces(), row, col);
    if (selected && !own && mayStart(personSide(), row, col)) {
      send("/placement", { type: "PLACE", pieceId: selected, to: { row: row, col: col } });
    } else if (own) {
      select(own.id, redraw);
    } else {
      selected = "";
      redraw();
    }
    return;
  }
  if (!myTurn()) {
    return;
  }
  const chosen = selected ? selection().targets[key(row, col)] : null;
  if (chosen) {
    send("/actions", { type: "MOVE", pieceId: chosen.pieceId, from: chosen.from, to: chosen.to });
    return;
  }
  const own = pieceAt(state.room.board.pieces || [], row, col);
  if (own && own.ownerId === personSide() && movesOf(own.id).length) {
    select(own.id, redraw);
  } else {
    selected = "";
    redraw();
  }
}

export function cancel(redraw) {
  selected = "";
  redraw();
}

export const randomPlacement = () => send("/placement", { type: "RANDOM_PLACEMENT" });
export const ready = () => send("/placement", { type: "READY" });
export const pass = () => send("/actions", { type: "PASS" });

// The tray: one button per piece not placed yet.
export function renderTray(redraw) {
  const tray = $("tray");
  clear(tray);
  const left = unplaced();
  if (selected && left.indexOf(selected) < 0 && !ownPieces().some((piece) => piece.id === selected)) {
    selected = "";
  }
  left.forEach((id) => {
    const type = typeOfId(id);
    const one = button(pieceName(type), "tray-piece side-" + personSide(), "tray-piece");
    one.setAttribute("data-piece", id);
    one.setAttribute("aria-pressed", id === selected ? "true" : "false");
    one.setAttribute("aria-label", pieceName(type) + " " + id.slice(-1) + " (" + id + ")");
    one.addEventListener("click", () => select(id, redraw));
    tray.appendChild(one);
  });
  $("ready-button").disabled = left.length > 0;
  $("random-button").disabled = left.length === 0;
  $("placement-hint").textContent = left.length ? T.placementLeft(left.length) + " " + T.yourPlacement : T.yourPlacement;
}

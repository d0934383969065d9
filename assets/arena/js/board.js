/*
 * board.js — the 9×9 board: an ARIA grid of 81 cells, turned so the viewer's side
 * is at the bottom (a P2 viewer sees it rotated 180°), with the server's row and
 * column numbers along the left and bottom edges.
 *
 * The cells are built once; `renderBoard(model)` redraws them from a model:
 *   orientation  "P1" or "P2": whose side is at the bottom
 *   pieces       the protocol's board.pieces
 *   mine         the sides the viewer plays (their pieces say "của bạn")
 *   selected     the id of the selected piece, or ""
 *   targets      squares ("row,col") the selected piece may go to
 *   placeable    squares where the selected piece may be placed
 *   selectable   squares holding a piece the viewer may pick
 *   last         {from, to, fight} of the last move, or null
 *   animateKey   a new value plays the last move's animation once
 * A tap or Enter/Space on a cell calls onActivate(row, col) with server coordinates;
 * Escape calls onCancel. Arrow keys move the focus cursor in screen directions.
 */

import { $, el } from "/kernel/js/dom.js";
import { pieceName } from "./text.js";

export const SIZE = 9;
export const BASES = { P1: { row: 8, col: 0 }, P2: { row: 0, col: 8 } };

const cells = []; // by display index (display row * 9 + display col)
let orientation = "P1";
let cursor = { r: SIZE - 1, c: 0 }; // display coordinates
let handlers = { activate: () => {}, cancel: () => {} };
let playedKey = "";
let playUntil = 0;
const ANIMATION_MS = 900;

export const key = (row, col) => row + "," + col;

// Server square shown at display (r, c).
function serverOf(r, c) {
  return orientation === "P2" ? { row: SIZE - 1 - r, col: SIZE - 1 - c } : { row: r, col: c };
}

function displayOf(row, col) {
  return orientation === "P2" ? { r: SIZE - 1 - row, c: SIZE - 1 - col } : { r: row, c: col };
}

function baseOwner(row, col) {
  if (row === BASES.P1.row && col === BASES.P1.col) {
    return "P1";
  }
  if (row === BASES.P2.row && col === BASES.P2.col) {
    return "P2";
  }
  return "";
}

function moveCursor(r, c, focus) {
  const before = cells[cursor.r * SIZE + cursor.c];
  if (before) {
    before.tabIndex = -1;
  }
  cursor = { r: Math.max(0, Math.min(SIZE - 1, r)), c: Math.max(0, Math.min(SIZE - 1, c)) };
  const now = cells[cursor.r * SIZE + cursor.c];
  now.tabIndex = 0;
  if (focus) {
    now.focus();
  }
}

function onKey(event) {
  const steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  const step = steps[event.key];
  if (step) {
    event.preventDefault();
    moveCursor(cursor.r + step[0], cursor.c + step[1], true);
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    const at = serverOf(cursor.r, cursor.c);
    handlers.activate(at.row, at.col);
  } else if (event.key === "Escape") {
    event.preventDefault();
    handlers.cancel();
  } else if (event.key === "Home" || event.key === "End") {
    event.preventDefault();
    moveCursor(cursor.r, event.key === "Home" ? 0 : SIZE - 1, true);
  }
}

function onClick(event) {
  const cell = event.target.closest(".cell");
  if (!cell) {
    return;
  }
  const index = cells.indexOf(cell);
  moveCursor(Math.floor(index / SIZE), index % SIZE, false);
  handlers.activate(Number(cell.getAttribute("data-row")), Number(cell.getAttribute("data-col")));
}

export function createBoard(onActivate, onCancel) {
  handlers = { activate: onActivate, cancel: onCancel };
  const board = $("board");
  for (let r = 0; r < SIZE; r += 1) {
    const row = el("div", "board-row");
    row.setAttribute("role", "row");
    for (let c = 0; c < SIZE; c += 1) {
      const cell = el("div", "cell");
      cell.setAttribute("role", "gridcell");
      cell.tabIndex = -1;
      row.appendChild(cell);
      cells.push(cell);
    }
    board.appendChild(row);
  }
  for (let i = 0; i < SIZE; i += 1) {
    $("edge-rows").appendChild(el("span", "edge-label"));
    $("edge-cols").appendChild(el("span", "edge-label"));
  }
  board.addEventListener("keydown", onKey);
  board.addEventListener("click", onClick);
  cursor = { r: SIZE - 1, c: 0 };
  cells[cursor.r * SIZE + cursor.c].tabIndex = 0;
}

function sideWord(side, mine) {
  return mine.indexOf(side) >= 0 ? side + ", của bạn" : side;
}

function label(at, piece, model, base) {
  let text = "Hàng " + at.row + ", cột " + at.col;
  if (base) {
    text += ", căn cứ " + base;
  }
  text += ": " + (piece ? pieceName(piece.type) + " " + sideWord(piece.ownerId, model.mine) : "trống");
  const square = key(at.row, at.col);
  if (piece && piece.id === model.selected) {
    text += ", đang chọn";
  } else if (model.targets[square]) {
    text += piece ? ", đánh được" : ", đi tới được";
  } else if (model.placeable[square]) {
    text += ", đặt được";
  }
  if (model.last && model.last.to && key(model.last.to.row, model.last.to.col) === square) {
    text += ", nước vừa đi";
  }
  return text;
}

function pieceNode(piece, model) {
  const node = el("span", "piece side-" + piece.ownerId + (model.mine.indexOf(piece.ownerId) >= 0 ? " own" : ""));
  node.setAttribute("aria-hidden", "true");
  node.setAttribute("data-piece", piece.id);
  node.setAttribute("data-type", piece.type);
  node.appendChild(el("span", "piece-type", pieceName(piece.type)));
  return node;
}

function classes(at, piece, model, base) {
  const square = key(at.row, at.col);
  const names = ["cell"];
  if (base) {
    names.push("base", "base-" + base);
  }
  if ((at.row + at.col) % 2 === 1) {
    names.push("dark-square");
  }
  if (piece && piece.id === model.selected) {
    names.push("selected");
  }
  if (model.targets[square]) {
    names.push(piece ? "target attack" : "target");
  }
  if (model.placeable[square]) {
    names.push("placeable");
  }
  if (model.selectable[square]) {
    names.push("selectable");
  }
  const last = model.last;
  if (last && last.from && key(last.from.row, last.from.col) === square) {
    names.push("last-from");
  }
  if (last && last.to && key(last.to.row, last.to.col) === square) {
    names.push("last-to");
    if (last.fight) {
      names.push("fight", "fight-" + last.fight.result);
    }
  }
  return names.join(" ");
}

export function renderBoard(model) {
  if (model.orientation !== orientation) {
    orientation = model.orientation;
  }
  const bySquare = {};
  model.pieces.forEach((piece) => {
    bySquare[key(piece.position.row, piece.position.col)] = piece;
  });
  if (model.animateKey && model.animateKey !== playedKey) {
    playedKey = model.animateKey;
    playUntil = Date.now() + ANIMATION_MS;
  }
  // The class stays for the animation's length, so a redraw does not cut it short.
  const playing = Boolean(model.animateKey) && model.animateKey === playedKey && Date.now() < playUntil;
  for (let r = 0; r < SIZE; r += 1) {
    for (let c = 0; c < SIZE; c += 1) {
      const cell = cells[r * SIZE + c];
      const at = serverOf(r, c);
      const piece = bySquare[key(at.row, at.col)] || null;
      const base = baseOwner(at.row, at.col);
      cell.setAttribute("data-row", String(at.row));
      cell.setAttribute("data-col", String(at.col));
      cell.setAttribute("data-testid", "cell-" + at.row + "-" + at.col);
      cell.className = classes(at, piece, model, base);
      cell.setAttribute("aria-label", label(at, piece, model, base));
      cell.setAttribute("aria-selected", piece && piece.id === model.selected ? "true" : "false");
      const wanted = piece ? piece.id + "|" + piece.type + "|" + (model.mine.indexOf(piece.ownerId) >= 0) : "";
      if (cell.getAttribute("data-shown") !== wanted) {
        cell.textContent = "";
        if (piece) {
          cell.appendChild(pieceNode(piece, model));
        }
        cell.setAttribute("data-shown", wanted);
      }
      if (playing && cell.className.indexOf("last-") >= 0) {
        cell.classList.add("play");
      }
    }
  }
  const rows = $("edge-rows").children;
  const cols = $("edge-cols").children;
  for (let i = 0; i < SIZE; i += 1) {
    rows[i].textContent = String(serverOf(i, 0).row);
    cols[i].textContent = String(serverOf(0, i).col);
  }
  $("board").setAttribute("data-orientation", orientation);
}

// Puts the keyboard cursor on a server square (without moving the focus).
export function cursorTo(row, col) {
  const at = displayOf(row, col);
  moveCursor(at.r, at.c, false);
}

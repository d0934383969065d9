/*
 * room.js — the room view: who sits where, the board (from the snapshot on screen,
 * the viewer's own pieces during placement, or the replay's frame once the match is
 * over), the turn, the pieces left, who is thinking, the queue, the countdown, the
 * live board's pace, the controls of a person, the result in words for this viewer
 * with BOT_FAILED's code (and, for the bot's owner, the detail and its stderr),
 * surrender and leave. Everything beside the board is read from the same position as
 * the board (shownPosition), live and in replays.
 *
 * openRoom(code, room) shows a room and watches it live; openReplayFile(name, parsed)
 * shows a replay read from the author's disk; closeRoom() stops watching and wipes
 * everything the room showed.
 */

import { errorText } from "/kernel/js/api.js";
import { $, clear, el, showError } from "/kernel/js/dom.js";
import { getJson, postJson } from "./api.js";
import { createBoard, cursorTo, renderBoard } from "./board.js";
import { showCountdown, stopCountdown } from "./clock.js";
import { figures } from "./config.js";
import { askConfirm, closeConfirm } from "./confirm.js";
import { reconnectNow, stopWatching, watch } from "./live.js";
import { behind, catchUp, setSpeed, SPEEDS, speedNow } from "./pace.js";
import {
  activate, cancel, clearSelection, pass, passOnly, randomPlacement, ready, renderTray, selection
} from "./play.js";
import { frame, frameIndex, loadReplay, onFrame, resetReplay, showFrames, wireReplay } from "./replay.js";
import {
  accept, fetchRoom, isMine, myTurn, onRoomChange, personSide, placing, resetRoom, seatOf, showStatic, state,
  viewSide
} from "./roomstate.js";
import { fillSeatSelect, seatChoice } from "./seats.js";
import { rememberPersonName } from "./storage.js";
import { describeAction, endWords, FAILURES, PHASES, T } from "./text.js";

const LIVE = { WAITING: 1, PLACEMENT: 1, PLAYING: 1 };
// What a failure code means for its owner; some sentences carry the server's figures.
function failureHelp(code) {
  const help = FAILURES[code] || "";
  return typeof help === "function" ? help(figures()) : help;
}

const KIND_WORDS = { person: T.person, upload: T.uploadKind, builtin: T.builtinKind };

let onHome = () => {};
let failureFor = "";

const other = (side) => (side === "P1" ? "P2" : "P1");

// The position on screen and what is said beside it: the replay's frame once the
// match is over, else the snapshot on screen (for a person placing, their own pieces).
function shownPosition() {
  const room = state.room;
  const replayed = room.phase === "FINISHED" ? frame() : null;
  if (replayed) {
    return {
      pieces: replayed.pieces,
      last: replayed.last,
      turn: replayed.turn,
      left: replayed.left,
      toMove: replayed.toMove,
      thinking: null,
      animateKey: replayed.last ? "replay:" + frameIndex() : ""
    };
  }
  const last = room.lastAction || null;
  const ownOnly = room.phase === "PLACEMENT" && personSide();
  return {
    pieces: ownOnly ? state.ownPieces : (room.board && room.board.pieces) || [],
    last: last,
    turn: room.turn,
    left: room.piecesLeft,
    toMove: room.currentPlayer,
    thinking: room.thinking,
    animateKey: last ? room.code + ":" + last.turn : ""
  };
}

function seatBar(node, side, shown) {
  const room = state.room;
  const seat = seatOf(side);
  clear(node);
  node.className = "seat-bar seat-" + side + (shown.toMove === side ? " to-move" : "") +
    (shown.thinking === side ? " is-thinking" : "");
  node.setAttribute("data-side", side);
  const marker = el("span", "mini-piece side-" + side, side === "P1" ? "●" : "■");
  marker.setAttribute("aria-hidden", "true");
  node.appendChild(marker);
  const who = el("span", "seat-name");
  who.appendChild(el("strong", "", side));
  who.appendChild(document.createTextNode(" " + (seat ? seat.name : T.emptySeat)));
  node.appendChild(who);
  const tags = [];
  if (seat) {
    tags.push(KIND_WORDS[seat.kind] || seat.kind);
  }
  if (isMine(side)) {
    tags.push(T.you);
  }
  if (room && room.phase === "PLACEMENT" && seat && seat.ready) {
    tags.push(T.ready);
  }
  node.appendChild(el("span", "seat-tags muted small", tags.join(" · ")));
  if (shown.left && room.phase !== "WAITING") {
    node.appendChild(el("span", "seat-count", String(shown.left[side])));
  }
}

function boardModel(shown) {
  const chosen = selection();
  const last = shown.last;
  return {
    orientation: viewSide(),
    pieces: shown.pieces,
    mine: state.mine,
    selected: chosen.selected,
    targets: chosen.targets,
    placeable: chosen.placeable,
    selectable: chosen.selectable,
    last: last && last.action && last.action.type === "MOVE"
      ? { from: last.action.from, to: last.action.to, fight: last.fight } : null,
    animateKey: shown.animateKey
  };
}

function renderFailureDetails(details) {
  const box = $("failure-details");
  clear(box);
  (details.bots || []).forEach((bot) => {
    if (bot.detail) {
      box.appendChild(el("p", "small", T.detail + " (" + bot.player + "): " + bot.detail));
    }
    const wrap = el("details", "stderr");
    wrap.open = Boolean(bot.failureCode);
    wrap.appendChild(el("summary", "", T.stderr(bot.player, figures())));
    const pre = el("pre", "messages", bot.stderr || T.noStderr);
    pre.tabIndex = 0;
    pre.setAttribute("data-testid", "bot-stderr");
    wrap.appendChild(pre);
    box.appendChild(wrap);
  });
  box.hidden = !box.firstChild;
}

// The owner of an uploaded bot seated here sees why it failed and its stderr.
function loadFailureDetails(room) {
  const owned = state.mine.some((side) => {
    const seat = seatOf(side);
    return seat && seat.kind === "upload";
  });
  if (!owned || !room.matchId || failureFor === room.matchId) {
    return;
  }
  const matchId = room.matchId;
  failureFor = matchId;
  getJson("/matches/" + encodeURIComponent(matchId) + "/failure").then((details) => {
    if (failureFor === matchId) {
      renderFailureDetails(details);
    }
  }, () => {
    if (failureFor === matchId) {
      failureFor = "";
    }
  });
}

function renderResult(room) {
  const done = room.phase === "FINISHED" || room.phase === "ABANDONED";
  $("result-box").hidden = !done || !room.result;
  if (!done || !room.result) {
    return;
  }
  const result = room.result;
  $("result-box").setAttribute("data-winner", result.winner || "");
  $("result-box").setAttribute("data-reason", result.reason);
  const names = {};
  ["P1", "P2"].forEach((side) => {
    const seat = seatOf(side);
    names[side] = seat ? seat.name : side;
  });
  const words = endWords(result, state.mine, names, room.turnLimit);
  $("result-box").setAttribute("data-role", words.role);
  $("result-title").textContent = words.title;
  $("result-reason").textContent = words.sentence;
  const failure = result.failure;
  $("failure-box").hidden = !failure;
  if (failure) {
    $("failure-code").textContent = failure.code;
    $("failure-help").textContent = failure.player + ": " + failureHelp(failure.code) +
      (failure.detail ? " " + T.detail + ": " + failure.detail : "");
  }
  if (room.phase === "FINISHED" && room.matchId && room.replayReady && !state.local) {
    loadReplay(room.matchId);
  }
  loadFailureDetails(room);
}

function renderStatus(room, shown) {
  $("room-phase").textContent = PHASES[room.phase] || room.phase;
  $("room-phase").setAttribute("data-phase", room.phase);
  const started = room.phase === "PLAYING" || room.phase === "FINISHED";
  $("turn-counter").textContent = started ? T.turn(shown.turn, room.turnLimit) : "";
  $("pieces-left").textContent = room.phase === "WAITING" || !shown.left ? "" : T.piecesLeft(shown.left.P1, shown.left.P2);
  $("queue-place").hidden = !room.queuePlace;
  $("queue-place").textContent = room.queuePlace ? T.queue(room.queuePlace) : "";
  let thinking = "";
  if (room.phase === "PLAYING" && room.thinking) {
    const seat = seatOf(room.thinking);
    thinking = T.thinkingBot(room.thinking + " " + (seat ? seat.name : ""));
  } else if (room.phase === "PLAYING" && room.currentPlayer && !myTurn()) {
    const seat = seatOf(room.currentPlayer);
    thinking = T.thinkingPerson(room.currentPlayer + " " + (seat ? seat.name : ""));
  } else if (room.phase === "PLACEMENT" && !room.queuePlace && room.seats.every((seat) => seat && seat.ready)) {
    // Everyone is placed and ready: the bots' programs are starting (spec B4).
    thinking = T.botsStarting;
  } else if (room.phase === "PLACEMENT" && personSide() && !placing() && !room.queuePlace) {
    thinking = T.waitOther;
  }
  $("thinking").textContent = thinking;
  $("last-move").textContent = describeAction(shown.last);
  const current = room.currentPlayer ? seatOf(room.currentPlayer) : null;
  if (room.phase === "PLAYING" && room.deadlineMs && current && current.kind === "person") {
    showCountdown(room.deadlineMs, T.countdownPlay);
  } else if (placing() && room.placementDeadlineMs) {
    showCountdown(room.placementDeadlineMs, T.countdownPlacement);
  } else {
    stopCountdown();
  }
}

// How far the screen is behind the match, the speed, and "trực tiếp" (watchers only).
function renderPace() {
  const newest = state.newest;
  const late = behind();
  const shown = Boolean(newest) && !state.local && !personSide() && (newest.phase === "PLAYING" || late > 0);
  $("pace-box").hidden = !shown;
  $("pace-state").textContent = late > 0 ? T.paceBehind(late) : T.paceLive;
  $("pace-box").setAttribute("data-behind", String(late));
  $("pace-live").disabled = late === 0;
  SPEEDS.forEach((speed) => {
    $("pace-x" + speed).setAttribute("aria-pressed", speedNow() === speed ? "true" : "false");
  });
}

// The room as it is now (the newest snapshot): who may join, act, surrender.
function renderPanels(room) {
  const seated = state.mine.length > 0;
  const open = !room.seats[0] || !room.seats[1];
  $("join-seat").hidden = !(room.phase === "WAITING" && !seated && open);
  $("share-box").hidden = !(room.phase === "WAITING" && open);
  if (!$("share-box").hidden) {
    $("share-code").textContent = room.code;
    $("share-url").value = window.location.origin + "/arena/?room=" + room.code;
  }
  $("placement-box").hidden = !placing();
  if (placing()) {
    renderTray(render);
  }
  const turn = myTurn() && state.keyed;
  $("play-box").hidden = !turn;
  $("pass-button").hidden = !(turn && passOnly());
  $("play-hint").textContent = turn ? (passOnly() ? T.passOnly : T.yourTurn) : "";
  // Nobody surrenders in a ladder match (the server refuses it): the ladder measures bots.
  const live = Boolean(LIVE[room.phase]) && room.phase !== "WAITING" && !room.ladder;
  const sides = state.mine.slice().sort();
  $("surrender-button").hidden = !(live && sides.length);
  $("surrender-other").hidden = !(live && sides.length > 1);
  $("surrender-button").textContent = sides.length > 1 ? T.surrenderFor(sides[0]) : T.surrender;
  $("surrender-other").textContent = sides.length > 1 ? T.surrenderFor(sides[1]) : "";
}

function render() {
  const room = state.room;
  if (state.missing) {
    $("room-notice").hidden = false;
    $("room-notice").textContent = T.roomNotFound;
  }
  if (!room) {
    return;
  }
  $("view-room").setAttribute("data-phase", room.phase);
  $("view-room").setAttribute("data-view", viewSide());
  $("view-room").setAttribute("data-mine", state.mine.join(" "));
  $("view-room").setAttribute("data-source", state.local ? "file" : "server");
  const shown = shownPosition();
  seatBar($("seat-bottom"), viewSide(), shown);
  seatBar($("seat-top"), other(viewSide()), shown);
  renderStatus(room, shown);
  renderPace();
  renderPanels(state.newest || room);
  renderResult(room);
  renderBoard(boardModel(shown));
}

function surrender(side, anchor) {
  askConfirm(anchor, T.surrenderConfirm, () => {
    postJson("/rooms/" + encodeURIComponent(state.code) + "/surrender", { side: side }).then((room) => {
      accept(room, true);
    }, (err) => showError($("room-error"), errorText(err, T.networkError)));
  });
}

function leave() {
  const room = state.newest;
  const seated = state.mine.length > 0 && room && LIVE[room.phase];
  if (!seated) {
    onHome();
    return;
  }
  const go = () => {
    postJson("/rooms/" + encodeURIComponent(state.code) + "/leave").then(() => onHome(),
      (err) => showError($("room-error"), errorText(err, T.networkError)));
  };
  if (room.phase === "WAITING") {
    go();
  } else {
    askConfirm($("leave-button"), T.leaveConfirm, go);
  }
}

function joinHere() {
  const value = $("room-seat-select").value;
  const name = $("room-person-name").value.trim();
  if (value === "person") {
    rememberPersonName(name);
  }
  postJson("/rooms/" + encodeURIComponent(state.code) + "/join", { seat: seatChoice(value, name) }).then((answer) => {
    accept(answer.room, true);
  }, (err) => showError($("room-error"), errorText(err, T.networkError)));
}

function copyLink() {
  const input = $("share-url");
  input.select();
  const done = () => {
    $("room-notice").hidden = false;
    $("room-notice").textContent = T.copied;
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(done, () => undefined);
  } else {
    try {
      document.execCommand("copy");
      done();
    } catch (e) {
      /* the text stays selected for a manual copy */
    }
  }
}

export function initRoom(goHome) {
  onHome = goHome;
  createBoard((row, col) => activate(row, col, render), () => cancel(render));
  onRoomChange(render);
  onFrame(render);
  wireReplay();
  $("random-button").addEventListener("click", randomPlacement);
  $("ready-button").addEventListener("click", ready);
  $("pass-button").addEventListener("click", pass);
  $("surrender-button").addEventListener("click", () => {
    surrender(state.mine.slice().sort()[0], $("room-actions"));
  });
  $("surrender-other").addEventListener("click", () => {
    surrender(state.mine.slice().sort()[1], $("room-actions"));
  });
  $("leave-button").addEventListener("click", leave);
  $("back-button").addEventListener("click", () => onHome());
  $("room-join-button").addEventListener("click", joinHere);
  $("copy-button").addEventListener("click", copyLink);
  $("room-seat-select").addEventListener("change", () => {
    $("room-name-row").hidden = $("room-seat-select").value !== "person";
  });
  SPEEDS.forEach((speed) => {
    $("pace-x" + speed).addEventListener("click", () => {
      setSpeed(speed);
      render();
    });
  });
  $("pace-live").addEventListener("click", () => {
    catchUp();
    render();
  });
}

export function openRoom(code, room) {
  closeRoom();
  resetRoom(code);
  $("room-title-text").textContent = T.roomTitle;
  $("room-code").textContent = code;
  fillSeatSelect($("room-seat-select"), true, false, "person");
  if (room) {
    accept(room, true);
  }
  cursorTo(viewSide() === "P2" ? 0 : 8, viewSide() === "P2" ? 8 : 0);
  fetchRoom();
  watch(code, {
    onRoom: (snapshot) => accept(snapshot, false),
    onEnd: () => fetchRoom(),
    onMissing: () => {
      state.missing = true;
      render();
    },
    onState: (connected) => {
      $("room-notice").hidden = connected;
      if (!connected) {
        $("room-notice").textContent = T.reconnecting;
      }
    }
  });
}

// A replay read from a file (replay.js's parseReplay), on the same board and scrubber.
// `note` says where it comes from (by default: this file, read in the browser).
export function openReplayFile(name, parsed, note) {
  closeRoom();
  resetRoom("");
  const setup = parsed.setup;
  const players = Array.isArray(setup.players) ? setup.players : [];
  const seat = (side) => {
    const player = players.find((one) => one && one.id === side) || {};
    return {
      side: side,
      kind: KIND_WORDS[player.kind] ? player.kind : "builtin",
      name: typeof player.name === "string" && player.name ? player.name : side,
      ready: true
    };
  };
  const final = parsed.frames[parsed.frames.length - 1];
  const end = parsed.end;
  const failure = end && end.failure ? end.failure : null;
  $("room-title-text").textContent = note ? T.matchReplayTitle : T.localReplayTitle;
  $("room-code").textContent = "";
  $("replay-file-note").textContent = note || T.localReplayFile(name);
  $("replay-file-note").hidden = false;
  $("leave-button").hidden = true;
  showFrames(parsed);
  showStatic({
    code: "",
    phase: "FINISHED",
    version: 0,
    seats: [seat("P1"), seat("P2")],
    mine: [],
    turn: final.turn,
    turnLimit: Number.isInteger(setup.turnLimit) ? setup.turnLimit : 200,
    currentPlayer: null,
    thinking: null,
    board: { pieces: final.pieces },
    legalActions: [],
    lastAction: final.last,
    piecesLeft: final.left,
    queuePlace: 0,
    result: end ? {
      winner: end.winner,
      reason: end.reason,
      turns: end.turns,
      failure: failure ? { player: failure.player, code: String(failure.code || ""), detail: failure.detail || "" } : null
    } : null,
    matchId: typeof setup.matchId === "string" ? setup.matchId : "",
    replayReady: false
  });
}

// Everything a room showed goes, so the next room starts blank.
function clearRoomView() {
  const view = $("view-room");
  ["data-phase", "data-view", "data-mine", "data-source"].forEach((name) => view.removeAttribute(name));
  ["room-code", "room-phase", "turn-counter", "pieces-left", "thinking", "queue-place", "last-move",
    "result-title", "result-reason", "failure-code", "failure-help", "play-hint", "replay-file-note"]
    .forEach((id) => {
      $(id).textContent = "";
    });
  $("room-phase").removeAttribute("data-phase");
  ["seat-top", "seat-bottom", "failure-details", "tray"].forEach((id) => clear($(id)));
  $("seat-top").className = "seat-bar";
  $("seat-bottom").className = "seat-bar";
  ["room-notice", "queue-place", "pace-box", "join-seat", "share-box", "placement-box", "play-box",
    "pass-button", "result-box", "failure-box", "failure-details", "surrender-button", "surrender-other",
    "replay-file-note"].forEach((id) => {
    $(id).hidden = true;
  });
  ["data-winner", "data-reason", "data-role"].forEach((name) => $("result-box").removeAttribute(name));
  $("leave-button").hidden = false;
  $("share-url").value = "";
  showError($("room-error"), "");
  renderBoard({
    orientation: "P1", pieces: [], mine: [], selected: "", targets: {}, placeable: {}, selectable: {},
    last: null, animateKey: ""
  });
}

export function closeRoom() {
  stopWatching();
  stopCountdown();
  closeConfirm();
  clearSelection();
  resetReplay();
  resetRoom("");
  failureFor = "";
  clearRoomView();
}

// Back to the tab: the socket reconnects now and a person's view is fetched again.
export function roomVisible() {
  if (state.code) {
    reconnectNow();
    fetchRoom();
  }
}

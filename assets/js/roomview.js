/*
 * roomview.js — what a room's view (spec B10) means for this page: whose turn it is
 * and what the status line says, the end of a game as this member sees it, when
 * leaving needs a second tap, and when the page should call its player back.
 *
 * Pure: no DOM, no timers. room.js renders what these functions answer.
 */

import { noWordAfter, OUT_REASONS, ROOM_TEXT, roomWinner, turnOf } from "./text.js";
import { lastSyllable } from "./values.js";

function playersOf(view) {
  return view && Array.isArray(view.players) ? view.players : [];
}

export function playerAt(view, seat) {
  const players = playersOf(view);
  for (let i = 0; i < players.length; i++) {
    if (players[i].seat === seat) {
      return players[i];
    }
  }
  return null;
}

// Who plays now and what this member may do.
export function turnInfo(view) {
  const playing = !!view && view.status === "playing";
  const me = view && view.you ? playerAt(view, view.you) : null;
  const inGame = playing && !!me && me.alive;
  const turnPlayer = playing ? playerAt(view, view.turn) : null;
  return {
    playing: playing,
    me: me,
    inGame: inGame,
    myTurn: inGame && view.turn === view.you,
    turnPlayer: turnPlayer,
    botTurn: !!turnPlayer && !!turnPlayer.bot
  };
}

function outReason(code) {
  return OUT_REASONS[code] || code || "";
}

// The status line: whose turn it is (the HUD shows this member's points and the
// clock, not the turn), and where this member stands.
export function statusLine(view) {
  const info = turnInfo(view);
  if (info.playing) {
    const name = info.turnPlayer ? info.turnPlayer.name : "";
    const turn = info.botTurn ? ROOM_TEXT.thinking(name) : turnOf(name);
    if (!info.me) {
      return turn + " " + ROOM_TEXT.watching;
    }
    if (!info.me.alive) {
      return ROOM_TEXT.out(outReason(info.me.out_reason)) + " " + turn;
    }
    return info.myTurn ? ROOM_TEXT.yourTurn : turn;
  }
  if (view.you === null || view.you === undefined) {
    return ROOM_TEXT.waitingWatcher;
  }
  return view.host === view.you ? ROOM_TEXT.hostLobby : ROOM_TEXT.waiting;
}

// A game's mark, to tell the game a result is about from another one: its opening
// word (a room opens each game with a new random word).
export function gameKey(view) {
  const chain = view && Array.isArray(view.chain) ? view.chain : [];
  return chain.length ? String(chain[0].word) : "";
}

// The turn's mark: a new one each time a word is played or the turn passes.
export function turnKey(view) {
  const chain = view && Array.isArray(view.chain) ? view.chain : [];
  return view && view.status === "playing" ? chain.length + ":" + view.turn : "";
}

// What the page does for the player's attention as `view` comes: the document's title
// while it is their turn, and one vibration when their turn has just begun (not again
// for a refused word, which keeps the turn). `lastKey` is the turn key of the last call.
export function turnCue(view, lastKey) {
  const mine = turnInfo(view).myTurn;
  const key = turnKey(view);
  return {
    title: mine ? ROOM_TEXT.yourTurnTitle : ROOM_TEXT.pageTitle,
    vibrate: mine && key !== lastKey,
    key: key
  };
}

// Leaving in a game puts the player out: that asks a second tap.
export function leaveNeedsConfirm(view) {
  return turnInfo(view).inGame;
}

// Why the game ended, as far as the view tells.
function endReason(view, result, standings) {
  const survivors = standings.filter((s) => !s.out_reason);
  if (survivors.length > 1) {
    return ROOM_TEXT.capReason;
  }
  const chain = Array.isArray(view.chain) ? view.chain : [];
  const last = chain.length ? chain[chain.length - 1] : null;
  if (closedByWord(result, standings, last)) {
    return noWordAfter(view.current || lastSyllable(last.word));
  }
  return standings.length > 1 ? ROOM_TEXT.othersOut : "";
}

// A closing word ended the game: its player won, and everyone else still in went out
// together with no reply.
function closedByWord(result, standings, last) {
  return !!last && last.seat === result.winner && toCount(result.words) > 0 &&
    standings.some((s) => s.out_reason === "no_legal_move");
}

function toCount(value) {
  const n = Number(value);
  return isFinite(n) ? n : 0;
}

// The end of a game as this member sees it: null without a result. `seen` is what the
// page saw while the game ran ({key: gameKey, seat: this member's seat in it, 0 when
// watching}), or null: a member who did not see the game gets it as the previous one's.
export function resultModel(view, seen) {
  const result = view && view.result;
  if (!result) {
    return null;
  }
  const standings = Array.isArray(result.standings) ? result.standings : [];
  const key = gameKey(view);
  const saw = !!seen && !!key && seen.key === key;
  const mySeat = saw ? seen.seat : 0;
  let myIndex = -1;
  standings.forEach((s, i) => {
    if (mySeat && s.seat === mySeat) {
      myIndex = i;
    }
  });
  let title = ROOM_TEXT.previous;
  let kind = "previous";
  if (myIndex === 0) {
    title = ROOM_TEXT.youWon;
    kind = "won";
  } else if (myIndex > 0) {
    title = ROOM_TEXT.youPlaced(myIndex + 1);
    kind = "placed";
  } else if (saw) {
    title = ROOM_TEXT.justEnded;
    kind = "ended";
  }
  const chain = Array.isArray(view.chain) ? view.chain : [];
  const closed = closedByWord(result, standings, chain.length ? chain[chain.length - 1] : null);
  const outTogether = closed ? standings.filter((s) => s.out_reason === "no_legal_move").length : 0;
  const rows = standings.map((s, i) => {
    const notes = [];
    if (s.bonus) {
      notes.push(ROOM_TEXT.bonus(s.bonus));
    }
    if (s.out_reason) {
      notes.push(outReason(s.out_reason));
    }
    if (outTogether > 1 && s.out_reason === "no_legal_move") {
      notes.push(ROOM_TEXT.together);
    }
    return {
      rank: i + 1,
      seat: s.seat,
      name: s.name || ROOM_TEXT.noName,
      score: toCount(s.score),
      note: notes.join(", "),
      mine: i === myIndex
    };
  });
  // Ranks go by who stayed in longest, not by points: say so when it shows.
  let unordered = false;
  for (let i = 1; i < rows.length; i++) {
    for (let j = 0; j < i; j++) {
      if (rows[i].score > rows[j].score) {
        unordered = true;
      }
    }
  }
  const winner = standings.length ? standings[0] : null;
  const words = toCount(result.words);
  return {
    title: title,
    kind: kind,
    winner: winner && words > 0 ? roomWinner(winner.name || ROOM_TEXT.noName, words) : ROOM_TEXT.noWords,
    reason: words > 0 ? endReason(view, result, standings) : "",
    rows: rows,
    orderNote: unordered ? ROOM_TEXT.orderNote : ""
  };
}

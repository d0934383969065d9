// Room mode's pure parts (assets/js/roomview.js, feed.js): what a room's view means for
// the page, and how the live feed reconnects, ends, and hands its views over.
import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { installWindow } from "./fakes.mjs";

installWindow();
const roomview = await import("../../assets/js/roomview.js");
const { openFeed } = await import("../../assets/js/feed.js");
const { ROOM_TEXT } = await import("../../assets/js/text.js");

const player = (seat, name, extra) => Object.assign({ seat, name, bot: false, alive: true, out_reason: "", score: 0 }, extra);
const link = (word, seat) => ({ word, by: seat ? "player" : "bot", seat, name: "", points: seat ? 20 : 0, meanings: [] });

function playing(extra) {
  return Object.assign({
    status: "playing", you: 1, host: 1, turn: 1, current: "đầu", watchers: 0,
    players: [player(1, "An"), player(2, "Bình"), player(3, "Bot (vừa)", { bot: true })],
    chain: [link("mở đầu", 0)], deadline_ms: 30000, server_now_ms: 1000, turn_limit_ms: 30000
  }, extra);
}

describe("roomview: whose turn, said once", () => {
  test("the status line says whose turn it is; the HUD carries the points", () => {
    assert.equal(roomview.statusLine(playing()), ROOM_TEXT.yourTurn);
    assert.equal(roomview.statusLine(playing({ turn: 2 })), "Lượt của Bình.");
  });

  test("the bot seat's turn shows it thinking", () => {
    const view = playing({ turn: 3 });
    assert.equal(roomview.turnInfo(view).botTurn, true);
    assert.equal(roomview.statusLine(view), "Bot (vừa) đang nghĩ…");
  });

  test("a watcher and a player who is out see the turn and where they stand", () => {
    assert.equal(roomview.statusLine(playing({ you: null, turn: 2 })), "Lượt của Bình. " + ROOM_TEXT.watching);
    const out = playing({ turn: 2, players: [player(1, "An", { alive: false, out_reason: "timeout" }), player(2, "Bình")] });
    assert.equal(roomview.statusLine(out), "Bạn đã bị loại (hết giờ). Lượt của Bình.");
  });
});

describe("roomview: leaving asks first only when it puts the player out", () => {
  test("in a game: a second tap; in the lobby, watching or out: one", () => {
    assert.equal(roomview.leaveNeedsConfirm(playing()), true);
    assert.equal(roomview.leaveNeedsConfirm(playing({ turn: 2 })), true);
    assert.equal(roomview.leaveNeedsConfirm(playing({ status: "lobby" })), false);
    assert.equal(roomview.leaveNeedsConfirm(playing({ you: null })), false);
    const out = playing({ players: [player(1, "An", { alive: false, out_reason: "gave_up" }), player(2, "Bình")] });
    assert.equal(roomview.leaveNeedsConfirm(out), false);
  });
});

describe("roomview: calling the player back", () => {
  test("their turn changes the title and buzzes once; a refused word keeps the turn quietly", () => {
    const theirs = roomview.turnCue(playing({ turn: 2 }), "");
    assert.equal(theirs.title, ROOM_TEXT.pageTitle);
    assert.equal(theirs.vibrate, false);
    const mine = roomview.turnCue(playing({ chain: [link("mở đầu", 0), link("đầu tiên", 2)] }), theirs.key);
    assert.equal(mine.title, "(!) Đến lượt bạn · Nối từ");
    assert.equal(mine.vibrate, true);
    const again = roomview.turnCue(playing({ chain: [link("mở đầu", 0), link("đầu tiên", 2)] }), mine.key);
    assert.equal(again.vibrate, false);
    assert.equal(again.title, mine.title);
    assert.equal(roomview.turnCue(playing({ status: "lobby" }), again.key).title, ROOM_TEXT.pageTitle);
  });
});

// The game of the issue: An closes with "viên chức"; Bình and Chi go out together, Bình
// (seat 2) ranked above Chi (seat 3) with fewer points.
function ended(extra) {
  return Object.assign(playing(), {
    status: "lobby", you: 3, turn: 0, current: "chức",
    chain: [link("mở đầu", 0), link("đầu tiên", 1), link("tiên sinh", 2), link("sinh viên", 3), link("viên chức", 1)],
    result: {
      winner: 1, words: 4, score_reported: "ok",
      standings: [
        { seat: 1, name: "An", score: 122, bonus: 50, out_reason: "" },
        { seat: 2, name: "Bình", score: 38, bonus: 0, out_reason: "no_legal_move" },
        { seat: 3, name: "Chi", score: 40, bonus: 0, out_reason: "no_legal_move" }
      ]
    }
  }, extra);
}

describe("roomview: the end of a game", () => {
  test("a player who saw it gets their place; the winner their win", () => {
    const view = ended();
    const key = roomview.gameKey(view);
    assert.equal(roomview.resultModel(view, { key, seat: 3 }).title, "Bạn về thứ 3");
    assert.equal(roomview.resultModel(view, { key, seat: 3 }).kind, "placed");
    assert.equal(roomview.resultModel(view, { key, seat: 1 }).title, ROOM_TEXT.youWon);
    assert.equal(roomview.resultModel(view, { key, seat: 0 }).title, ROOM_TEXT.justEnded);
  });

  test("a newcomer sees it as the previous game's, whatever seat they take now", () => {
    const model = roomview.resultModel(ended(), null);
    assert.equal(model.title, "Kết quả ván trước");
    assert.equal(model.kind, "previous");
    assert.equal(roomview.resultModel(ended(), { key: "another opening", seat: 3 }).kind, "previous");
  });

  test("the winner, the reason, ranks, and why 2nd has fewer points than 3rd", () => {
    const model = roomview.resultModel(ended(), null);
    assert.equal(model.winner, "An thắng sau 4 từ!");
    assert.equal(model.reason, "Không còn từ nào bắt đầu bằng “chức” để nối.");
    assert.deepEqual(model.rows.map((r) => [r.rank, r.name, r.score]), [[1, "An", 122], [2, "Bình", 38], [3, "Chi", 40]]);
    assert.equal(model.rows[0].note, "thưởng 50");
    assert.equal(model.rows[1].note, "hết từ để nối, cùng bị loại một lúc");
    assert.equal(model.orderNote, ROOM_TEXT.orderNote);
  });

  test("standings in points order need no note; the last one in says the others are out", () => {
    const view = ended({
      chain: [link("mở đầu", 0), link("đầu tiên", 1)],
      result: {
        winner: 1, words: 1, score_reported: "ok",
        standings: [
          { seat: 1, name: "An", score: 80, bonus: 50, out_reason: "" },
          { seat: 2, name: "Bình", score: 0, bonus: 0, out_reason: "timeout" }
        ]
      }
    });
    const model = roomview.resultModel(view, null);
    assert.equal(model.orderNote, "");
    assert.equal(model.reason, ROOM_TEXT.othersOut);
    assert.equal(model.rows[1].note, "hết giờ");
  });

  test("300 words with several still in: the points decide", () => {
    const view = ended({
      result: {
        winner: 2, words: 299, score_reported: "ok",
        standings: [
          { seat: 2, name: "Bình", score: 900, bonus: 50, out_reason: "" },
          { seat: 1, name: "An", score: 800, bonus: 0, out_reason: "" }
        ]
      }
    });
    assert.equal(roomview.resultModel(view, null).reason, ROOM_TEXT.capReason);
  });

  test("a game with no word after the opening names no winner", () => {
    const view = ended({ result: { winner: 1, words: 0, score_reported: "skipped", standings: [{ seat: 1, name: "An", score: 0, bonus: 0, out_reason: "" }] } });
    const model = roomview.resultModel(view, null);
    assert.equal(model.winner, ROOM_TEXT.noWords);
    assert.equal(model.reason, "");
  });

  test("no result, no model", () => {
    assert.equal(roomview.resultModel(playing(), null), null);
  });
});

// A WebSocket the test drives.
class FakeSocket {
  static made = [];
  constructor(url) {
    this.url = url;
    this.closed = false;
    FakeSocket.made.push(this);
  }
  close() {
    this.closed = true;
  }
  open() {
    this.onopen && this.onopen();
  }
  say(data) {
    this.onmessage && this.onmessage({ data: JSON.stringify(data) });
  }
  drop() {
    this.onclose && this.onclose();
  }
}

function feedWith(extra) {
  FakeSocket.made = [];
  const win = installWindow(Object.assign({ WebSocket: FakeSocket }, extra));
  const seen = { views: [], states: [], ends: [] };
  const feed = openFeed((socket) => (socket ? "ws://x/feed" : "http://x/feed"), {
    onView: (view) => seen.views.push(view.status),
    onState: (up) => seen.states.push(up),
    onEnd: (kind, message) => seen.ends.push([kind, message])
  });
  return { win, seen, feed, socket: () => FakeSocket.made[FakeSocket.made.length - 1] };
}

describe("feed", () => {
  let f;
  beforeEach(() => {
    f = feedWith();
    f.socket().open();
  });

  test("views go to the page", () => {
    f.socket().say({ status: "lobby" });
    f.socket().say({ status: "playing" });
    assert.deepEqual(f.seen.views, ["lobby", "playing"]);
  });

  test("a drop says so at once, reconnects after a pause, and is over with the next view", () => {
    f.socket().drop();
    assert.deepEqual(f.seen.states, [false]);
    assert.equal(f.win.timers.pending.size, 1);
    f.win.timers.runDue();
    assert.equal(FakeSocket.made.length, 2);
    f.socket().open();
    f.socket().say({ status: "playing" });
    assert.deepEqual(f.seen.states, [false, true]);
    assert.equal(f.feed.isConnected(), true);
  });

  test("replaced: the page is told, the socket closed, and nothing reconnects", () => {
    const first = f.socket();
    first.say({ replaced: true });
    first.drop();
    assert.deepEqual(f.seen.ends, [["replaced", ""]]);
    assert.equal(first.closed, true);
    assert.equal(f.win.timers.pending.size, 0);
    assert.equal(FakeSocket.made.length, 1);
    assert.deepEqual(f.seen.states, []);
  });

  test("a refused credential or a closed room ends the feed with the server's words", () => {
    f.socket().say({ error: "no_member", message: "Bạn không còn ở trong phòng này." });
    f.socket().drop();
    assert.deepEqual(f.seen.ends, [["no_member", "Bạn không còn ở trong phòng này."]]);
    assert.equal(f.win.timers.pending.size, 0);
  });

  test("busy is a drop, not an end", () => {
    f.socket().say({ error: "busy", message: "Máy chủ bận." });
    f.socket().drop();
    assert.deepEqual(f.seen.ends, []);
    assert.equal(f.win.timers.pending.size, 1);
  });

  test("pauses grow while the server stays away", () => {
    const pauses = [];
    for (let i = 0; i < 5; i++) {
      f.socket().drop();
      pauses.push(Array.from(f.win.timers.pending.values())[0].ms);
      f.win.timers.runDue();
      f.socket().open();
    }
    assert.deepEqual(pauses, [1000, 2000, 4000, 5000, 5000]);
  });

  test("a socket that never opens falls back to an event stream", () => {
    class FakeEvents {
      constructor(url) {
        this.url = url;
        FakeEvents.url = url;
      }
      close() {}
    }
    const g = feedWith({ EventSource: FakeEvents });
    g.socket().drop(); // never opened
    g.win.timers.runDue();
    assert.equal(FakeEvents.url, "http://x/feed");
    assert.equal(FakeSocket.made.length, 1);
  });
});

describe("feed: the browser's network", () => {
  test("offline drops the link and waits for online, which reconnects at once", () => {
    const navigator = { onLine: true };
    const f = feedWith({ navigator });
    f.socket().open();
    navigator.onLine = false;
    f.feed.offline();
    assert.deepEqual(f.seen.states, [false]);
    assert.equal(FakeSocket.made[0].closed, true);
    assert.equal(f.win.timers.pending.size, 0, "no reconnecting while offline");
    navigator.onLine = true;
    f.feed.online();
    assert.equal(FakeSocket.made.length, 2);
    f.socket().say({ status: "lobby" });
    assert.deepEqual(f.seen.states, [false, true]);
  });

  test("online with the link up changes nothing; a closed feed stays closed", () => {
    const f = feedWith();
    f.socket().open();
    f.feed.online();
    assert.equal(FakeSocket.made.length, 1);
    f.feed.close();
    f.feed.online();
    f.socket().drop();
    assert.equal(FakeSocket.made.length, 1);
    assert.equal(f.win.timers.pending.size, 0);
  });
});

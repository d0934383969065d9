// The room the arena page shows (assets/arena/js/roomstate.js): which snapshot
// wins, and what the viewer may do in it.
import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { installWindow } from "./fakes.mjs";

installWindow();
const roomstate = await import("../../assets/arena/js/roomstate.js");

const snapshot = (turn, extra) => Object.assign({ code: "ABC123", phase: "PLAYING", turn, version: turn }, extra);

describe("roomstate", () => {
  beforeEach(() => {
    installWindow({ fetch: () => new Promise(() => {}) });
    roomstate.resetRoom("ABC123");
  });

  const seats = [{ kind: "person", ready: false }, { kind: "bot", ready: true }];

  test("an older version is dropped; another room's snapshot too", () => {
    assert.equal(roomstate.accept(snapshot(5), false), true);
    assert.equal(roomstate.accept(snapshot(4), false), false);
    assert.equal(roomstate.accept(snapshot(6, { code: "OTHER1" }), false), false);
    assert.equal(roomstate.state.newest.version, 5);
  });

  test("the keyed answer of the same version replaces the feed's, not the reverse", () => {
    roomstate.accept(snapshot(5), false);
    assert.equal(roomstate.accept(snapshot(5, { mine: ["P1"], seats }), true), true);
    assert.deepEqual(roomstate.state.mine, ["P1"]);
    assert.equal(roomstate.accept(snapshot(5), false), false);
  });

  test("a keyed answer overtaken by the feed still says whose seats they are, once play began", () => {
    roomstate.accept(snapshot(7), false);
    assert.equal(roomstate.accept(snapshot(5, { mine: ["P2"], seats }), true), false);
    assert.deepEqual(roomstate.state.mine, ["P2"]);
    assert.equal(roomstate.state.newest.version, 7);
    roomstate.resetRoom("ABC123");
    roomstate.accept(snapshot(7, { phase: "WAITING" }), false);
    roomstate.accept(snapshot(5, { phase: "WAITING", mine: ["P1"], seats }), true);
    assert.deepEqual(roomstate.state.mine, []); // a waiting room's seats may have changed since
  });

  test("a feed snapshot of the same position keeps the legal actions the key showed", () => {
    const keyed = snapshot(5, { mine: ["P1"], seats, currentPlayer: "P1", legalActions: [{ type: "MOVE" }] });
    roomstate.accept(keyed, true);
    roomstate.accept(snapshot(5, { version: 6, seats, currentPlayer: "P1" }), false);
    assert.deepEqual(roomstate.state.newest.legalActions, [{ type: "MOVE" }]);
    assert.equal(roomstate.state.keyed, true);
  });

  test("a seated person sees the newest at once and knows their turn", () => {
    roomstate.accept(snapshot(5, { mine: ["P1"], seats, currentPlayer: "P1" }), true);
    assert.equal(roomstate.personSide(), "P1");
    assert.equal(roomstate.myTurn(), true);
    assert.equal(roomstate.viewSide(), "P1");
    assert.equal(roomstate.placing(), false);
  });

  test("a person who plays P2 alone sees the board from P2's side, and places", () => {
    const placement = { phase: "PLACEMENT", mine: ["P2"], seats: [seats[1], seats[0]], board: { pieces: [1, 2] } };
    roomstate.accept(snapshot(0, placement), true);
    assert.equal(roomstate.viewSide(), "P2");
    assert.equal(roomstate.placing(), true);
    assert.deepEqual(roomstate.state.ownPieces, [1, 2]);
  });
});

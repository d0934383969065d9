// The arena's live board pace (assets/arena/js/pace.js). A file of its own: pace has one
// listener, which these tests take over and roomstate needs (node runs each file apart).
import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { installWindow } from "./fakes.mjs";

installWindow();
const pace = await import("../../assets/arena/js/pace.js");

const snapshot = (turn, extra) => Object.assign({ code: "ABC123", phase: "PLAYING", turn, version: turn }, extra);

describe("pace", () => {
  let shown;

  beforeEach(() => {
    installWindow();
    pace.resetPace();
    pace.setSpeed(1);
    shown = [];
    pace.onPaced((room) => shown.push(room.turn));
  });

  test("the first snapshot shows at once; later turns wait in line", () => {
    pace.offer(snapshot(1));
    pace.offer(snapshot(2));
    pace.offer(snapshot(3));
    assert.deepEqual(shown, [1]);
    assert.equal(pace.behind(), 2);
  });

  test("each step shows the next turn, one at a time", () => {
    [1, 2, 3].forEach((turn) => pace.offer(snapshot(turn)));
    const waits = Array.from(window.timers.pending.values()).map((t) => t.ms);
    assert.equal(waits.length, 1);
    assert.ok(waits[0] <= pace.STEP_MS);
    window.timers.runDue();
    assert.deepEqual(shown, [1, 2]);
    window.timers.runDue();
    assert.deepEqual(shown, [1, 2, 3]);
    assert.equal(pace.behind(), 0);
    assert.equal(window.timers.pending.size, 0, "nothing left to schedule");
  });

  test("catchUp shows the newest now and drops the line", () => {
    [1, 2, 3, 4].forEach((turn) => pace.offer(snapshot(turn)));
    pace.catchUp();
    assert.deepEqual(shown, [1, 4]);
    assert.equal(pace.behind(), 0);
  });

  test("news of the same turn replaces the one waiting instead of queueing", () => {
    pace.offer(snapshot(1));
    pace.offer(snapshot(2));
    pace.offer(snapshot(2, { version: 9 }));
    assert.equal(pace.behind(), 1);
    pace.catchUp();
    assert.deepEqual(shown, [1, 2]);
  });

  test("a speed that is not offered falls back to ×1; a faster one steps sooner", () => {
    pace.setSpeed(3);
    assert.equal(pace.speedNow(), 1);
    pace.setSpeed(4);
    [1, 2].forEach((turn) => pace.offer(snapshot(turn)));
    const wait = Array.from(window.timers.pending.values())[0].ms;
    assert.ok(wait <= pace.STEP_MS / 4);
  });
});

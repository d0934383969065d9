// The end screen's record block (B12): what an api/record answer means for the page.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { installWindow } from "./fakes.mjs";

installWindow();
const view = await import("../../assets/js/recordview.js");

const READY = {
  status: "ready",
  record: {
    best: 120,
    place: 2,
    new_record: true,
    top: [
      { place: 1, name: "Bình", score: 150, you: false },
      { place: 2, name: "An", score: 120, you: true },
      { place: 3, name: "", score: 90, you: false }
    ],
    best_word: { word: "tình yêu", points: 34 }
  }
};

describe("recordState", () => {
  test("ready needs a record; pending asks again; anything else is no block", () => {
    assert.equal(view.recordState(READY), "ready");
    assert.equal(view.recordState({ status: "pending", record: null }), "pending");
    assert.equal(view.recordState({ status: "unavailable", record: null }), "none");
    assert.equal(view.recordState({ status: "ready", record: null }), "none");
    assert.equal(view.recordState(null), "none");
    assert.equal(view.recordState("ready"), "none");
  });
});

describe("recordLines", () => {
  test("a new record: the best and place, the top 3 with the player marked, the best word", () => {
    const lines = view.recordLines(READY.record);
    assert.equal(lines.newRecord, true);
    assert.equal(lines.best, "Kỷ lục của bạn: 120 điểm · hạng 2");
    assert.deepEqual(lines.top, [
      { place: 1, name: "Bình", score: 150, you: false },
      { place: 2, name: "An (bạn)", score: 120, you: true },
      { place: 3, name: "Người chơi", score: 90, you: false }
    ]);
    assert.equal(lines.word, "Từ hay nhất ván này: tình yêu (+34 điểm)");
  });

  test("a player not on the table, with no word, and no new record", () => {
    const lines = view.recordLines({ best: 0, place: 0, new_record: false, top: [], best_word: null });
    assert.equal(lines.newRecord, false);
    assert.equal(lines.best, "Bạn chưa có điểm trên bảng của tin nhắn này.");
    assert.deepEqual(lines.top, []);
    assert.equal(lines.word, "");
  });

  test("loose values are read safely and at most 3 rows show", () => {
    const rows = [1, 2, 3, 4].map((n) => ({ place: n, name: "P" + n, score: "9" }));
    const lines = view.recordLines({ best: "x", place: 1, new_record: "yes", top: rows });
    assert.equal(lines.newRecord, false);
    assert.equal(lines.best, "Kỷ lục của bạn: 0 điểm · hạng 1");
    assert.deepEqual(lines.top.map((r) => [r.place, r.score]), [[1, 9], [2, 9], [3, 9]]);
  });
});

describe("the wait", () => {
  test("the page waits 3 s for the block, no longer", () => {
    assert.equal(view.RECORD_WAIT_MS, 3000);
    assert.equal(view.stillWaiting(2999), true);
    assert.equal(view.stillWaiting(3000), false);
  });
});

// The arena's ladder module (assets/arena/js/ladder.js): a bot of mine ranked past the
// table's first page still shows as ranked (its row comes from its own ladder route).
import assert from "node:assert/strict";
import { test } from "node:test";

import { FakeDocument, FakeStorage, installWindow } from "./fakes.mjs";

const asked = [];
const answers = {
  "/arena/api/ladder": { rows: [{ botId: "top", rank: 1, suspended: false }], next: 100 },
  "/arena/api/ladder/bots/deep": { row: { botId: "deep", rank: 140, suspended: true }, ratings: [], next: null },
};

function fetchFake(url) {
  asked.push(url);
  const body = answers[url];
  const status = body ? 200 : 404;
  const text = JSON.stringify(body || { error: "bot_not_found", message: "Không thấy bot." });
  return Promise.resolve({ ok: status === 200, status, text: () => Promise.resolve(text) });
}

installWindow({ fetch: fetchFake, localStorage: new FakeStorage(), document: new FakeDocument(["ladder", "ladder-empty", "ladder-error"]) });
const ladder = await import("../../assets/arena/js/ladder.js");

test("a bot of mine below the first page is found by its own route; an unranked one is not", async () => {
  await ladder.loadLadder();
  assert.equal(ladder.ladderRow("deep"), null);
  let heard = 0;
  ladder.onLadderChange(() => { heard += 1; });
  await ladder.findMyRows(["top", "deep", "never"]);
  assert.equal(ladder.ladderRow("deep").rank, 140);
  assert.equal(ladder.ladderRow("deep").suspended, true);
  assert.equal(ladder.ladderRow("never"), null);
  assert.ok(!asked.includes("/arena/api/ladder/bots/top"), "a row already on the page is not asked for");
  assert.equal(heard, 1);
  await ladder.findMyRows(["top", "deep", "never"]);
  assert.equal(heard, 1, "nothing changed: nobody is told again");
});

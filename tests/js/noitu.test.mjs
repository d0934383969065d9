// The nối từ page's pure modules: reading a server view (a limit's wait included), and
// what the page can tell about its game link by itself.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { installWindow } from "./fakes.mjs";

installWindow();
const values = await import("../../assets/js/values.js");
const token = await import("../../assets/js/token.js");
const { postOnce } = await import("../../assets/js/api.js");

const base64url = (text) => Buffer.from(text, "utf-8").toString("base64url");
const link = (claims) => base64url(JSON.stringify(claims)) + "." + base64url("mac");

describe("values", () => {
  test("toInt rounds a number and falls back for anything else", () => {
    assert.deepEqual([values.toInt("12", 0), values.toInt(2.6, 0), values.toInt("x", 7), values.toInt(Infinity, 3)], [12, 3, 7, 3]);
  });

  test("lastSyllable is a word's last syllable", () => {
    assert.equal(values.lastSyllable("  nhà   cửa "), "cửa");
    assert.equal(values.lastSyllable(""), "");
    assert.equal(values.lastSyllable(null), "");
  });

  test("chainOf and itemWord read loose views", () => {
    assert.deepEqual(values.chainOf({ chain: [{ word: "a b" }] }), [{ word: "a b" }]);
    assert.deepEqual(values.chainOf({ chain: "nope" }), []);
    assert.deepEqual(values.chainOf(null), []);
    assert.equal(values.itemWord({ word: "học hành" }), "học hành");
    assert.equal(values.itemWord("bàn ghế"), "bàn ghế");
    assert.equal(values.itemWord(undefined), "");
  });
});

describe("token", () => {
  test("the expiry is read from the claims, Vietnamese names included", () => {
    assert.equal(token.tokenExpiry(link({ e: 1_900_000_000, n: "Nguyễn Văn Ánh" })), 1_900_000_000);
  });

  test("an unreadable link is bad; a passed expiry is expired", () => {
    assert.equal(token.tokenProblem("not-a-token", 0), "bad");
    assert.equal(token.tokenProblem(link({ e: "soon" }), 0), "bad");
    assert.equal(token.tokenProblem(base64url("{") + ".mac", 0), "bad");
    assert.equal(token.tokenProblem(link({ e: 100 }), 101), "expired");
    assert.equal(token.tokenProblem(link({ e: 100 }), 100), "");
  });

  test("a link longer than the server accepts is bad", () => {
    assert.equal(token.tokenExpiry(link({ e: 100, pad: "x".repeat(1100) })), 0);
  });

  test("a room card's link carries r: 1", () => {
    assert.equal(token.isRoomToken(link({ e: 100, r: 1 })), true);
    assert.equal(token.isRoomToken(link({ e: 100 })), false);
    assert.equal(token.isRoomToken("garbage"), false);
  });

  test("a daily game's link carries d: 1", () => {
    assert.equal(token.isDailyToken(link({ e: 100, d: 1 })), true);
    assert.equal(token.isDailyToken(link({ e: 100, r: 1 })), false);
    assert.equal(token.isDailyToken(link({ e: 100, d: true })), false);
    assert.equal(token.isDailyToken("garbage"), false);
  });
});

describe("a limit's wait", () => {
  test("the body's field wins, in ms or seconds; else the header, in seconds or a date", () => {
    assert.equal(values.retryAfterMs("60", { retry_after_ms: 12500 }, 0), 12500);
    assert.equal(values.retryAfterMs("60", { retry_after: 7 }, 0), 7000);
    assert.equal(values.retryAfterMs("60", { error: "too_fast" }, 0), 60000);
    assert.equal(values.retryAfterMs("Thu, 01 Jan 1970 00:00:30 GMT", null, 10000), 20000);
  });

  test("neither: no wait known", () => {
    assert.equal(values.retryAfterMs(null, null, 0), 0);
    assert.equal(values.retryAfterMs("soon", { retry_after_ms: "x" }, 0), 0);
    assert.equal(values.retryAfterMs("", { retry_after: -3 }, 0), 0);
  });

  test("whole seconds to show, at least 1", () => {
    assert.deepEqual([values.waitSeconds(1), values.waitSeconds(12400), values.waitSeconds(0)], [1, 13, 1]);
  });

  test("the API client's 429 error carries the wait", async () => {
    const answer = (status, body, headers) => Promise.resolve({
      ok: status < 400, status, text: () => Promise.resolve(JSON.stringify(body)),
      headers: { get: (name) => (name === "Retry-After" ? headers : null) }
    });
    installWindow({ location: { href: "http://x/games/noitu/" }, fetch: () => answer(429, { error: "too_fast", message: "Chậm lại một chút nhé!" }, "42") });
    await assert.rejects(postOnce("room/join", {}), (err) => err.code === "too_fast" && err.retryAfterMs === 42000);
    installWindow({ location: { href: "http://x/games/noitu/" }, fetch: () => answer(404, { error: "no_member", message: "" }, null) });
    await assert.rejects(postOnce("room/move", {}), (err) => err.code === "no_member" && err.retryAfterMs === 0);
  });
});

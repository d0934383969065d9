// The kernel both pages share (assets/kernel/js/): its pure parts, and its few DOM
// parts on a hand-written document.
import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { ApiError, errorText, failure, fetchWithTimeout, parseJson } from "../../assets/kernel/js/api.js";
import { bannerText, hideNetworkError, retryPressed, showBanner, showNetworkError } from "../../assets/kernel/js/banner.js";
import { secondsLeft, serverClock } from "../../assets/kernel/js/clock.js";
import { button, clear, el, showError } from "../../assets/kernel/js/dom.js";
import { keeper } from "../../assets/kernel/js/storage.js";
import { KERNEL_TEXT } from "../../assets/kernel/js/text.js";
import { FakeDocument, FakeStorage, installWindow } from "./fakes.mjs";

describe("api", () => {
  test("parseJson: null for an empty body, undefined for one that is not JSON", () => {
    assert.equal(parseJson(""), null);
    assert.equal(parseJson(undefined), null);
    assert.equal(parseJson("<html>proxy</html>"), undefined);
    assert.deepEqual(parseJson('{"word": "nhà"}'), { word: "nhà" });
  });

  test("failure: a known {error} body is an api error with the server's sentence", () => {
    const err = failure(409, { error: "game_over", message: "Ván đã xong." }, (code) => code === "game_over");
    assert.ok(err instanceof ApiError);
    assert.deepEqual({ ...err }, { kind: "api", code: "game_over", message: "Ván đã xong.", status: 409 });
  });

  test("failure: every {error} code is known when no list is given", () => {
    assert.equal(failure(404, { error: "room_not_found", message: "Không có phòng." }).kind, "api");
  });

  test("failure: an unknown code, a bare status or a non-JSON body count as the network", () => {
    const unknown = failure(418, { error: "teapot" }, () => false);
    assert.deepEqual({ ...unknown }, { kind: "network", code: "teapot", message: "", status: 418 });
    assert.equal(failure(502, undefined).code, "http_502");
    assert.equal(failure(500, null).code, "http_500");
    assert.equal(failure(500, { error: 7 }).code, "http_500");
    assert.equal(failure(500, "oops").kind, "network");
  });

  test("errorText: the server's sentence for an api error, else the fallback", () => {
    assert.equal(errorText(new ApiError("api", "bad_name", "Tên quá dài.", 400), "x"), "Tên quá dài.");
    assert.equal(errorText(new ApiError("api", "bad_name", "", 400), "x"), "x");
    assert.equal(errorText(new ApiError("network", "offline", "ignored", 0), "x"), "x");
    assert.equal(errorText(null, "x"), "x");
  });

  test("fetchWithTimeout: hands the answer over and passes the request's options on", async () => {
    let seen = null;
    installWindow({ fetch: (url, init) => { seen = { url, init }; return Promise.resolve({ ok: true, status: 200 }); } });
    const answer = await fetchWithTimeout("/x", { method: "POST", body: "{}" }, 1000);
    assert.equal(answer.status, 200);
    assert.equal(seen.url, "/x");
    assert.equal(seen.init.method, "POST");
    assert.ok(seen.init.signal, "the request can be aborted");
    assert.equal(window.timers.pending.size, 0, "the timeout is cleared once answered");
  });

  test("fetchWithTimeout: no answer by the timeout aborts the request: offline", async () => {
    installWindow({
      fetch: (url, init) => new Promise((resolve, reject) => {
        init.signal.addEventListener("abort", () => reject(new Error("aborted")));
      })
    });
    const pending = fetchWithTimeout("/slow", {}, 15000);
    assert.deepEqual(Array.from(window.timers.pending.values()).map((t) => t.ms), [15000]);
    window.timers.runDue();
    await assert.rejects(pending, (err) => err instanceof ApiError && err.kind === "network" && err.code === "offline");
  });

  test("fetchWithTimeout: a failed fetch is offline", async () => {
    installWindow({ fetch: () => Promise.reject(new TypeError("Failed to fetch")) });
    await assert.rejects(fetchWithTimeout("/x", {}, 1000), (err) => err.code === "offline" && err.status === 0);
  });
});

describe("banner", () => {
  beforeEach(() => {
    installWindow({ document: new FakeDocument(["network-error", "network-error-text", "retry-button"]) });
    hideNetworkError();
  });

  test("bannerText: the server's trouble for a 5xx it answered, the connection's otherwise", () => {
    assert.equal(bannerText(new ApiError("network", "http_502", "", 502)), KERNEL_TEXT.server);
    assert.equal(bannerText(new ApiError("network", "offline", "", 0)), KERNEL_TEXT.network);
    assert.equal(bannerText(new ApiError("network", "http_404", "", 404)), KERNEL_TEXT.network);
    assert.equal(bannerText(undefined), KERNEL_TEXT.network);
  });

  test("showBanner(text, again): a sentence of the page's own, with or without a retry", () => {
    const runs = [];
    showBanner("Mất kết nối, đang kết nối lại…", () => runs.push("now"));
    assert.equal(document.getElementById("network-error").hidden, false);
    assert.equal(document.getElementById("network-error-text").textContent, "Mất kết nối, đang kết nối lại…");
    assert.equal(document.getElementById("retry-button").hidden, false);
    retryPressed();
    assert.deepEqual(runs, ["now"]);
    showBanner("Chờ chút…");
    assert.equal(document.getElementById("retry-button").hidden, true);
  });

  test("showNetworkError(err, again): the sentence, the retry button, and retry runs again once", () => {
    const runs = [];
    showNetworkError(new ApiError("network", "http_500", "", 500), () => runs.push("again"));
    const banner = document.getElementById("network-error");
    assert.equal(banner.hidden, false);
    assert.equal(document.getElementById("network-error-text").textContent, KERNEL_TEXT.server);
    assert.equal(document.getElementById("retry-button").hidden, false);
    retryPressed();
    assert.deepEqual(runs, ["again"]);
    assert.equal(banner.hidden, true);
    retryPressed();
    assert.deepEqual(runs, ["again"], "a second press has nothing left to retry");
  });

  test("showNetworkError without an action hides the retry button", () => {
    showNetworkError(new ApiError("network", "offline", "", 0));
    assert.equal(document.getElementById("retry-button").hidden, true);
    assert.equal(document.getElementById("network-error-text").textContent, KERNEL_TEXT.network);
  });

  test("hideNetworkError drops the pending retry", () => {
    const runs = [];
    showNetworkError(new ApiError("network", "offline", "", 0), () => runs.push("again"));
    hideNetworkError();
    retryPressed();
    assert.deepEqual(runs, []);
  });
});

describe("clock", () => {
  test("serverClock carries the server's now forward on the device's clock", () => {
    let local = 50;
    const clock = serverClock(() => local);
    clock.note(1_000_000);
    local = 1_050;
    assert.equal(clock.now(), 1_001_000);
    assert.equal(clock.until(1_004_000), 3_000);
    assert.equal(clock.until(1_000_500), -500);
  });

  test("serverClock ignores a missing or nonsense server time", () => {
    let local = 0;
    const clock = serverClock(() => local);
    clock.note(5_000);
    for (const junk of [0, -1, NaN, Infinity, "5000", null, undefined]) {
      clock.note(junk);
    }
    local = 10;
    assert.equal(clock.now(), 5_010);
  });

  test("serverClock reads the device's epoch time before any view", () => {
    const clock = serverClock(() => 0);
    const before = Date.now();
    const now = clock.now();
    assert.ok(now >= before && now <= Date.now());
  });

  test("secondsLeft rounds up and never goes below zero", () => {
    assert.deepEqual([30_000, 29_001, 1, 0, -1, -5_000].map(secondsLeft), [30, 30, 1, 0, 0, 0]);
  });
});

describe("storage", () => {
  test("keeper reads and writes its area; an empty value forgets the key", () => {
    const area = new FakeStorage();
    const store = keeper(() => area);
    assert.equal(store.read("k"), "");
    store.write("k", "v");
    assert.equal(area.getItem("k"), "v");
    assert.equal(store.read("k"), "v");
    store.write("k", "");
    assert.equal(area.getItem("k"), null);
    assert.equal(store.read("k"), "");
  });

  test("keeper keeps values in memory when storage is disabled", () => {
    const store = keeper(() => new FakeStorage(true));
    store.write("name", "Lan");
    assert.equal(store.read("name"), "Lan");
    store.write("name", null);
    assert.equal(store.read("name"), "");
  });

  test("keeper reads the area itself while it works: another tab's writes and clears", () => {
    const area = new FakeStorage();
    const store = keeper(() => area);
    area.setItem("k", "from elsewhere");
    assert.equal(store.read("k"), "from elsewhere");
    store.write("k", "mine");
    area.items.clear();
    assert.equal(store.read("k"), "");
  });

  test("keeper remembers a value the area refused (full), until one is kept", () => {
    const area = new FakeStorage();
    const store = keeper(() => area);
    area.broken = true;
    store.write("k", "refused");
    area.broken = false;
    assert.equal(store.read("k"), "refused");
    store.write("k", "kept");
    area.items.delete("k");
    assert.equal(store.read("k"), "");
  });
});

describe("dom", () => {
  beforeEach(() => {
    installWindow({ document: new FakeDocument([]) });
  });

  test("el sets the class and the text, leaving out what is not given", () => {
    const node = el("p", "muted", 12);
    assert.equal(node.tagName, "P");
    assert.equal(node.className, "muted");
    assert.equal(node.textContent, "12");
    assert.equal(el("span", "", null).textContent, "");
  });

  test("button is a typed .btn with its test id", () => {
    const node = button("Xoá", "btn-small", "delete-bot");
    assert.equal(node.type, "button");
    assert.equal(node.className.trim(), "btn btn-small");
    assert.equal(node.attributes["data-testid"], "delete-bot");
    assert.equal(button("Ok").attributes["data-testid"], undefined);
  });

  test("clear empties a node and showError hides an empty message", () => {
    const list = el("ul");
    list.appendChild(el("li"));
    list.appendChild(el("li"));
    clear(list);
    assert.equal(list.children.length, 0);
    const error = el("p");
    showError(error, "Lỗi");
    assert.deepEqual([error.textContent, error.hidden], ["Lỗi", false]);
    showError(error, "");
    assert.deepEqual([error.textContent, error.hidden], ["", true]);
  });
});

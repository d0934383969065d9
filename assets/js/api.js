/*
 * api.js — the client of the game's JSON API under ./api/ (relative to the page),
 * built on the kernel's fetch and ApiError.
 *
 * Every call is a POST with the kernel's timeout. A reply is either the answer object
 * or a rejection with an ApiError: kind "api" when the server answered one of the
 * {"error"} codes below, kind "network" for everything else (offline, a timeout, a
 * 500, a proxy's page, an empty body). A 429's error also carries `retryAfterMs`, the
 * wait the answer asked for (0 when it did not say). Stateless apart from the calls
 * in flight.
 */

import { ApiError, failure, fetchWithTimeout, parseJson } from "/kernel/js/api.js";
import { retryAfterMs } from "./values.js";

const TOO_FAST_RETRY_MS = 350;

const KNOWN_ERRORS = new Set([
  "bad_request", "bad_token", "token_expired", "no_session", "game_over", "too_fast", "busy",
  // room mode
  "no_member", "room_gone", "no_game", "watching", "out_of_game", "not_your_turn",
  "room_full", "not_host", "not_enough_players", "game_running", "too_many_rooms",
  "not_a_room_link", "room_link",
  // reports of missing words (B11)
  "too_many_reports", "word_not_refused"
]);

const known = (code) => KNOWN_ERRORS.has(code);

function apiUrl(route) {
  const url = new URL("api/" + route, window.location.href);
  url.search = "";
  url.hash = "";
  return url.toString();
}

// One request, no retry; `timeoutMs` shortens the kernel's timeout.
export function postOnce(route, body, timeoutMs) {
  return fetchWithTimeout(apiUrl(route), {
    method: "POST",
    headers: { "Content-Type": "application/json", "Accept": "application/json" },
    body: JSON.stringify(body),
    cache: "no-store",
    credentials: "same-origin",
    referrerPolicy: "no-referrer"
  }, timeoutMs).then((response) => response.text().then((text) => {
    const data = parseJson(text);
    if (response.ok && data && typeof data === "object" && !data.error) {
      return data;
    }
    // A 500, a proxy page, an empty body: all count as a broken connection.
    const err = failure(response.status, data, known);
    err.retryAfterMs = response.status === 429 && response.headers
      ? retryAfterMs(response.headers.get("Retry-After"), data, Date.now())
      : 0;
    throw err;
  }));
}

// Posts once; a too_fast answer is retried once after a short wait (except for
// "start": the start screen tells the player to wait instead).
export function post(route, body) {
  return postOnce(route, body).catch((err) => {
    if (err instanceof ApiError && err.code === "too_fast" && route !== "start") {
      return new Promise((resolve) => {
        window.setTimeout(resolve, TOO_FAST_RETRY_MS);
      }).then(() => postOnce(route, body));
    }
    throw err;
  });
}

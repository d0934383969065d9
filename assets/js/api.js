/*
 * api.js — the client of the game's JSON API under ./api/ (relative to the page).
 *
 * Every call is a POST with a 15 s timeout. A reply is either the answer object or
 * a rejection with an ApiError: kind "api" when the server answered one of its known
 * {"error"} codes, kind "network" for everything else (offline, a timeout, a 500, a
 * proxy's page, an empty body). Stateless apart from the timers of calls in flight.
 */

const REQUEST_TIMEOUT_MS = 15000;
const TOO_FAST_RETRY_MS = 350;

const KNOWN_ERRORS = {
  bad_request: 1, bad_token: 1, token_expired: 1, no_session: 1,
  game_over: 1, too_fast: 1, busy: 1,
  // room mode
  no_member: 1, room_gone: 1, no_game: 1, watching: 1, out_of_game: 1, not_your_turn: 1,
  room_full: 1, not_host: 1, not_enough_players: 1, game_running: 1, too_many_rooms: 1,
  not_a_room_link: 1, room_link: 1
};

export class ApiError {
  constructor(kind, code, message, status) {
    this.kind = kind; // "api" (server said {"error"}) or "network"
    this.code = code || "";
    this.message = message || "";
    this.status = status || 0;
  }
}

function apiUrl(route) {
  const url = new URL("api/" + route, window.location.href);
  url.search = "";
  url.hash = "";
  return url.toString();
}

// One request, no retry.
export function postOnce(route, body) {
  const controller = typeof AbortController === "function" ? new AbortController() : null;
  let timer = 0;
  if (controller) {
    timer = window.setTimeout(() => {
      controller.abort();
    }, REQUEST_TIMEOUT_MS);
  }
  return window.fetch(apiUrl(route), {
    method: "POST",
    headers: { "Content-Type": "application/json", "Accept": "application/json" },
    body: JSON.stringify(body),
    cache: "no-store",
    credentials: "same-origin",
    referrerPolicy: "no-referrer",
    signal: controller ? controller.signal : undefined
  }).then((response) => {
    window.clearTimeout(timer);
    return response.text().then((text) => {
      let data = null;
      try {
        data = text ? JSON.parse(text) : null;
      } catch (e) {
        data = null;
      }
      if (response.ok && data && typeof data === "object" && !data.error) {
        return data;
      }
      if (data && typeof data === "object" && typeof data.error === "string" && KNOWN_ERRORS[data.error]) {
        throw new ApiError("api", data.error, data.message, response.status);
      }
      // A 500, a proxy page, an empty body: all count as a broken connection.
      throw new ApiError("network", data && data.error ? String(data.error) : "http_" + response.status, "", response.status);
    });
  }, () => {
    window.clearTimeout(timer);
    throw new ApiError("network", "offline", "", 0);
  });
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

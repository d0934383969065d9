/*
 * api.js — what both pages' API clients share: ApiError, the reading of an answer,
 * and a fetch that gives up after a timeout. Each game's api.js builds its calls on
 * these (its URLs, headers and retries are its own).
 *
 * A failed call is an ApiError: kind "api" when the server answered one of its
 * {"error": code, "message": …} bodies, kind "network" for everything else (offline,
 * a timeout, a 500, a proxy's page, an empty body).
 */

export const REQUEST_TIMEOUT_MS = 15000;

export class ApiError {
  constructor(kind, code, message, status) {
    this.kind = kind; // "api" (the server said {"error"}) or "network"
    this.code = code || "";
    this.message = message || "";
    this.status = status || 0;
  }
}

export const offline = () => new ApiError("network", "offline", "", 0);

// A body's JSON: null for an empty body, undefined when it is not JSON.
export function parseJson(text) {
  if (!text) {
    return null;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    return undefined;
  }
}

// The ApiError for an answer that is not a success: "api" when `data` is an
// {"error"} body whose code `known(code)` accepts, else "network" (named by the
// body's code, or by the status).
export function failure(status, data, known) {
  const code = data && typeof data === "object" && typeof data.error === "string" ? data.error : "";
  if (code && (!known || known(code))) {
    return new ApiError("api", code, data.message, status);
  }
  return new ApiError("network", code || "http_" + status, "", status);
}

// An error's text for a person: the server's own sentence, or `fallback`.
export function errorText(err, fallback) {
  if (err && err.kind === "api" && err.message) {
    return err.message;
  }
  return fallback;
}

// window.fetch(url, init), aborted after `timeoutMs`; a request that never got an
// answer rejects with the "offline" ApiError.
export function fetchWithTimeout(url, init, timeoutMs) {
  const controller = typeof AbortController === "function" ? new AbortController() : null;
  const timer = controller ? window.setTimeout(() => controller.abort(), timeoutMs || REQUEST_TIMEOUT_MS) : 0;
  const options = Object.assign({}, init, controller ? { signal: controller.signal } : {});
  return window.fetch(url, options).then((response) => {
    window.clearTimeout(timer);
    return response;
  }, () => {
    window.clearTimeout(timer);
    throw offline();
  });
}

/*
 * values.js — reading the loosely typed values of a server view. Stateless.
 */

// A whole number, or `fallback` when the value is not a finite number.
export function toInt(value, fallback) {
  const n = Number(value);
  return isFinite(n) ? Math.round(n) : fallback;
}

export function lastSyllable(word) {
  const parts = String(word || "").trim().split(/\s+/);
  return parts[parts.length - 1] || "";
}

export function chainOf(view) {
  return Array.isArray(view && view.chain) ? view.chain : [];
}

// A chain entry or suggestion is {word, ...}; a bare string is accepted too.
export function itemWord(item) {
  if (item && typeof item === "object") {
    return String(item.word || "");
  }
  return String(item || "");
}

// How long a limit's 429 asks to wait, in ms (0 when it does not say). The body's
// `retry_after_ms` (ms) or `retry_after` (seconds) wins, being the finer; else the
// Retry-After header, in seconds or as an HTTP date (read against `nowMs`, this
// device's Date.now()).
export function retryAfterMs(header, body, nowMs) {
  const fields = body && typeof body === "object" ? body : {};
  const ms = Number(fields.retry_after_ms);
  if (isFinite(ms) && ms > 0) {
    return Math.ceil(ms);
  }
  const seconds = Number(fields.retry_after);
  if (isFinite(seconds) && seconds > 0) {
    return Math.ceil(seconds * 1000);
  }
  const text = String(header || "").trim();
  if (/^\d+$/.test(text)) {
    return Number(text) * 1000;
  }
  const date = text ? Date.parse(text) : NaN;
  if (isFinite(date)) {
    return Math.max(date - nowMs, 0);
  }
  return 0;
}

// Whole seconds for a wait in ms, at least 1.
export function waitSeconds(ms) {
  return Math.max(1, Math.ceil(toInt(ms, 0) / 1000));
}

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

/*
 * storage.js — what the page keeps in localStorage: the owner key the server gave
 * (it names the owner of bots and seats, spec B5) and the person's display name.
 * Storage may be disabled: the kernel's keeper then keeps them in memory only.
 * onOwnerKeyChange(listener) runs whenever the kept key changes (a first upload or
 * room makes one; a person may paste one from another device).
 */

import { keeper } from "/kernel/js/storage.js";

const OWNER_KEY = "noitu.arena.ownerKey";
const PERSON_NAME = "noitu.arena.name";
const KEY_PATTERN = /^[0-9a-f]{32}$/;

const store = keeper(() => window.localStorage);
const keyListeners = [];

export function ownerKey() {
  const key = store.read(OWNER_KEY);
  return KEY_PATTERN.test(key) ? key : "";
}

export function onOwnerKeyChange(listener) {
  keyListeners.push(listener);
}

// A key as a person pasted it (spaces around or inside, upper-case digits), in the
// server's form; "" when it cannot be a key.
export function normalizeOwnerKey(text) {
  const key = String(text || "").replace(/\s+/g, "").toLowerCase();
  return KEY_PATTERN.test(key) ? key : "";
}

// Keeps a key the server answered with, or one a person pasted (only a well-formed one).
export function rememberOwnerKey(key) {
  if (typeof key === "string" && KEY_PATTERN.test(key) && key !== ownerKey()) {
    store.write(OWNER_KEY, key);
    keyListeners.forEach((listener) => listener(key));
  }
}

export const personName = () => store.read(PERSON_NAME);
export const rememberPersonName = (name) => store.write(PERSON_NAME, name || "");

/*
 * storage.js — what the page keeps in localStorage: the owner key the server gave
 * (it names the owner of bots and seats, spec B5) and the person's display name.
 * Storage may be disabled: the kernel's keeper then keeps them in memory only.
 */

import { keeper } from "/kernel/js/storage.js";

const OWNER_KEY = "noitu.arena.ownerKey";
const PERSON_NAME = "noitu.arena.name";
const KEY_PATTERN = /^[0-9a-f]{32}$/;

const store = keeper(() => window.localStorage);

export function ownerKey() {
  const key = store.read(OWNER_KEY);
  return KEY_PATTERN.test(key) ? key : "";
}

// Keeps a key the server answered with (only a well-formed one).
export function rememberOwnerKey(key) {
  if (typeof key === "string" && KEY_PATTERN.test(key) && key !== ownerKey()) {
    store.write(OWNER_KEY, key);
  }
}

export const personName = () => store.read(PERSON_NAME);
export const rememberPersonName = (name) => store.write(PERSON_NAME, name || "");

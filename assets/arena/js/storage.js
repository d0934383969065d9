/*
 * storage.js — what the page keeps in localStorage: the owner key the server gave
 * (it names the owner of bots and seats, spec B5) and the person's display name.
 * Storage may be disabled: reads then give "" and the key lives in memory only.
 */

const OWNER_KEY = "noitu.arena.ownerKey";
const PERSON_NAME = "noitu.arena.name";
const KEY_PATTERN = /^[0-9a-f]{32}$/;

const memory = {};

function read(key) {
  try {
    const value = window.localStorage.getItem(key);
    return value === null ? (memory[key] || "") : value;
  } catch (e) {
    return memory[key] || "";
  }
}

function write(key, value) {
  memory[key] = value;
  try {
    window.localStorage.setItem(key, value);
  } catch (e) {
    /* storage may be disabled; memory still works */
  }
}

export function ownerKey() {
  const key = read(OWNER_KEY);
  return KEY_PATTERN.test(key) ? key : "";
}

// Keeps a key the server answered with (only a well-formed one).
export function rememberOwnerKey(key) {
  if (typeof key === "string" && KEY_PATTERN.test(key) && key !== ownerKey()) {
    write(OWNER_KEY, key);
  }
}

export const personName = () => read(PERSON_NAME);
export const rememberPersonName = (name) => write(PERSON_NAME, name || "");

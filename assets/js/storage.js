/*
 * storage.js — the three sessionStorage keys the page keeps, behind one getter and
 * one setter each. Storage may be disabled: reads then give "" and writes do nothing.
 */

const STORE_TOKEN = "noitu.token";
const STORE_SESSION = "noitu.session";
const STORE_DIFFICULTY = "noitu.difficulty";

function read(key) {
  try {
    return window.sessionStorage.getItem(key) || "";
  } catch (e) {
    return "";
  }
}

// An empty value removes the key.
function write(key, value) {
  try {
    if (value) {
      window.sessionStorage.setItem(key, value);
    } else {
      window.sessionStorage.removeItem(key);
    }
  } catch (e) {
    /* storage may be disabled; memory still works */
  }
}

export const storedToken = () => read(STORE_TOKEN);
export const storeToken = (token) => write(STORE_TOKEN, token);
export const storedSession = () => read(STORE_SESSION);
export const storeSession = (session) => write(STORE_SESSION, session);
export const storedDifficulty = () => read(STORE_DIFFICULTY);
export const storeDifficulty = (difficulty) => write(STORE_DIFFICULTY, difficulty);

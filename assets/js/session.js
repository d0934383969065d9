/*
 * session.js — which game this page is on: the game link's token, the session id,
 * the latest view the server sent, and the epoch.
 *
 * The epoch goes up whenever a game is left or a new one is started. An action
 * takes a guard before it waits for anything (a request, a timer) and drops what
 * comes back once the guard says the page has moved on.
 */

import {
  storedSession, storedToken, storeSession, storeToken
} from "./storage.js";

let token = "";
let session = "";
let view = null;
let epoch = 0;

export const currentToken = () => token;
export const currentSession = () => session;
export const currentView = () => view;

// A function that stays true until the epoch changes.
export function guard() {
  const taken = epoch;
  return () => taken === epoch;
}

// Moves to a new epoch and returns its guard.
export function nextEpoch() {
  epoch += 1;
  return guard();
}

// Leaves the current game (if any): answers about it are ignored from now on.
export function leaveGame() {
  epoch += 1;
  session = "";
  view = null;
  storeSession("");
}

// Whether `next` (a view) is about a game the page already left. A fresh view (a
// start or a resume) is always taken.
export function isStale(next, fresh) {
  return !!session && next.session !== session && !fresh;
}

// Takes `next` as the game's view and remembers its session for a reload.
export function adoptView(next) {
  session = String(next.session);
  storeSession(session);
  view = next;
}

// A newer view of the same game that changes nothing but what it says.
export function updateView(next) {
  view = next;
}

// Takes the token out of the address bar so a copied link does not carry it, and
// forgets the stored session when the link is for another game message.
// Returns the token ("" when the page was opened without a game link).
export function readToken() {
  let fromUrl = "";
  try {
    const url = new URL(window.location.href);
    fromUrl = url.searchParams.get("t") || "";
    if (url.searchParams.has("t")) {
      url.searchParams.delete("t");
      window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
    }
  } catch (e) {
    /* keep whatever we could read */
  }
  const stored = storedToken();
  if (fromUrl) {
    if (fromUrl !== stored) {
      // A new game link (another game message): the old session is not ours to resume.
      storeSession("");
    }
    storeToken(fromUrl);
    token = fromUrl;
  } else {
    token = stored;
  }
  return token;
}

// The session left by an earlier visit of this tab, to resume ("" when none).
export function restoreSession() {
  session = storedSession();
  return session;
}

/*
 * screens.js — which of the four screens is showing.
 *
 * Exactly one of #screen-notoken, -start, -play, -end, -room is visible (or, while a saved
 * game is being fetched, only #loading). Other modules ask `currentScreen()`; the
 * entry module subscribes with `onScreenChange` to stop what belongs to a screen
 * that is left.
 */

import { $ } from "/kernel/js/dom.js";

const SCREENS = ["notoken", "start", "play", "end", "room"];

let screen = "";
const listeners = [];

export const currentScreen = () => screen;

// `listener(name)` runs after every showScreen(name).
export function onScreenChange(listener) {
  listeners.push(listener);
}

export function showScreen(name) {
  SCREENS.forEach((s) => {
    $("screen-" + s).hidden = s !== name;
  });
  $("loading").hidden = true;
  document.body.setAttribute("data-screen", name);
  screen = name;
  listeners.forEach((listener) => listener(name));
}

// Hides every screen behind "Đang tải…"; the current screen stays what it was.
export function showLoading() {
  SCREENS.forEach((s) => {
    $("screen-" + s).hidden = true;
  });
  $("loading").hidden = false;
}

/*
 * config.js — the facts the page shows but the server owns, from GET /arena/api/config:
 * the built-in bots' names. Loaded once at boot; onConfig(listener) runs when it
 * arrives (the seat menus are rebuilt then). Until it arrives the lists are empty.
 */

import { getJson } from "./api.js";
import { showNetworkError } from "./banner.js";

let config = { builtins: [] };
const listeners = [];

export const builtins = () => config.builtins;

export function onConfig(listener) {
  listeners.push(listener);
}

export function loadConfig() {
  return getJson("/config").then((data) => {
    config = { builtins: data.builtins || [] };
    listeners.forEach((listener) => listener());
  }, () => {
    showNetworkError(loadConfig);
  });
}

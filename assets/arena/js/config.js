/*
 * config.js — the facts the page shows but the server owns, from GET /arena/api/config:
 * the built-in bots' names and every figure an author meets (the match clock, the
 * sandbox, the limits), keyed by the names the documents mark them with. Loaded once
 * at boot: then every element marked data-limit="NAME" gets its figure, every element
 * marked data-needs-config is shown, and onConfig(listener) runs (the seat menus are
 * rebuilt). Until it arrives the lists are empty and the marked sentences hidden.
 */

import { getJson } from "./api.js";
import { showNetworkError } from "./banner.js";
import { figure } from "./text.js";

let config = { builtins: [], figures: {} };
const listeners = [];

export const builtins = () => config.builtins;
export const figures = () => config.figures;

export function onConfig(listener) {
  listeners.push(listener);
}

function fillMarks() {
  document.querySelectorAll("[data-limit]").forEach((node) => {
    const name = node.getAttribute("data-limit");
    if (name in config.figures) {
      node.textContent = figure(config.figures[name]);
    }
  });
  document.querySelectorAll("[data-needs-config]").forEach((node) => {
    node.hidden = false;
  });
}

export function loadConfig() {
  return getJson("/config").then((data) => {
    config = { builtins: data.builtins || [], figures: data.figures || {} };
    fillMarks();
    listeners.forEach((listener) => listener());
  }, () => {
    showNetworkError(loadConfig);
  });
}

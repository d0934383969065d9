/*
 * config.js — the facts the page shows but the server owns, from GET /arena/api/config:
 * the languages a bot may be written in, the built-in bots' names and every figure an author meets (the match clock, the
 * sandbox, the limits), keyed by the names the documents mark them with. Loaded once
 * at boot: then every element marked data-limit="NAME" gets its figure, every element
 * marked data-needs-config is shown, and onConfig(listener) runs (the seat menus are
 * rebuilt). Until it arrives the lists are empty and the marked sentences hidden.
 */

import { showNetworkError } from "/kernel/js/banner.js";
import { $, el } from "/kernel/js/dom.js";
import { getJson } from "./api.js";
import { figure, T } from "./text.js";

let config = { languages: [], builtins: [], figures: {} };
const listeners = [];

export const builtins = () => config.builtins;
export const figures = () => config.figures;

function language(id) {
  return config.languages.find((one) => one.id === id);
}

// A language's name for people, or its id before the config arrives.
export const languageTitle = (id) => (language(id) || { title: id }).title;
// The usual suffix of a language's files ("" before the config arrives).
export const languageSuffix = (id) => (language(id) || { suffixes: [""] }).suffixes[0];

// The upload form: what the file picker offers, and the sentence naming the kinds.
function fillUpload() {
  const usual = config.languages.map((one) => one.suffixes[0]);
  $("upload-file").accept = config.languages.map((one) => one.suffixes.join(",")).join(",");
  const line = $("upload-kinds");
  line.textContent = T.oneFileOf;
  usual.forEach((suffix, index) => {
    if (index > 0) {
      line.appendChild(document.createTextNode(index === usual.length - 1 ? T.or : ", "));
    }
    line.appendChild(el("code", "", suffix));
  });
  line.appendChild(document.createTextNode("."));
}

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
    config = { languages: data.languages || [], builtins: data.builtins || [], figures: data.figures || {} };
    fillUpload();
    fillMarks();
    listeners.forEach((listener) => listener());
  }, (err) => {
    showNetworkError(err, loadConfig);
  });
}

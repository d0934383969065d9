/*
 * seats.js — the menus that say what sits in a seat: "Tôi chơi" (a person), one of
 * my built bots, a built-in bot, or a public bot of someone else; the opponent's
 * menu may also leave the seat open. A value is "person", "open", "builtin:<name>"
 * or "upload:<bot id>"; seatChoice() turns it into the API's seat object.
 */

import { $, el } from "/kernel/js/dom.js";
import { myBots, publicBots } from "./bots.js";
import { builtins, languageTitle } from "./config.js";
import { personName } from "./storage.js";
import { BUILTIN_NAMES, T } from "./text.js";

function option(value, text) {
  const node = el("option", "", text);
  node.value = value;
  return node;
}

function group(label, options) {
  const node = el("optgroup");
  node.label = label;
  options.forEach((one) => node.appendChild(one));
  return node;
}

// Rebuilds `select`, keeping its choice when it is still there (else `fallback`).
export function fillSeatSelect(select, withPerson, withOpen, fallback) {
  const before = select.value;
  select.textContent = "";
  if (withOpen) {
    select.appendChild(option("open", T.openSeat));
  }
  if (withPerson) {
    select.appendChild(option("person", T.iPlay));
  }
  const built = myBots().filter((bot) => bot.build === "ok");
  if (built.length) {
    select.appendChild(group(T.myBots, built.map((bot) =>
      option("upload:" + bot.id, bot.name + " (" + languageTitle(bot.language) + ")"))));
  }
  if (builtins().length) {
    select.appendChild(group(T.builtinBots, builtins().map((name) => option("builtin:" + name, BUILTIN_NAMES[name] || name))));
  }
  const shared = publicBots();
  if (shared.length) {
    select.appendChild(group(T.publicBots, shared.map((bot) =>
      option("upload:" + bot.id, bot.name + " (" + languageTitle(bot.language) + ")"))));
  }
  const values = Array.prototype.map.call(select.options, (one) => one.value);
  select.value = values.indexOf(before) >= 0 ? before : (values.indexOf(fallback) >= 0 ? fallback : values[0]);
}

// The API's seat for a menu value (null for "open").
export function seatChoice(value, name) {
  if (value === "person") {
    return { kind: "person", name: (name || "").trim() };
  }
  if (value.indexOf("builtin:") === 0) {
    return { kind: "builtin", ref: value.slice(8) };
  }
  if (value.indexOf("upload:") === 0) {
    return { kind: "upload", ref: value.slice(7) };
  }
  return null;
}

// Shows the name field only when the menu says "Tôi chơi".
export function syncNameRow(select, row, input) {
  row.hidden = select.value !== "person";
  if (!input.value) {
    input.value = personName();
  }
}

export function fillAllSeatMenus() {
  fillSeatSelect($("seat-select"), true, false, "person");
  fillSeatSelect($("opponent-select"), false, true, "builtin:tactical");
  fillSeatSelect($("room-seat-select"), true, false, "person");
  syncNameRow($("seat-select"), $("person-name-row"), $("person-name"));
  syncNameRow($("room-seat-select"), $("room-name-row"), $("room-person-name"));
}

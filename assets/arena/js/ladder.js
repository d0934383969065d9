/*
 * ladder.js — "Bảng xếp hạng": the table of GET /arena/api/ladder (ordered by the
 * server, μ − 3σ), one row a bot with its rank, name, μ ± σ, games, wins/draws/losses,
 * last game and a "tạm dừng" mark; each row is a link to the bot's page. Keeps the
 * rows; onLadderChange(listener) runs after each load (my bots show which are ranked).
 */

import { ApiError, errorText } from "/kernel/js/api.js";
import { showNetworkError } from "/kernel/js/banner.js";
import { $, clear, el, showError } from "/kernel/js/dom.js";
import { getJson } from "./api.js";
import { languageTitle } from "./config.js";
import { BUILTIN_NAMES, shortTime, T } from "./text.js";

let rows = [];
let more = false; // the table has rows past its first page
let beyond = new Map(); // botId → its row, for bots of mine past the first page
let open = () => {};
const listeners = [];

export const ladderRows = () => rows;
export const ladderRow = (botId) => rows.find((row) => row.botId === botId) || beyond.get(botId) || null;

// The table's first page holds the top rows only: a bot of mine ranked below them is
// asked for by its own ladder route (a 404 or a null row: not ranked). Resolves once
// every asked row is known; runs the listeners when what it knows changed.
export function findMyRows(botIds) {
  const missing = botIds.filter((id) => !rows.some((row) => row.botId === id));
  if (!more || missing.length === 0) {
    return Promise.resolve();
  }
  const asks = missing.map((id) => getJson("/ladder/bots/" + encodeURIComponent(id)).then(
    (data) => (data && data.row ? [id, data.row] : null),
    () => null,
  ));
  return Promise.all(asks).then((found) => {
    const known = new Map(found.filter(Boolean));
    const same = known.size === beyond.size && [...known].every(
      ([id, row]) => beyond.has(id) && beyond.get(id).suspended === row.suspended,
    );
    beyond = known;
    if (!same) {
      listeners.forEach((listener) => listener());
    }
  });
}

export function onLadderChange(listener) {
  listeners.push(listener);
}

// The page's name for a bot: a built-in's Vietnamese name, else the author's.
export function botName(bot) {
  return bot.builtin && BUILTIN_NAMES[bot.botId] ? BUILTIN_NAMES[bot.botId] : bot.name;
}

export const botAddress = (botId) => "/arena/?bot=" + encodeURIComponent(botId);

// A link to a bot's page that opens it without leaving the page (a new tab still works).
export function botLink(botId, text, className) {
  const link = el("a", className || "", text);
  link.href = botAddress(botId);
  link.addEventListener("click", (event) => {
    if (event.button === 0 && !event.ctrlKey && !event.metaKey && !event.shiftKey && !event.altKey) {
      event.preventDefault();
      open(botId);
    }
  });
  return link;
}

export function initLadder(openBot) {
  open = openBot;
}

export function ladderMeta(row) {
  const parts = [T.rating(row.mu, row.sigma), T.games(row.games)];
  if (row.games) {
    parts.push(T.record(row.wins, row.draws, row.losses));
  }
  parts.push(row.lastGameMs ? T.lastGame(shortTime(row.lastGameMs)) : T.ladderNoGames);
  return parts.join(" · ");
}

function rowItem(row) {
  const item = el("li", "ladder-row");
  item.setAttribute("data-testid", "ladder-row");
  item.setAttribute("data-bot-id", row.botId);
  item.setAttribute("data-suspended", row.suspended ? "true" : "false");
  const link = botLink(row.botId, "", "ladder-link");
  const rank = el("span", "ladder-rank", String(row.rank));
  rank.setAttribute("title", T.rankLine(row.rank));
  link.appendChild(rank);
  const text = el("span", "ladder-text");
  const head = el("span", "ladder-head");
  head.appendChild(el("span", "ladder-name", botName(row)));
  if (row.suspended) {
    head.appendChild(el("span", "badge badge-suspended", T.suspended));
  }
  text.appendChild(head);
  const kind = row.builtin ? T.builtinKind : languageTitle(row.language);
  text.appendChild(el("span", "ladder-meta muted small", kind + " · " + ladderMeta(row)));
  link.appendChild(text);
  item.appendChild(link);
  return item;
}

function render() {
  clear($("ladder"));
  rows.forEach((row) => $("ladder").appendChild(rowItem(row)));
  $("ladder-empty").hidden = rows.length > 0;
}

export function loadLadder() {
  return getJson("/ladder").then((data) => {
    rows = Array.isArray(data.rows) ? data.rows : [];
    more = Boolean(data.next);
    showError($("ladder-error"), "");
    render();
    listeners.forEach((listener) => listener());
  }, (err) => {
    if (err instanceof ApiError && err.kind === "network") {
      showNetworkError(err, loadLadder);
    } else {
      showError($("ladder-error"), errorText(err, T.tryAgain));
    }
  });
}

/*
 * bots.js — "Bot của tôi" (list, public/private, download the source, delete), the
 * bots whose build failed in a group of their own (with the compiler's messages), and
 * the public bots of others. Keeps both lists; onBotsChange(listener) runs after each
 * load (the seat menus are built from them). A bot of mine on the ladder shows
 * "đang xếp hạng", or "tạm dừng" once the ladder suspended it (from the table's rows).
 */

import { ApiError, errorText } from "/kernel/js/api.js";
import { showNetworkError } from "/kernel/js/banner.js";
import { $, button, clear, el, showError } from "/kernel/js/dom.js";
import { getBlob, getJson, patchJson, putJson, remove } from "./api.js";
import { languageSuffix, languageTitle } from "./config.js";
import { askConfirm } from "./confirm.js";
import { botLink, findMyRows, ladderRow, loadLadder } from "./ladder.js";
import { ownerKey } from "./storage.js";
import { T } from "./text.js";

let mine = [];
let others = [];
const listeners = [];

export const myBots = () => mine;
export const publicBots = () => others;

export function onBotsChange(listener) {
  listeners.push(listener);
}

function changed() {
  listeners.forEach((listener) => listener());
}

function describe(bot) {
  return languageTitle(bot.language) + (bot.sourceBytes ? " · " + bot.sourceBytes + " byte" : "");
}

function download(bot) {
  getBlob("/bots/" + encodeURIComponent(bot.id) + "/source").then((blob) => {
    const link = el("a");
    link.href = URL.createObjectURL(blob);
    const suffix = languageSuffix(bot.language);
    link.download = bot.name.slice(-suffix.length) === suffix ? bot.name : bot.name + suffix;
    document.body.appendChild(link);
    link.click();
    document.body.removeChild(link);
    window.setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  }, (err) => showError($("bots-error"), errorText(err, T.tryAgain)));
}

function setPublic(bot, value) {
  // A refusal (a ranked bot stays public) is shown after the lists are fresh again,
  // since drawing them clears the list's error.
  patchJson("/bots/" + encodeURIComponent(bot.id), { public: value }).then(() => loadBots(), (err) => {
    loadBots().then(() => showError($("bots-error"), errorText(err, T.tryAgain)));
  });
}

// Ranks a built bot (it becomes public too: a ranked bot is everyone's to meet).
function rankBot(bot) {
  putJson("/ladder/bots/" + encodeURIComponent(bot.id)).then(() => {
    showError($("bots-error"), "");
    // Ranking made it public: say so at once, not only once the lists are read again
    // (the table's redraw comes first, and would show it ranked yet private).
    mine.filter((known) => known.id === bot.id).forEach((known) => { known.public = true; });
    render();
    loadLadder().then(() => loadBots());
  }, (err) => showError($("bots-error"), errorText(err, T.tryAgain)));
}

function deleteBot(bot, anchor) {
  askConfirm(anchor, T.deleteConfirm(bot.name), () => {
    remove("/bots/" + encodeURIComponent(bot.id)).then(() => loadBots(), (err) => {
      showError($("bots-error"), errorText(err, T.tryAgain));
    });
  });
}

function myBotItem(bot) {
  const item = el("li", "bot-item");
  item.setAttribute("data-testid", "my-bot");
  item.setAttribute("data-bot-id", bot.id);
  item.setAttribute("data-build", bot.build);
  const head = el("div", "bot-head");
  head.appendChild(bot.build === "ok" ? botLink(bot.id, bot.name, "bot-name") : el("span", "bot-name", bot.name));
  const ranked = ladderRow(bot.id);
  const suspended = Boolean(ranked && ranked.suspended);
  item.setAttribute("data-ranked", ranked ? "true" : "false");
  item.setAttribute("data-suspended", suspended ? "true" : "false");
  if (suspended) {
    // Built, but the ladder stopped pairing it: "chạy được" would say the opposite.
    head.appendChild(el("span", "badge badge-suspended", T.suspended));
  } else {
    head.appendChild(el("span", "badge badge-" + bot.build, bot.build === "ok" ? T.buildOkBadge : T.buildFailedBadge));
    if (ranked) {
      head.appendChild(el("span", "badge badge-ranked", T.ranked));
    }
  }
  item.appendChild(head);
  item.appendChild(el("p", "bot-meta muted small", describe(bot) + " · " + (bot.public ? T.public : T.private)));
  if (suspended) {
    item.appendChild(el("p", "small suspended-note", T.suspendedMine));
  }
  if (bot.build !== "ok" && bot.buildMessages) {
    const details = el("details", "bot-messages");
    details.appendChild(el("summary", "", T.compilerMessages));
    const pre = el("pre", "messages", bot.buildMessages);
    pre.tabIndex = 0;
    details.appendChild(pre);
    item.appendChild(details);
  }
  const row = el("div", "button-row");
  if (bot.build === "ok") {
    const toggle = button(bot.public ? T.makePrivate : T.makePublic, "btn-small", "toggle-public");
    toggle.setAttribute("aria-label", (bot.public ? T.makePrivate : T.makePublic) + ": " + bot.name);
    toggle.addEventListener("click", () => setPublic(bot, !bot.public));
    row.appendChild(toggle);
    if (!ranked) {
      const rank = button(T.rank, "btn-small", "rank-bot");
      rank.setAttribute("aria-label", T.rank + ": " + bot.name);
      rank.addEventListener("click", () => rankBot(bot));
      row.appendChild(rank);
    }
  }
  const source = button(T.download, "btn-small", "download-source");
  source.setAttribute("aria-label", T.download + ": " + bot.name);
  source.addEventListener("click", () => download(bot));
  row.appendChild(source);
  const drop = button(T.deleteBot, "btn-small btn-ghost", "delete-bot");
  drop.setAttribute("aria-label", T.deleteBot + " " + bot.name);
  drop.addEventListener("click", () => deleteBot(bot, row));
  row.appendChild(drop);
  item.appendChild(row);
  return item;
}

function publicBotItem(bot) {
  const item = el("li", "bot-item");
  item.setAttribute("data-testid", "public-bot");
  item.setAttribute("data-bot-id", bot.id);
  const head = el("div", "bot-head");
  head.appendChild(botLink(bot.id, bot.name, "bot-name"));
  item.appendChild(head);
  item.appendChild(el("p", "bot-meta muted small", languageTitle(bot.language)));
  return item;
}

// A bot of mine ranked past the table's first page: its row comes on its own.
function findRowsBeyond() {
  findMyRows(mine.filter((bot) => bot.build === "ok").map((bot) => bot.id));
}

// Draws both lists again from what was loaded last (the ladder's table changed).
export function redrawBots() {
  render();
  findRowsBeyond();
}

function render() {
  clear($("my-bots"));
  clear($("failed-bots"));
  mine.forEach((bot) => $(bot.build === "ok" ? "my-bots" : "failed-bots").appendChild(myBotItem(bot)));
  $("my-bots-empty").hidden = mine.length > 0;
  $("failed-bots-group").hidden = !$("failed-bots").firstChild;
  clear($("public-bots"));
  others.forEach((bot) => $("public-bots").appendChild(publicBotItem(bot)));
  $("public-bots-empty").hidden = others.length > 0;
}

// Fetches both lists (mine only with a key) and redraws them.
export function loadBots() {
  const wantMine = ownerKey() ? getJson("/bots").then((data) => data.bots || []) : Promise.resolve([]);
  const wantPublic = getJson("/bots/public?limit=50").then((data) => data.bots || []);
  return Promise.all([wantMine, wantPublic]).then((lists) => {
    mine = lists[0];
    others = lists[1].filter((bot) => !bot.mine);
    showError($("bots-error"), "");
    render();
    changed();
    findRowsBeyond();
  }, (err) => {
    if (err instanceof ApiError && err.kind === "network") {
      showNetworkError(err, loadBots);
    } else {
      showError($("bots-error"), errorText(err, T.tryAgain));
    }
  });
}

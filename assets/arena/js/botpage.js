/*
 * botpage.js — a bot's page (/arena/?bot=ID, built-ins too): its place on the ladder
 * and its rating over time drawn as SVG (chart.js's geometry), its figures (results by
 * side, reply times), its last matches 50 at a time with "Xem thêm" and a link to each
 * replay, and to its owner the failures by code, each failed match's detail and stderr,
 * and the ladder's actions: leave the table, and play again after a suspension.
 *
 * Reads GET /arena/api/ladder/bots/{id} (404: never ranked, so no chart),
 * GET /arena/api/bots/{id}/matches?before= and GET /arena/api/bots/{id}/figures.
 */

import { ApiError, errorText } from "/kernel/js/api.js";
import { showNetworkError } from "/kernel/js/banner.js";
import { $, button, clear, el, showError } from "/kernel/js/dom.js";
import { getJson, postJson, remove } from "./api.js";
import { myBots, publicBots } from "./bots.js";
import { ratingChart } from "./chart.js";
import { askConfirm } from "./confirm.js";
import { botLink, botName, ladderMeta, loadLadder } from "./ladder.js";
import { BUILTIN_NAMES, figure, historyReason, RESULT_WORDS, shortTime, T } from "./text.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 320;
const HEIGHT = 160;
const PAD = { top: 10, right: 10, bottom: 10, left: 36 };

// The bot shown, and the page of its history to ask for next ("" once all are shown).
let shown = "";
let next = "";
let row = null;
let loading = false;
let openMatch = () => {};

const path = (botId) => encodeURIComponent(botId);
const isMine = (botId) => myBots().some((bot) => bot.id === botId);

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  Object.keys(attributes).forEach((name) => node.setAttribute(name, String(attributes[name])));
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

// The rating over time: μ as a line with a dot per rating, μ ± σ as a band behind it.
function drawChart(ratings, ranked) {
  const box = $("rating-chart");
  clear(box);
  const chart = ratingChart(ratings, WIDTH, HEIGHT, PAD);
  box.hidden = chart.points.length === 0;
  $("rating-note").textContent = chart.points.length > 1 ? ""
    : chart.points.length === 1 ? T.ratingOne : ranked ? T.ratingNoGames : T.ratingNone;
  $("rating-note").hidden = !$("rating-note").textContent;
  if (!chart.points.length) {
    return;
  }
  const picture = svg("svg", {
    viewBox: "0 0 " + WIDTH + " " + HEIGHT, role: "img", class: "chart",
    "aria-label": T.ratingChartLabel(chart.points.length), "data-testid": "rating-svg",
    "data-points": chart.points.length
  });
  chart.ticks.forEach((tick) => {
    picture.appendChild(svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: tick.y, y2: tick.y, class: "chart-grid" }));
    picture.appendChild(svg("text", { x: PAD.left - 4, y: tick.y + 4, class: "chart-tick" }, figure(tick.value)));
  });
  picture.appendChild(svg("path", { d: chart.band, class: "chart-band" }));
  picture.appendChild(svg("path", { d: chart.line, class: "chart-line" }));
  chart.points.forEach((point) => {
    const dot = svg("circle", { cx: point.x, cy: point.y, r: 3, class: "chart-dot" });
    dot.appendChild(svg("title", {}, shortTime(point.ms) + ": " + T.rating(point.mu, point.sigma)));
    picture.appendChild(dot);
  });
  box.appendChild(picture);
}

function drawActions(botId) {
  const actions = $("bot-actions");
  clear(actions);
  const owner = isMine(botId);
  $("bot-suspended").hidden = !(row && row.suspended);
  // The owner is told what to do: the code of an uploaded bot cannot change.
  $("bot-suspended-all").hidden = owner;
  $("bot-suspended-owner").hidden = !owner;
  if (owner && row && row.suspended) {
    const resume = button(T.resume, "btn-small btn-primary", "resume-bot");
    resume.addEventListener("click", () => act(postJson("/ladder/bots/" + path(botId) + "/resume")));
    actions.appendChild(resume);
  }
  if (owner && row) {
    const leave = button(T.unrank, "btn-small btn-ghost", "unrank-bot");
    leave.addEventListener("click", () => {
      askConfirm(actions, T.unrankConfirm(botName(row)), () => act(remove("/ladder/bots/" + path(botId))));
    });
    actions.appendChild(leave);
  }
  actions.hidden = !actions.firstChild;
}

function act(request) {
  request.then(() => {
    showError($("bot-error"), "");
    loadLadder();
    loadRating(shown);
  }, (err) => showError($("bot-error"), errorText(err, T.tryAgain)));
}

function drawHead(botId, name) {
  $("bot-name").textContent = name;
  $("bot-rank").textContent = row ? T.rankLine(row.rank) : "";
  $("bot-rank").hidden = !row;
  $("bot-meta").textContent = row ? ladderMeta(row) : "";
  $("bot-meta").hidden = !row;
  document.title = name + " — Đấu bot";
  drawActions(botId);
}

// The name of a bot not on the ladder: one of mine or a public one, else its id.
function ownName(botId) {
  const own = myBots().concat(publicBots()).find((bot) => bot.id === botId);
  if (own) {
    return own.name;
  }
  return BUILTIN_NAMES[botId] || botId;
}

function loadRating(botId) {
  return getJson("/ladder/bots/" + path(botId)).then((data) => {
    if (shown !== botId) {
      return;
    }
    row = data.row || null;
    drawHead(botId, row ? botName(row) : ownName(botId));
    drawChart(data.ratings || [], Boolean(row));
    $("view-bot").setAttribute("data-ranked", row ? "true" : "false");
  }, (err) => {
    if (shown !== botId) {
      return;
    }
    row = null;
    $("view-bot").setAttribute("data-ranked", "false");
    if (err instanceof ApiError && err.kind === "api" && err.status === 404) {
      drawHead(botId, ownName(botId));
      drawChart([], false);
    } else {
      failed(err, () => loadRating(botId));
    }
  });
}

function failed(err, again) {
  if (err instanceof ApiError && err.kind === "network") {
    showNetworkError(err, again);
  } else {
    showError($("bot-error"), errorText(err, T.tryAgain));
  }
}

function opponentText(opponent) {
  if (!opponent || opponent.deleted) {
    return el("span", "muted", T.deletedBot);
  }
  const name = opponent.builtin && BUILTIN_NAMES[opponent.botId] ? BUILTIN_NAMES[opponent.botId] : opponent.name;
  return opponent.botId ? botLink(opponent.botId, name, "opponent-link") : el("span", "", name);
}

function matchItem(match) {
  const item = el("li", "match-item");
  item.setAttribute("data-testid", "history-match");
  item.setAttribute("data-match-id", match.matchId);
  item.setAttribute("data-result", match.result);
  const head = el("div", "match-head");
  head.appendChild(el("span", "badge badge-" + match.result, RESULT_WORDS[match.result] || match.result));
  const versus = el("span", "match-versus");
  versus.appendChild(document.createTextNode(T.against + " "));
  versus.appendChild(opponentText(match.opponent));
  head.appendChild(versus);
  item.appendChild(head);
  const where = match.ladder ? T.ladderMatch : T.roomMatch(match.roomCode);
  item.appendChild(el("p", "muted small", [T.sideWord(match.side), where, shortTime(match.endedMs)].join(" · ")));
  item.appendChild(el("p", "small match-reason", historyReason(match)));
  if (match.failure) {
    const failure = el("p", "small failure-line");
    failure.appendChild(el("code", "", match.failure.code));
    if (match.failure.detail) {
      failure.appendChild(document.createTextNode(" " + match.failure.detail));
    }
    item.appendChild(failure);
  }
  if (typeof match.stderr === "string" && match.stderr) {
    const details = el("details", "bot-messages");
    details.appendChild(el("summary", "", T.stderrOwn));
    const pre = el("pre", "messages", match.stderr);
    pre.tabIndex = 0;
    details.appendChild(pre);
    item.appendChild(details);
  }
  if (match.replay) {
    const link = el("a", "small", T.watchReplay);
    link.href = "/arena/?match=" + encodeURIComponent(match.matchId);
    link.setAttribute("data-testid", "history-replay");
    link.addEventListener("click", (event) => {
      if (event.button === 0 && !event.ctrlKey && !event.metaKey && !event.shiftKey && !event.altKey) {
        event.preventDefault();
        openMatch(match.matchId);
      }
    });
    link.setAttribute("aria-label", T.watchReplay + ": " + T.against + " " + (match.opponent && !match.opponent.deleted ? match.opponent.name : T.deletedBot));
    item.appendChild(link);
  } else if (match.replayDeleted) {
    // The retention sweep deleted it (B14): the row stays, the link does not.
    const gone = el("span", "small", T.replayDeleted);
    gone.setAttribute("data-testid", "history-replay-deleted");
    item.appendChild(gone);
  }
  return item;
}

function loadMatches(botId) {
  loading = true;
  $("history-more").disabled = true;
  const query = next ? "?before=" + encodeURIComponent(next) : "";
  return getJson("/bots/" + path(botId) + "/matches" + query).then((data) => {
    loading = false;
    if (shown !== botId) {
      return;
    }
    (data.matches || []).forEach((match) => $("history").appendChild(matchItem(match)));
    next = typeof data.next === "string" ? data.next : "";
    $("history-more").hidden = !next;
    $("history-more").disabled = false;
    $("history-empty").hidden = Boolean($("history").firstChild);
  }, (err) => {
    loading = false;
    $("history-more").disabled = false;
    if (shown === botId) {
      failed(err, () => loadMatches(botId));
    }
  });
}

function drawFigures(data, owner) {
  const list = $("bot-figures");
  clear(list);
  const sides = data.bySide || {};
  ["P1", "P2"].forEach((side) => {
    if (sides[side]) {
      list.appendChild(el("li", "", T.bySide(side, sides[side])));
    }
  });
  if (data.replyMs) {
    list.appendChild(el("li", "", T.replyMs(data.replyMs.p50, data.replyMs.p99)));
  }
  $("figures-card").hidden = !list.firstChild && !owner;
  const failures = $("bot-failures");
  clear(failures);
  const codes = Object.keys(data.failures || {}).sort();
  codes.forEach((code) => {
    const item = el("li", "", "");
    item.setAttribute("data-code", code);
    item.appendChild(el("code", "", code));
    item.appendChild(document.createTextNode(": " + T.times(data.failures[code])));
    failures.appendChild(item);
  });
  $("bot-failures-group").hidden = !owner;
  $("bot-no-failures").hidden = codes.length > 0;
}

function loadFigures(botId) {
  return getJson("/bots/" + path(botId) + "/figures").then((data) => {
    if (shown === botId) {
      drawFigures(data, isMine(botId));
    }
  }, (err) => {
    if (shown === botId) {
      failed(err, () => loadFigures(botId));
    }
  });
}

// `showMatch(matchId)` opens a match's replay from the history.
export function initBotPage(showMatch) {
  openMatch = showMatch;
  $("history-more").addEventListener("click", () => {
    if (shown && next && !loading) {
      loadMatches(shown);
    }
  });
}

// Shows the page of `botId` from scratch (after the owner's bots are known, so the
// owner's parts show).
export function openBotPage(botId, bots) {
  shown = botId;
  next = "";
  row = null;
  clear($("history"));
  clear($("bot-actions"));
  $("history-more").hidden = true;
  $("history-empty").hidden = true;
  $("bot-suspended").hidden = true;
  $("bot-failures-group").hidden = true;
  $("figures-card").hidden = true;
  $("rating-chart").hidden = true;
  $("rating-note").hidden = true;
  $("bot-rank").hidden = true;
  $("bot-meta").hidden = true;
  $("bot-name").textContent = ownName(botId);
  $("view-bot").setAttribute("data-bot-id", botId);
  $("view-bot").removeAttribute("data-ranked");
  showError($("bot-error"), "");
  Promise.resolve(bots).then(() => {
    if (shown !== botId) {
      return;
    }
    $("view-bot").setAttribute("data-owner", isMine(botId) ? "true" : "false");
    loadRating(botId);
    loadMatches(botId);
    loadFigures(botId);
  });
}

export function closeBotPage() {
  shown = "";
  next = "";
  row = null;
}

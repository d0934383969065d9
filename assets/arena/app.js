/*
 * Đấu bot — the page "Vào trận" (/arena/): upload bots, manage them, the lobby,
 * create or join a room, watch a match live, play one in person, replay it.
 *
 * ES modules, no build step: index.html loads this entry module, which imports the
 * others from js/ (served next to it) and the kernel both pages share from
 * /kernel/js/ (dom, api's ApiError and fetch, the network banner, storage, the
 * server's clock). The server owns every rule, the clock and the result; the page
 * shows the room's snapshots and sends the person's actions. The contract is
 * docs/arena-api.md.
 *
 *   js/text.js       every Vietnamese string, and pieces/moves put into words
 *   js/storage.js    the owner key and the display name in localStorage
 *   js/api.js        the REST client (X-Owner-Key, errors) and the upload with progress
 *   js/config.js     what the server owns and the page shows (GET /arena/api/config)
 *   js/confirm.js    the inline "are you sure?"
 *   js/bots.js       my bots and the public bots
 *   js/ownerkey.js   the owner key: shown on asking, copied, pasted from another device
 *   js/seats.js      the menus of what sits in a seat
 *   js/upload.js     the upload form and the build's verdict
 *   js/lobby.js      open and live rooms, create, join by code
 *   js/roomstate.js  the room's latest snapshot and the viewer's sides
 *   js/live.js       the room's WebSocket, reconnecting with backoff
 *   js/clock.js      the person's countdown, on the server's clock
 *   js/board.js      the 9×9 grid, turned for the viewer, keyboard cursor
 *   js/play.js       a person's placement and moves
 *   js/pace.js       the live board's pace (×1, ×2, ×4, "trực tiếp"), one turn a step
 *   js/replay.js     the replay of a finished match (read and checked) and its scrubber
 *   js/replayfile.js a replay file from the author's disk, read in the browser
 *   js/room.js       the room view
 *   js/ladder.js     "Bảng xếp hạng": the ladder's table, each row a link to its bot
 *   js/botpage.js    a bot's page: rating chart, figures, history, the owner's actions
 *   js/chart.js      the rating chart's geometry (pure)
 *
 * The room's address is /arena/?room=CODE (a link with #CODE works too), a bot's page
 * /arena/?bot=ID, a finished match's replay from the server /arena/?match=ID (on the
 * room view). A replay file opens the room view without an address of its own (Back
 * returns to the lobby).
 *
 * Stable hooks for browser tests (id and data-testid alike): #view-home, #view-room;
 * #upload-file, #upload-button, #upload-verdict[data-build], #upload-messages;
 * #my-bots > li[data-bot-id][data-build] (bots that built), #failed-bots > li (bots
 * whose build failed); #replay-file, #replay-file-error; #seat-select, #person-name,
 * #opponent-select, #create-button, #join-code, #join-button, #watch-button;
 * #waiting-rooms, #live-rooms; #board (cells [data-testid=cell-R-C] with
 * data-row/data-col in server coordinates, classes selectable/target/placeable/
 * last-to), #view-room[data-phase][data-view][data-mine][data-source], #seat-top,
 * #seat-bottom (.seat-count, .to-move), #turn-counter, #pieces-left, #last-move,
 * #countdown, #tray, #random-button, #ready-button, #pass-button,
 * #pace-box[data-behind], #pace-state, #pace-x1, #pace-x2, #pace-x4, #pace-live,
 * #result-box[data-winner][data-reason][data-role], #result-title, #result-reason,
 * #failure-code, #failure-details, #replay-box, #replay-position, #replay-range,
 * #replay-play, #replay-prev, #replay-next, #replay-download, #surrender-button,
 * [data-testid=confirm-yes], #leave-button; #ladder > li[data-bot-id][data-suspended]
 * (a > the bot's page), #ladder-empty, #live-rooms > li[data-ladder]; #my-bots >
 * li[data-ranked][data-suspended] [data-testid=rank-bot]; #owner-key-none,
 * #owner-key-have, #owner-key-text[data-masked], #owner-key-show, #owner-key-copy,
 * #owner-key-input, #owner-key-use, #owner-key-status, #owner-key-error;
 * #view-bot[data-bot-id][data-ranked][data-owner],
 * #bot-name, #bot-rank, #bot-meta, #bot-suspended (#bot-suspended-owner), [data-testid=resume-bot],
 * [data-testid=unrank-bot], #rating-chart ([data-testid=rating-svg][data-points]),
 * #rating-note, #bot-figures, #bot-failures-group, #bot-failures, #history >
 * li[data-match-id][data-result] ([data-testid=history-replay]), #history-empty,
 * #history-more, #bot-back.
 */

import { hideNetworkError, retryPressed } from "/kernel/js/banner.js";
import { $ } from "/kernel/js/dom.js";
import { getText } from "./js/api.js";
import { closeBotPage, initBotPage, openBotPage } from "./js/botpage.js";
import { loadBots, onBotsChange, redrawBots } from "./js/bots.js";
import { loadConfig, onConfig } from "./js/config.js";
import { initLadder, loadLadder, onLadderChange } from "./js/ladder.js";
import { createRoom, initLobby, joinTyped, normalizeCode, startLobby, stopLobby, watchTyped } from "./js/lobby.js";
import { initOwnerKey } from "./js/ownerkey.js";
import { closeRoom, initRoom, openReplayFile, openRoom, roomVisible } from "./js/room.js";
import { parseReplay } from "./js/replay.js";
import { initReplayFile } from "./js/replayfile.js";
import { fillAllSeatMenus, syncNameRow } from "./js/seats.js";
import { T } from "./js/text.js";
import { submitUpload } from "./js/upload.js";

const CODE = /^[0-9A-Z]{6}$/;

function show(view) {
  $("view-home").hidden = view !== "home";
  $("view-room").hidden = view !== "room";
  $("view-bot").hidden = view !== "bot";
  $("loading").hidden = true;
  document.body.setAttribute("data-view", view);
}

function showHome(push) {
  closeRoom();
  closeBotPage();
  if (push) {
    window.history.pushState({}, "", "/arena/");
  }
  document.title = "Vào trận — Đấu bot";
  show("home");
  startLobby();
  loadLadder().then(() => loadBots());
}

function showRoom(code, room, push) {
  stopLobby();
  closeBotPage();
  if (push) {
    window.history.pushState({ room: code }, "", "/arena/?room=" + code);
  }
  document.title = "Phòng " + code + " — Đấu bot";
  show("room");
  openRoom(code, room);
  window.scrollTo(0, 0);
}

// A bot's page; its owner's parts need the owner's bots, loaded first.
function showBot(botId, push) {
  stopLobby();
  closeRoom();
  if (push) {
    window.history.pushState({ bot: botId }, "", "/arena/?bot=" + encodeURIComponent(botId));
  }
  document.title = "Bot — Đấu bot";
  show("bot");
  openBotPage(botId, loadLadder().then(() => loadBots()));
  window.scrollTo(0, 0);
}

// A finished match's replay from the server (a bot's history links here), on the
// replay viewer a file from the disk opens in.
function showMatch(matchId, push) {
  stopLobby();
  closeRoom();
  closeBotPage();
  if (push) {
    window.history.pushState({ match: matchId }, "", "/arena/?match=" + encodeURIComponent(matchId));
  }
  document.title = T.matchReplayTitle + " — Đấu bot";
  show("room");
  $("room-notice").textContent = T.replayLoading;
  $("room-notice").hidden = false;
  getText("/matches/" + encodeURIComponent(matchId) + "/replay").then((text) => {
    if (new URLSearchParams(window.location.search).get("match") === matchId) {
      openReplayFile("match-" + matchId + ".jsonl", parseReplay(text), T.matchReplayNote);
    }
  }).catch(() => {
    $("room-notice").textContent = T.replayFailed;
    $("room-notice").hidden = false;
  });
  window.scrollTo(0, 0);
}

function showReplayFile(name, parsed) {
  stopLobby();
  window.history.pushState({ replayFile: true }, "", "/arena/");
  document.title = "Bản ghi trận — Đấu bot";
  show("room");
  openReplayFile(name, parsed);
  window.scrollTo(0, 0);
}

// The room the address names: ?room=CODE or #CODE, case-insensitive.
function roomInAddress() {
  const query = new URLSearchParams(window.location.search).get("room") || "";
  const fromHash = window.location.hash.replace(/^#/, "");
  const code = normalizeCode(query || fromHash);
  return CODE.test(code) ? code : "";
}

function route() {
  const query = new URLSearchParams(window.location.search);
  const code = roomInAddress();
  if (query.get("bot")) {
    showBot(query.get("bot"), false);
  } else if (query.get("match")) {
    showMatch(query.get("match"), false);
  } else if (code) {
    showRoom(code, null, false);
  } else {
    showHome(false);
  }
}

function wire() {
  $("upload-form").addEventListener("submit", submitUpload);
  $("create-form").addEventListener("submit", createRoom);
  $("join-form").addEventListener("submit", joinTyped);
  $("watch-button").addEventListener("click", watchTyped);
  $("lobby-refresh").addEventListener("click", startLobby);
  $("ladder-refresh").addEventListener("click", loadLadder);
  $("bot-back").addEventListener("click", () => showHome(true));
  $("ladder-link").addEventListener("click", (event) => {
    event.preventDefault();
    if ($("view-home").hidden) {
      showHome(true);
    }
    $("ladder-card").scrollIntoView({ block: "start" });
  });
  $("retry-button").addEventListener("click", retryPressed);
  $("seat-select").addEventListener("change", () => {
    syncNameRow($("seat-select"), $("person-name-row"), $("person-name"));
  });
  $("home-link").addEventListener("click", (event) => {
    event.preventDefault();
    showHome(true);
  });
  onBotsChange(fillAllSeatMenus);
  onLadderChange(redrawBots);
  onConfig(fillAllSeatMenus);
  window.addEventListener("popstate", route);
  window.addEventListener("hashchange", route);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && $("view-room").hidden === false) {
      roomVisible();
    }
  });
  window.addEventListener("online", hideNetworkError);
}

function boot() {
  initLobby((code, room) => showRoom(code, room, true));
  initRoom(() => showHome(true));
  initReplayFile(showReplayFile);
  initLadder((botId) => showBot(botId, true));
  initBotPage((matchId) => showMatch(matchId, true));
  initOwnerKey();
  wire();
  fillAllSeatMenus();
  loadConfig();
  route();
  if (roomInAddress()) {
    loadBots();
  }
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", boot);
} else {
  boot();
}

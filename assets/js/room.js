/*
 * room.js — room mode (spec B10): people against people on a group's room card.
 *
 * The page is in room mode when its link carries the room claim and api/room/join
 * accepts it. From then on the live feed (a WebSocket, or server-sent events where
 * the socket cannot open) brings the member's full view after every change; the
 * page never polls. Its actions (start, add the bot, a word, give up, leave) are
 * POSTs whose answers are views too.
 *
 * Hooks for browser tests (id and data-testid of the same name):
 *   #screen-room (data-status="lobby|playing", data-you="<seat>|")
 *   #room-status, #room-error, #room-watchers
 *   #room-players   <li> per player: data-seat, data-alive, data-out, .is-turn, .is-you
 *   #room-host      the host's controls: #room-bot-level, #room-bot-button, #room-start
 *   #room-turn-name, #room-countdown (whole seconds), #room-current
 *   #room-word-input, #room-send, #room-reject, #room-give-up (two taps), #room-leave
 *   #room-chain     <li> per word, newest first: data-word, data-seat, .chain-who
 *   #room-result    #room-winner, #room-standings (<li data-seat>), #room-report
 */

import { errorText } from "/kernel/js/api.js";
import { $, el, focusQuietly } from "/kernel/js/dom.js";
import { postOnce } from "./api.js";
import { showScreen } from "./screens.js";
import { ROOM_TEXT, OUT_REASONS, REPORT_TEXT, roomWinner, turnOf } from "./text.js";
import { toInt } from "./values.js";

const TICK_MS = 200;
const RECONNECT_MS = 1000;
const ARM_MS = 3000;

let member = "";
let view = null;
let socket = null;
let events = null;
let useEvents = false;
let stopped = false;
let deadlineLeftMs = 0;
let receivedAt = 0;
let ticker = 0;
let armTimer = 0;
let busy = false;

function now() {
  return window.performance && performance.now ? performance.now() : Date.now();
}

function feedUrl(scheme) {
  const url = new URL("api/room/feed", window.location.href);
  url.search = "?member=" + encodeURIComponent(member);
  url.hash = "";
  if (scheme) {
    url.protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
  }
  return url.toString();
}

function showError(message) {
  const box = $("room-error");
  box.textContent = message || "";
  box.hidden = !message;
}

function playerOf(seat) {
  const players = view && view.players ? view.players : [];
  for (let i = 0; i < players.length; i++) {
    if (players[i].seat === seat) {
      return players[i];
    }
  }
  return null;
}

// --- the feed --------------------------------------------------------------------------

function onFeedMessage(text) {
  let data = null;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return;
  }
  if (!data || typeof data !== "object") {
    return;
  }
  if (typeof data.error === "string") {
    stopped = true;
    showError(data.message || ROOM_TEXT.gone);
    return;
  }
  render(data);
}

function reconnectLater() {
  if (!stopped) {
    window.setTimeout(connect, RECONNECT_MS);
  }
}

function connectEvents() {
  events = new window.EventSource(feedUrl(false));
  events.onmessage = (event) => onFeedMessage(event.data);
  events.onerror = () => {
    // The browser reconnects an event stream by itself; a refused credential ends it.
    if (events && events.readyState === 2) {
      events = null;
      reconnectLater();
    }
  };
}

function connect() {
  if (stopped || !member) {
    return;
  }
  if (useEvents || typeof window.WebSocket !== "function") {
    connectEvents();
    return;
  }
  let opened = false;
  socket = new window.WebSocket(feedUrl(true));
  socket.onopen = () => {
    opened = true;
  };
  socket.onmessage = (event) => onFeedMessage(event.data);
  socket.onclose = () => {
    socket = null;
    if (!opened && typeof window.EventSource === "function") {
      useEvents = true; // this web view cannot open the socket: event stream instead
    }
    reconnectLater();
  };
}

// --- rendering --------------------------------------------------------------------------

function setText(id, text) {
  $(id).textContent = text;
}

function renderPlayers() {
  const list = $("room-players");
  list.textContent = "";
  view.players.forEach((player) => {
    const item = el("li", "room-player");
    item.setAttribute("data-seat", String(player.seat));
    item.setAttribute("data-alive", player.alive ? "true" : "false");
    item.setAttribute("data-out", player.out_reason || "");
    if (view.status === "playing" && view.turn === player.seat) {
      item.classList.add("is-turn");
    }
    if (view.you === player.seat) {
      item.classList.add("is-you");
    }
    item.appendChild(el("span", "room-seat", player.seat + "."));
    const name = el("span", "room-name", player.name || ROOM_TEXT.noName);
    item.appendChild(name);
    const notes = [];
    if (view.you === player.seat) {
      notes.push(ROOM_TEXT.you);
    }
    if (view.host === player.seat) {
      notes.push(ROOM_TEXT.host);
    }
    if (player.out_reason) {
      notes.push(OUT_REASONS[player.out_reason] || player.out_reason);
    }
    if (notes.length) {
      item.appendChild(el("span", "room-note", "(" + notes.join(", ") + ")"));
    }
    if (view.status === "playing") {
      item.appendChild(el("span", "room-points", player.score + " đ"));
    }
    list.appendChild(item);
  });
  setText("room-watchers", view.watchers ? ROOM_TEXT.watchers(view.watchers) : "");
}

function renderChain() {
  const list = $("room-chain");
  list.textContent = "";
  const chain = view.chain || [];
  for (let i = chain.length - 1; i >= 0; i--) {
    const link = chain[i];
    const item = el("li", "chain-item");
    item.setAttribute("data-word", link.word);
    item.setAttribute("data-seat", String(link.seat));
    item.setAttribute("data-by", link.by);
    const row = el("div", "chain-row");
    row.appendChild(el("span", "chain-word", link.word));
    row.appendChild(el("span", "chain-who", link.seat ? link.name : ROOM_TEXT.opening));
    if (link.seat) {
      row.appendChild(el("span", "chain-points", "+" + link.points));
    }
    item.appendChild(row);
    list.appendChild(item);
  }
}

function renderResult() {
  const box = $("room-result");
  const result = view.result;
  box.hidden = !result;
  if (!result) {
    return;
  }
  const winner = playerOf(result.winner);
  const standings = result.standings || [];
  const first = standings.length ? standings[0] : null;
  setText("room-winner", roomWinner(first ? first.name : (winner ? winner.name : ""), result.words));
  const list = $("room-standings");
  list.textContent = "";
  standings.forEach((standing) => {
    const item = el("li", "room-standing");
    item.setAttribute("data-seat", String(standing.seat));
    let text = standing.name + ": " + standing.score + " điểm";
    if (standing.bonus) {
      text += " (" + ROOM_TEXT.bonus(standing.bonus) + ")";
    }
    if (standing.out_reason) {
      text += " — " + (OUT_REASONS[standing.out_reason] || standing.out_reason);
    }
    item.textContent = text;
    list.appendChild(item);
  });
  const report = $("room-report");
  report.setAttribute("data-state", result.score_reported || "");
  report.textContent = REPORT_TEXT[result.score_reported] || "";
}

function statusText() {
  const you = view.you;
  if (view.status === "playing") {
    const me = you ? playerOf(you) : null;
    if (!me) {
      return ROOM_TEXT.watching;
    }
    if (!me.alive) {
      return ROOM_TEXT.out(OUT_REASONS[me.out_reason] || "");
    }
    return view.turn === you ? ROOM_TEXT.yourTurn : turnOf((playerOf(view.turn) || {}).name || "");
  }
  if (you === null || you === undefined) {
    return ROOM_TEXT.waitingWatcher;
  }
  return view.host === you ? ROOM_TEXT.hostLobby : ROOM_TEXT.waiting;
}

function render(next) {
  const wasMyTurn = view && view.status === "playing" && view.turn === view.you;
  view = next;
  const screen = $("screen-room");
  screen.setAttribute("data-status", view.status);
  screen.setAttribute("data-you", view.you ? String(view.you) : "");
  setText("room-status", statusText());
  renderPlayers();
  renderChain();
  renderResult();

  const playing = view.status === "playing";
  const me = view.you ? playerOf(view.you) : null;
  const inGame = playing && !!me && me.alive;
  const myTurn = inGame && view.turn === view.you;
  $("room-hud").hidden = !playing;
  $("room-turn").hidden = !playing;
  $("room-move-form").hidden = !inGame;
  $("room-give-up").hidden = !inGame;
  $("room-word-input").disabled = !myTurn;
  $("room-send").disabled = !myTurn;
  $("room-host").hidden = playing || !view.you || view.host !== view.you;
  $("room-bot-level").value = view.bot || "";
  if (playing) {
    const turnPlayer = playerOf(view.turn);
    setText("room-turn-name", turnPlayer ? turnPlayer.name : "");
    setText("room-current", view.current || "");
    deadlineLeftMs = toInt(view.deadline_ms, 0) - toInt(view.server_now_ms, 0);
    receivedAt = now();
    tick();
  }
  if (myTurn && !wasMyTurn) {
    $("room-reject").textContent = "";
    focusQuietly($("room-word-input"));
  }
  if (!inGame) {
    disarm();
  }
}

function tick() {
  if (!view || view.status !== "playing") {
    return;
  }
  const left = Math.max(deadlineLeftMs - (now() - receivedAt), 0);
  setText("room-countdown", String(Math.ceil(left / 1000)));
  $("room-timer-box").classList.toggle("urgent", left <= 5000);
}

// --- actions ---------------------------------------------------------------------------

function act(route, body) {
  if (busy) {
    return Promise.resolve(null);
  }
  busy = true;
  showError("");
  const payload = Object.assign({ member: member }, body || {});
  return postOnce("room/" + route, payload).then((answer) => {
    busy = false;
    const next = answer && answer.state ? answer.state : answer;
    if (next && next.status) {
      render(next);
    }
    return answer;
  }, (err) => {
    busy = false;
    showError(errorText(err, ROOM_TEXT.network));
    return null;
  });
}

function sendWord() {
  const input = $("room-word-input");
  const word = input.value.trim();
  if (!word) {
    $("room-reject").textContent = ROOM_TEXT.empty;
    return;
  }
  act("move", { word: word }).then((answer) => {
    if (!answer || !answer.result) {
      return;
    }
    if (answer.result.accepted) {
      input.value = "";
      $("room-reject").textContent = "";
    } else {
      $("room-reject").textContent = answer.result.message;
    }
  });
}

function disarm() {
  const button = $("room-give-up");
  button.removeAttribute("data-armed");
  button.textContent = ROOM_TEXT.giveUp;
  window.clearTimeout(armTimer);
}

function giveUpPressed() {
  const button = $("room-give-up");
  if (button.getAttribute("data-armed") !== "true") {
    button.setAttribute("data-armed", "true");
    button.textContent = ROOM_TEXT.giveUpArmed;
    armTimer = window.setTimeout(disarm, ARM_MS);
    return;
  }
  disarm();
  act("give-up");
}

function leave() {
  act("leave").then((answer) => {
    if (answer) {
      stopped = true;
      if (socket) {
        socket.close();
      }
      if (events) {
        events.close();
      }
      showError(ROOM_TEXT.left);
    }
  });
}

function wire() {
  $("room-move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sendWord();
  });
  $("room-give-up").addEventListener("click", giveUpPressed);
  $("room-start").addEventListener("click", () => act("start"));
  $("room-bot-button").addEventListener("click", () => {
    const level = $("room-bot-level").value;
    act("add-bot", { level: level || null });
  });
  $("room-leave").addEventListener("click", leave);
  ticker = window.setInterval(tick, TICK_MS);
}

// Joins with a room link: resolves true in room mode, false when the server says the
// link is not a room's (the caller opens the solo game then).
export function openRoom(token) {
  return postOnce("room/join", { token: token }).then((answer) => {
    member = String(answer.member);
    wire();
    showScreen("room");
    render(answer.room);
    connect();
    return true;
  }, (err) => {
    if (err && err.code === "not_a_room_link") {
      return false;
    }
    showScreen("room");
    $("room-leave").hidden = true;
    showError(errorText(err, ROOM_TEXT.network));
    return true;
  });
}

export function stopRoomClock() {
  window.clearInterval(ticker);
}

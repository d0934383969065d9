/*
 * live.js — the room's WebSocket (/arena/ws/rooms/{code}, same origin, ws:// or
 * wss:// as the page). The server sends a full snapshot on connect and after every
 * change, so a reconnect is correct at once; a dropped connection is opened again
 * with a growing pause (1 s, 2 s, 4 s … at most 15 s) until the server says "end".
 *
 * watch(code, {onRoom, onEnd, onMissing, onState}) replaces any earlier watch;
 * stopWatching() ends it.
 */

const FIRST_PAUSE_MS = 1000;
const LONGEST_PAUSE_MS = 15000;

let socket = null;
let current = null; // {code, callbacks, pause, timer, ended}

function url(code) {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return scheme + "//" + window.location.host + "/arena/ws/rooms/" + encodeURIComponent(code);
}

function connect(watching) {
  let opened;
  try {
    opened = new WebSocket(url(watching.code));
  } catch (e) {
    retry(watching);
    return;
  }
  socket = opened;
  opened.addEventListener("message", (event) => {
    if (current !== watching) {
      return;
    }
    let message = null;
    try {
      message = JSON.parse(event.data);
    } catch (e) {
      return;
    }
    if (!message || typeof message !== "object") {
      return;
    }
    if (message.type === "room" && message.room) {
      watching.pause = FIRST_PAUSE_MS;
      watching.callbacks.onState(true);
      watching.callbacks.onRoom(message.room);
    } else if (message.type === "end") {
      watching.ended = true;
      watching.callbacks.onEnd();
    } else if (message.type === "error") {
      if (message.error === "busy") {
        return; // the server's store is away: the close (1011) that follows retries
      }
      watching.ended = true;
      watching.callbacks.onMissing(message.message || "");
    }
  });
  opened.addEventListener("close", (event) => {
    if (current !== watching || socket !== opened) {
      return;
    }
    socket = null;
    if (watching.ended || event.code === 4404) {
      if (event.code === 4404 && !watching.ended) {
        watching.ended = true;
        watching.callbacks.onMissing("");
      }
      return;
    }
    watching.callbacks.onState(false);
    retry(watching);
  });
}

function retry(watching) {
  watching.timer = window.setTimeout(() => {
    if (current === watching) {
      connect(watching);
    }
  }, watching.pause);
  watching.pause = Math.min(LONGEST_PAUSE_MS, watching.pause * 2);
}

export function stopWatching() {
  if (current) {
    window.clearTimeout(current.timer);
  }
  current = null;
  if (socket) {
    const closing = socket;
    socket = null;
    try {
      closing.close(1000);
    } catch (e) {
      /* already closed */
    }
  }
}

export function watch(code, callbacks) {
  stopWatching();
  current = { code: code, callbacks: callbacks, pause: FIRST_PAUSE_MS, timer: 0, ended: false };
  connect(current);
}

// After the tab comes back: a watch waiting out its pause connects now.
export function reconnectNow() {
  if (current && !socket && !current.ended) {
    window.clearTimeout(current.timer);
    current.pause = FIRST_PAUSE_MS;
    connect(current);
  }
}

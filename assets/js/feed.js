/*
 * feed.js — a room member's live feed (spec B10): a WebSocket, or server-sent events
 * where the socket cannot open, bringing the member's full view after every change.
 *
 * What comes is sorted here: a view goes to `onView`; `{"replaced": true}` (another
 * page took this member's place) and a refused credential or a closed room end the
 * feed for good (`onEnd(kind, message)`, kind "replaced", "no_member", "room_gone" or
 * "bad_request"); anything else that breaks the link is a drop: `onState(false)`
 * at once, then a new connection after a growing pause (none while the browser says
 * it is offline: `online()` reconnects), and `onState(true)` with the next view.
 *
 * Owns its connection and its timer; needs window.WebSocket or window.EventSource.
 */

const PAUSES_MS = [1000, 2000, 4000, 5000];
const ENDINGS = ["no_member", "room_gone", "bad_request"];
const CLOSED = 2; // EventSource.CLOSED

// `urlOf(socket)`: the feed's URL for a WebSocket (true) or an event stream (false).
// `handlers`: onView(view), onState(connected), onEnd(kind, message).
export function openFeed(urlOf, handlers) {
  let socket = null;
  let events = null;
  let useEvents = false;
  let ended = false;
  let connected = true;
  let drops = 0;
  let timer = 0;
  let generation = 0;

  function setConnected(flag) {
    if (connected !== flag) {
      connected = flag;
      handlers.onState(flag);
    }
  }

  function detach() {
    generation += 1;
    if (socket) {
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      try {
        socket.close();
      } catch (e) {
        /* already closed */
      }
      socket = null;
    }
    if (events) {
      events.onmessage = events.onerror = null;
      events.close();
      events = null;
    }
  }

  function end(kind, message) {
    ended = true;
    window.clearTimeout(timer);
    timer = 0;
    detach();
    handlers.onEnd(kind, message || "");
  }

  function onMessage(text) {
    let data = null;
    try {
      data = JSON.parse(text);
    } catch (e) {
      return;
    }
    if (!data || typeof data !== "object") {
      return;
    }
    if (data.replaced === true) {
      end("replaced", "");
      return;
    }
    if (typeof data.error === "string") {
      if (ENDINGS.indexOf(data.error) >= 0) {
        end(data.error, data.message);
      }
      return; // e.g. busy: the close that follows is a drop
    }
    if (typeof data.status === "string") {
      drops = 0;
      setConnected(true);
      handlers.onView(data);
    }
  }

  function offline() {
    return !!window.navigator && window.navigator.onLine === false;
  }

  function dropped() {
    detach();
    setConnected(false);
    if (ended || timer || offline()) {
      return; // offline: online() reconnects
    }
    const pause = PAUSES_MS[Math.min(drops, PAUSES_MS.length - 1)];
    drops += 1;
    timer = window.setTimeout(() => {
      timer = 0;
      connect();
    }, pause);
  }

  function connectEvents(mine) {
    events = new window.EventSource(urlOf(false));
    events.onmessage = (event) => {
      if (mine === generation) {
        onMessage(event.data);
      }
    };
    events.onerror = () => {
      if (mine !== generation) {
        return;
      }
      // The browser reconnects an event stream by itself; when it gives up, so do we.
      if (events && events.readyState === CLOSED) {
        dropped();
      } else {
        setConnected(false);
      }
    };
  }

  function connect() {
    if (ended) {
      return;
    }
    detach();
    const mine = generation;
    if (useEvents || typeof window.WebSocket !== "function") {
      connectEvents(mine);
      return;
    }
    let opened = false;
    socket = new window.WebSocket(urlOf(true));
    socket.onopen = () => {
      opened = true;
    };
    socket.onmessage = (event) => {
      if (mine === generation) {
        onMessage(event.data);
      }
    };
    socket.onclose = () => {
      if (mine !== generation) {
        return;
      }
      socket = null;
      if (!opened && typeof window.EventSource === "function") {
        useEvents = true; // this web view cannot open the socket: event stream instead
      }
      dropped();
    };
  }

  connect();

  return {
    // The browser lost the network: the link is as good as gone.
    offline() {
      if (!ended) {
        window.clearTimeout(timer);
        timer = 0;
        dropped();
      }
    },
    // The network is back, or the page is seen again with its link down: now.
    online() {
      if (!ended && (!connected || (!socket && !events))) {
        window.clearTimeout(timer);
        timer = 0;
        connect();
      }
    },
    close() {
      if (!ended) {
        ended = true;
        window.clearTimeout(timer);
        timer = 0;
        detach();
      }
    },
    isConnected() {
      return connected && !ended;
    }
  };
}

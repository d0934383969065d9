/*
 * pace.js — the live board's pace (spec B6, "Watching"). The WebSocket hands over
 * every snapshot at once, and a match between fast bots is over in under a second; a
 * watcher's page keeps the positions not shown yet in a queue and shows one turn
 * every STEP_MS / speed (×1, ×2, ×4), or the newest at once after "trực tiếp". The
 * snapshot on screen is then not always the newest one: behind() says by how many
 * turns. STEP_MS is also the replay's step when it plays by itself.
 *
 * onPaced(show) hears each snapshot to put on screen; offer(room) hands one over.
 */

export const STEP_MS = 300;
export const SPEEDS = [1, 2, 4];

let queue = []; // snapshots not shown yet, oldest first
let current = null; // the snapshot on screen
let speed = 1;
let timer = 0;
let shownAt = 0; // when the turn on screen was put there
let show = () => {};

export function onPaced(callback) {
  show = callback;
}

export const speedNow = () => speed;

const inPlay = (room) => room.phase === "PLAYING" || room.phase === "FINISHED";

function display(room) {
  if (!current || current.turn !== room.turn) {
    shownAt = Date.now();
  }
  current = room;
  show(room);
}

function tick() {
  timer = 0;
  if (queue.length) {
    display(queue.shift());
  }
  schedule();
}

function schedule() {
  if (timer || !queue.length) {
    return;
  }
  const wait = Math.max(0, shownAt + STEP_MS / speed - Date.now());
  timer = window.setTimeout(tick, wait);
}

// A snapshot of a later turn waits its turn; any other (the same turn with news, a
// phase before play) replaces the last one waiting, or the one on screen.
export function offer(room) {
  const tail = queue.length ? queue[queue.length - 1] : current;
  const later = Boolean(tail) && inPlay(room) && inPlay(tail) && room.turn !== tail.turn;
  if (!later) {
    if (queue.length) {
      queue[queue.length - 1] = room;
    } else {
      display(room);
    }
    return;
  }
  queue.push(room);
  schedule();
}

// Turns between the position on screen and the newest received.
export function behind() {
  if (!queue.length || !current) {
    return 0;
  }
  return Math.max(0, queue[queue.length - 1].turn - current.turn);
}

// "Trực tiếp": the newest snapshot, now.
export function catchUp() {
  window.clearTimeout(timer);
  timer = 0;
  if (queue.length) {
    const newest = queue[queue.length - 1];
    queue = [];
    display(newest);
  }
}

export function setSpeed(wanted) {
  speed = SPEEDS.indexOf(wanted) >= 0 ? wanted : 1;
  window.clearTimeout(timer);
  timer = 0;
  schedule();
}

// A new room: nothing waits, nothing is on screen (the speed chosen stays).
export function resetPace() {
  window.clearTimeout(timer);
  timer = 0;
  queue = [];
  current = null;
  shownAt = 0;
}

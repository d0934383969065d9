// Hand-written stand-ins for the few browser objects the pages' modules touch: a
// document of elements by id, a Storage, and timers that run only when told to.

export class FakeElement {
  constructor(tag) {
    this.tagName = String(tag).toUpperCase();
    this.className = "";
    this.textContent = "";
    this.hidden = false;
    this.type = "";
    this.attributes = {};
    this.children = [];
  }

  setAttribute(name, value) {
    this.attributes[name] = String(value);
  }

  addEventListener(type, listener) {
    this.listeners = this.listeners || {};
    (this.listeners[type] = this.listeners[type] || []).push(listener);
  }

  appendChild(child) {
    this.children.push(child);
    return child;
  }

  removeChild(child) {
    this.children.splice(this.children.indexOf(child), 1);
    return child;
  }

  get firstChild() {
    return this.children[0] || null;
  }
}

export class FakeDocument {
  constructor(ids) {
    this.byId = {};
    (ids || []).forEach((id) => {
      this.byId[id] = new FakeElement("div");
    });
  }

  getElementById(id) {
    return this.byId[id] || null;
  }

  createElement(tag) {
    return new FakeElement(tag);
  }
}

// A Storage; `broken` makes every call throw, as a browser with storage disabled does.
export class FakeStorage {
  constructor(broken) {
    this.broken = Boolean(broken);
    this.items = new Map();
  }

  check() {
    if (this.broken) {
      throw new Error("SecurityError: storage is disabled");
    }
  }

  getItem(key) {
    this.check();
    return this.items.has(key) ? this.items.get(key) : null;
  }

  setItem(key, value) {
    this.check();
    this.items.set(key, String(value));
  }

  removeItem(key) {
    this.check();
    this.items.delete(key);
  }
}

// window.setTimeout and clearTimeout whose callbacks wait for runDue().
export class FakeTimers {
  constructor() {
    this.pending = new Map();
    this.next = 1;
    this.setTimeout = (callback, ms) => {
      const id = this.next++;
      this.pending.set(id, { callback, ms });
      return id;
    };
    this.clearTimeout = (id) => {
      this.pending.delete(id);
    };
  }

  // Runs every callback waiting now (not those they schedule).
  runDue() {
    const due = Array.from(this.pending.entries());
    this.pending.clear();
    due.forEach(([, entry]) => entry.callback());
  }
}

// Installs `window` (and `document`) for the modules under test; returns the window.
export function installWindow(extra) {
  const timers = new FakeTimers();
  const win = Object.assign({ setTimeout: timers.setTimeout, clearTimeout: timers.clearTimeout, atob: globalThis.atob }, extra || {});
  win.timers = timers;
  globalThis.window = win;
  globalThis.document = win.document || new FakeDocument([]);
  return win;
}

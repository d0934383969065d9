/*
 * dom.js — the few DOM helpers both pages' modules use. Stateless.
 */

export function $(id) {
  return document.getElementById(id);
}

// A new element with an optional class and text.
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined && text !== null) {
    node.textContent = String(text);
  }
  return node;
}

// A button of the pages' style; `testid` also becomes its data-testid.
export function button(text, className, testid) {
  const node = el("button", "btn " + (className || ""), text);
  node.type = "button";
  if (testid) {
    node.setAttribute("data-testid", testid);
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) {
    node.removeChild(node.firstChild);
  }
}

// Shows `text` in an error paragraph (hidden when empty).
export function showError(node, text) {
  node.textContent = text || "";
  node.hidden = !text;
}

// Focuses without scrolling where the browser supports it.
export function focusQuietly(node) {
  try {
    node.focus({ preventScroll: true });
  } catch (e) {
    node.focus();
  }
}

export function prefersReducedMotion() {
  return Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

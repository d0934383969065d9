/*
 * dom.js — the few DOM helpers every view module uses. Stateless.
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

// Focuses without scrolling where the browser supports it.
export function focusQuietly(node) {
  try {
    node.focus({ preventScroll: true });
  } catch (e) {
    node.focus();
  }
}

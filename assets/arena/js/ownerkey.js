/*
 * ownerkey.js — "Khóa chủ" in "Bot của tôi": the owner key this browser keeps (spec B5),
 * masked but for its last characters until the person asks to see it, with "Sao chép";
 * and the form that takes a key pasted from another device. A pasted key is checked
 * first (its form, then that the server holds bots of it), so a mistyped key never
 * replaces a good one; replacing a key the page already has is asked first. Once
 * taken, the page lists that owner's bots.
 */

import { errorText } from "/kernel/js/api.js";
import { $, el, clear, showError } from "/kernel/js/dom.js";
import { getJsonAs } from "./api.js";
import { loadBots } from "./bots.js";
import { askConfirm } from "./confirm.js";
import { normalizeOwnerKey, onOwnerKeyChange, ownerKey, rememberOwnerKey } from "./storage.js";
import { T } from "./text.js";

const SHOWN_TAIL = 4;
let revealed = false;

function status(text) {
  $("owner-key-status").textContent = text || "";
}

function drawKey() {
  const key = ownerKey();
  $("owner-key-have").hidden = !key;
  $("owner-key-none").hidden = Boolean(key);
  const text = $("owner-key-text");
  clear(text);
  text.setAttribute("data-masked", revealed ? "false" : "true");
  if (key && revealed) {
    text.textContent = key;
  } else if (key) {
    text.appendChild(el("span", "visually-hidden", T.keyMasked));
    const dots = el("span", "key-dots", "•".repeat(key.length - SHOWN_TAIL));
    dots.setAttribute("aria-hidden", "true");
    text.appendChild(dots);
    text.appendChild(document.createTextNode(key.slice(-SHOWN_TAIL)));
  }
  $("owner-key-show").textContent = revealed ? T.keyHide : T.keyShow;
  $("owner-key-show").setAttribute("aria-pressed", revealed ? "true" : "false");
}

function toggle() {
  revealed = !revealed;
  drawKey();
}

// Copies the whole key (shown or not); where the browser refuses, shows it selected.
function copy() {
  const key = ownerKey();
  if (!key) {
    return;
  }
  const refused = () => {
    revealed = true;
    drawKey();
    const range = document.createRange();
    range.selectNodeContents($("owner-key-text"));
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    status(T.keyCopyFailed);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(key).then(() => status(T.keyCopied), refused);
  } else {
    refused();
  }
}

function take(key) {
  rememberOwnerKey(key);
  $("owner-key-input").value = "";
  return loadBots();
}

function use(event) {
  event.preventDefault();
  showError($("owner-key-error"), "");
  status("");
  const key = normalizeOwnerKey($("owner-key-input").value);
  if (!key) {
    showError($("owner-key-error"), T.keyBad);
    $("owner-key-input").focus();
    return;
  }
  if (key === ownerKey()) {
    status(T.keySame);
    return;
  }
  status(T.keyChecking);
  getJsonAs("/bots", key).then((data) => {
    const bots = (data && data.bots) || [];
    status("");
    if (!bots.length) {
      showError($("owner-key-error"), T.keyNoBots);
      return;
    }
    const apply = () => take(key).then(() => status(T.keyUsed(bots.length)));
    if (ownerKey()) {
      askConfirm($("owner-key-use"), T.keyReplace, apply);
    } else {
      apply();
    }
  }, (err) => {
    status("");
    showError($("owner-key-error"), errorText(err, T.tryAgain));
  });
}

export function initOwnerKey() {
  $("owner-key-show").addEventListener("click", toggle);
  $("owner-key-copy").addEventListener("click", copy);
  $("owner-key-form").addEventListener("submit", use);
  onOwnerKeyChange(() => {
    revealed = false;
    drawKey();
  });
  drawKey();
}

/*
 * confirm.js — an inline "are you sure?" next to the button that asked (a delete, a
 * surrender, leaving a live match). One at a time; it never blocks the page the way
 * window.confirm would.
 */

import { button, el } from "/kernel/js/dom.js";
import { T } from "./text.js";

let open = null;

export function closeConfirm() {
  if (open && open.parentNode) {
    open.parentNode.removeChild(open);
  }
  open = null;
}

// Shows `text` with Đồng ý / Thôi right after `anchor`; Đồng ý runs onYes().
export function askConfirm(anchor, text, onYes) {
  closeConfirm();
  const box = el("div", "confirm");
  box.setAttribute("role", "alertdialog");
  box.setAttribute("data-testid", "confirm-box");
  const question = el("p", "confirm-text", text);
  question.id = "confirm-text";
  box.setAttribute("aria-labelledby", question.id);
  const row = el("div", "button-row");
  const yes = button(T.yes, "btn-danger btn-small", "confirm-yes");
  const no = button(T.no, "btn-small", "confirm-no");
  yes.addEventListener("click", () => {
    closeConfirm();
    onYes();
  });
  no.addEventListener("click", () => {
    closeConfirm();
    anchor.focus();
  });
  box.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      closeConfirm();
      anchor.focus();
    }
  });
  row.appendChild(yes);
  row.appendChild(no);
  box.appendChild(question);
  box.appendChild(row);
  anchor.insertAdjacentElement("afterend", box);
  open = box;
  yes.focus();
}

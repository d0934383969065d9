/*
 * chain.js — the chain of words: #chain on the play screen and #end-chain on the end
 * screen, each <li> with its points (the bot's shown apart: they do not count) and,
 * for a word the dictionary gives meanings to, its "Nghĩa" toggle and panel.
 *
 * Owns, per list, how many words it shows and for which session, so a growing chain
 * only adds its new words (newest on top) and open panels stay open.
 */

import { $, el } from "/kernel/js/dom.js";
import { botPoints, botPointsLabel, meaningOf, pointsLabel, TEXT } from "./text.js";
import { itemWord, toInt } from "./values.js";

const LISTS = {
  play: { list: "chain", count: "chain-count" },
  end: { list: "end-chain", count: "end-chain-count" }
};

const rendered = { play: 0, end: 0 };
const renderedSession = { play: "", end: "" };
let meaningSeq = 0;

// The meanings of a word (or a suggestion) worth showing; often none (the shipped
// dictionary has no glosses).
function meaningsOf(item) {
  const meanings = item && typeof item === "object" && Array.isArray(item.meanings) ? item.meanings : [];
  return meanings.filter((m) => m && (typeof m === "string" || m.gloss));
}

// The meanings of a word (or a suggestion) as a block of paragraphs; null when it
// has none, so nothing is shown for it.
export function renderMeanings(item) {
  const list = meaningsOf(item);
  if (!list.length) {
    return null;
  }
  // No nested <li> here, so "#chain li" and "#suggestions li" only match words.
  const ul = el("div", "meaning-list");
  ul.setAttribute("role", "list");
  list.forEach((m) => {
    const li = el("p", "meaning");
    li.setAttribute("role", "listitem");
    if (typeof m === "string") {
      li.textContent = m;
    } else {
      if (m.pos) {
        li.appendChild(el("span", "pos", m.pos));
        li.appendChild(document.createTextNode(" "));
      }
      li.appendChild(el("span", "gloss", m.gloss));
    }
    ul.appendChild(li);
  });
  return ul;
}

function chainItem(item, index) {
  const by = item && item.by === "player" ? "player" : "bot";
  const word = itemWord(item);
  const li = el("li", "chain-item");
  li.setAttribute("data-by", by);
  li.setAttribute("data-word", word);
  li.setAttribute("data-index", String(index));

  const row = el("div", "chain-row");
  const who = el("span", "chain-who", by === "player" ? TEXT.you : TEXT.bot);
  row.appendChild(who);
  row.appendChild(el("span", "chain-word", word));
  const points = toInt(item && item.points, 0);
  if (by === "player") {
    row.appendChild(pointsBadge("chain-points", "+" + points, pointsLabel(points)));
  } else if (points > 0) {
    // The opening has no points; the bot's replies have, shown but not counted.
    row.appendChild(pointsBadge("chain-bot-points", botPoints(points), botPointsLabel(points)));
  }
  const meanings = renderMeanings(item);
  if (meanings) {
    addMeanings(li, row, word, meanings);
  } else {
    li.appendChild(row);
  }
  return li;
}

// The points as the eye sees them ("+12"), and as a screen reader says them.
function pointsBadge(className, shown, spoken) {
  const badge = el("span", className);
  const visible = el("span", "", shown);
  visible.setAttribute("aria-hidden", "true");
  badge.appendChild(visible);
  badge.appendChild(el("span", "visually-hidden", spoken));
  return badge;
}

// The "Nghĩa" toggle at the end of the row, and the panel it opens under it.
function addMeanings(li, row, word, meanings) {
  const panelId = "meaning-" + (++meaningSeq);
  const toggle = el("button", "meaning-toggle", TEXT.meaning);
  toggle.type = "button";
  toggle.setAttribute("aria-expanded", "false");
  toggle.setAttribute("aria-controls", panelId);
  toggle.setAttribute("aria-label", meaningOf(word));
  row.appendChild(toggle);
  li.appendChild(row);

  const panel = el("div", "meanings");
  panel.id = panelId;
  panel.hidden = true;
  panel.appendChild(meanings);
  li.appendChild(panel);
}

// Shows `chain` (oldest first, as the server sends it) in the "play" or "end" list.
// Chains only grow during a game, so new words are prepended (newest on top)
// and open meaning panels stay open.
export function renderChain(which, chain, session) {
  const list = $(LISTS[which].list);
  if (renderedSession[which] !== session || chain.length < rendered[which]) {
    list.textContent = "";
    rendered[which] = 0;
    renderedSession[which] = session;
  }
  for (let i = rendered[which]; i < chain.length; i++) {
    const li = chainItem(chain[i], i + 1);
    list.insertBefore(li, list.firstChild);
  }
  rendered[which] = chain.length;
  const fresh = list.querySelector(".chain-item.newest");
  if (fresh) {
    fresh.classList.remove("newest");
  }
  if (list.firstChild) {
    list.firstChild.classList.add("newest");
  }
  const count = $(LISTS[which].count);
  count.textContent = chain.length ? "(" + chain.length + TEXT.words + ")" : "";
}

// The click handler of both lists: opens or closes a word's meanings.
export function onChainClick(event) {
  const toggle = event.target.closest ? event.target.closest(".meaning-toggle") : null;
  if (!toggle) {
    return;
  }
  const panel = $(toggle.getAttribute("aria-controls"));
  const open = toggle.getAttribute("aria-expanded") !== "true";
  toggle.setAttribute("aria-expanded", open ? "true" : "false");
  if (panel) {
    panel.hidden = !open;
  }
}

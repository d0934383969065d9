/*
 * upload.js — "Tải bot lên": sends the file with a progress bar, then shows the
 * build's verdict at once (ok, or the compiler's messages in a scrollable block),
 * says how long the build waited for its turn (one build per core at once on the
 * server), refreshes the bot lists and picks the new bot for the next room.
 */

import { errorText } from "/kernel/js/api.js";
import { $ } from "/kernel/js/dom.js";
import { uploadBot } from "./api.js";
import { loadBots } from "./bots.js";
import { T } from "./text.js";

let sending = false;

function status(text) {
  $("upload-status").textContent = text;
}

function verdict(bot, waitedMs) {
  const ok = bot.build === "ok";
  $("upload-verdict").hidden = false;
  $("upload-verdict").setAttribute("data-build", bot.build);
  $("upload-verdict").className = "verdict " + (ok ? "verdict-ok" : "verdict-failed");
  $("upload-verdict-title").textContent = ok ? T.buildOk : T.buildFailed;
  const messages = $("upload-messages");
  messages.textContent = bot.buildMessages || "";
  messages.hidden = ok || !bot.buildMessages;
  const seconds = Math.round((waitedMs || 0) / 1000);
  $("upload-waited").textContent = seconds >= 1 ? T.buildWaited(seconds) : "";
  $("upload-waited").hidden = seconds < 1;
}

function done() {
  sending = false;
  $("upload-button").disabled = false;
  $("upload-progress-row").hidden = true;
}

export function submitUpload(event) {
  event.preventDefault();
  if (sending) {
    return;
  }
  const input = $("upload-file");
  const file = input.files && input.files[0];
  $("upload-verdict").hidden = true;
  if (!file) {
    status(T.chooseFile);
    return;
  }
  sending = true;
  $("upload-button").disabled = true;
  $("upload-progress").value = 0;
  $("upload-progress-row").hidden = false;
  status(T.uploading);
  uploadBot(file, $("upload-name").value.trim(), (fraction) => {
    $("upload-progress").value = Math.round(fraction * 100);
    if (fraction >= 1) {
      status(T.building);
    }
  }).then((answer) => {
    done();
    status("");
    verdict(answer.bot, answer.buildWaitMs);
    return loadBots().then(() => {
      if (answer.bot.build === "ok") {
        $("seat-select").value = "upload:" + answer.bot.id;
        $("seat-select").dispatchEvent(new Event("change"));
      }
    });
  }, (err) => {
    done();
    status(errorText(err, T.networkError));
  });
}

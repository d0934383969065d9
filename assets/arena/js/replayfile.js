/*
 * replayfile.js — "Xem bản ghi trận": a replay file from the author's disk (the
 * `.jsonl` of `noitu arena match --replay`, spec B4), read in the browser and never
 * uploaded. A file that is not a replay gets a message saying why; a good one opens
 * with the `open(name, parsed)` given to initReplayFile.
 */

import { $, showError } from "/kernel/js/dom.js";
import { parseReplay, ReplayError } from "./replay.js";
import { T } from "./text.js";

// A 200-turn replay is about 1 MB; anything far larger is not one.
const LARGEST_MB = 64;

let open = () => {};

// The parsed replay of `file`, or a rejection whose message is the Vietnamese reason.
export function readReplayFile(file) {
  if (file.size > LARGEST_MB * 1024 * 1024) {
    return Promise.reject(new ReplayError(T.replayFileTooBig(LARGEST_MB)));
  }
  return file.text().then((text) => parseReplay(text), (err) => {
    throw err instanceof ReplayError ? err : new ReplayError(T.replayFileUnreadable);
  });
}

function chosen() {
  const input = $("replay-file");
  const file = input.files && input.files[0];
  showError($("replay-file-error"), "");
  if (!file) {
    return;
  }
  readReplayFile(file).then((parsed) => {
    input.value = "";
    open(file.name, parsed);
  }, (err) => {
    input.value = "";
    const why = err instanceof ReplayError ? err.message : T.replayFileUnreadable;
    showError($("replay-file-error"), T.replayFileBad(why));
  });
}

export function initReplayFile(openReplay) {
  open = openReplay;
  $("replay-file").addEventListener("change", chosen);
}

/*
 * api.js — the client of the arena's REST API under /arena/api/ (docs/arena-api.md),
 * built on the kernel's fetch and ApiError.
 *
 * Every call sends the owner key (X-Owner-Key) when the page has one, and keeps the
 * key an answer brings (`ownerKey`). A reply is the answer's JSON (or text), or a
 * rejection with an ApiError: kind "api" when the server said {"error","message"},
 * kind "network" for everything else (offline, a timeout, a proxy's page).
 */

import { ApiError, failure, fetchWithTimeout, offline, parseJson } from "/kernel/js/api.js";
import { ownerKey, rememberOwnerKey } from "./storage.js";

export const API = "/arena/api";
const UPLOAD_TIMEOUT_MS = 120000;

// `key`: the owner key to send instead of the page's own (a pasted one, tried first).
function headers(extra, key) {
  const all = { "Accept": "application/json" };
  key = key === undefined ? ownerKey() : key;
  if (key) {
    all["X-Owner-Key"] = key;
  }
  Object.keys(extra || {}).forEach((name) => {
    all[name] = extra[name];
  });
  return all;
}

// The answer as parsed JSON (null for an empty body); errors as ApiError.
function settle(status, ok, text) {
  const data = parseJson(text);
  if (ok && data !== undefined) {
    if (data && typeof data.ownerKey === "string") {
      rememberOwnerKey(data.ownerKey);
    }
    return data;
  }
  throw failure(status, data);
}

function send(method, path, body, asText, key) {
  const init = {
    method: method,
    headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }, key),
    cache: "no-store",
    credentials: "same-origin"
  };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
  }
  return fetchWithTimeout(API + path, init).then((response) => {
    if (asText && response.ok) {
      return asText === "blob" ? response.blob() : response.text();
    }
    return response.text().then((text) => settle(response.status, response.ok, text));
  });
}

export const getJson = (path) => send("GET", path);
export const postJson = (path, body) => send("POST", path, body === undefined ? {} : body);
export const patchJson = (path, body) => send("PATCH", path, body);
export const putJson = (path) => send("PUT", path);
export const remove = (path) => send("DELETE", path);
export const getText = (path) => send("GET", path, undefined, "text");
export const getBlob = (path) => send("GET", path, undefined, "blob");
// A GET as the owner of `key` (not the page's own key), e.g. the bots of a pasted key.
export const getJsonAs = (path, key) => send("GET", path, undefined, undefined, key);

// Uploads a bot (multipart: `file`, optional `name`) with XMLHttpRequest, whose upload
// events give the progress: onProgress(fraction from 0 to 1).
export function uploadBot(file, name, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", API + "/bots");
    const all = headers({});
    Object.keys(all).forEach((header) => xhr.setRequestHeader(header, all[header]));
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable && event.total > 0) {
        onProgress(event.loaded / event.total);
      }
    });
    xhr.addEventListener("load", () => {
      try {
        resolve(settle(xhr.status, xhr.status >= 200 && xhr.status < 300, xhr.responseText));
      } catch (err) {
        reject(err);
      }
    });
    xhr.addEventListener("error", () => reject(offline()));
    xhr.addEventListener("timeout", () => reject(new ApiError("network", "timeout", "", 0)));
    xhr.timeout = UPLOAD_TIMEOUT_MS;
    const form = new FormData();
    form.append("file", file, file.name);
    if (name) {
      form.append("name", name);
    }
    xhr.send(form);
  });
}

/*
 * api.js — the client of the arena's REST API under /arena/api/ (docs/arena-api.md).
 *
 * Every call sends the owner key (X-Owner-Key) when the page has one, and keeps the
 * key an answer brings (`ownerKey`). A reply is the answer's JSON (or text), or a
 * rejection with an ApiError: kind "api" when the server said {"error","message"},
 * kind "network" for everything else (offline, a timeout, a proxy's page).
 */

import { ownerKey, rememberOwnerKey } from "./storage.js";

export const API = "/arena/api";
const TIMEOUT_MS = 15000;

export class ApiError {
  constructor(kind, code, message, status) {
    this.kind = kind; // "api" or "network"
    this.code = code || "";
    this.message = message || "";
    this.status = status || 0;
  }
}

function headers(extra) {
  const all = { "Accept": "application/json" };
  const key = ownerKey();
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
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    data = undefined;
  }
  if (ok && data !== undefined) {
    if (data && typeof data.ownerKey === "string") {
      rememberOwnerKey(data.ownerKey);
    }
    return data;
  }
  if (data && typeof data.error === "string") {
    throw new ApiError("api", data.error, data.message, status);
  }
  throw new ApiError("network", "http_" + status, "", status);
}

function send(method, path, body, asText) {
  const controller = new AbortController();
  const timer = window.setTimeout(() => controller.abort(), TIMEOUT_MS);
  const init = {
    method: method,
    headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }),
    cache: "no-store",
    credentials: "same-origin",
    signal: controller.signal
  };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
  }
  return window.fetch(API + path, init).then((response) => {
    window.clearTimeout(timer);
    if (asText && response.ok) {
      return asText === "blob" ? response.blob() : response.text();
    }
    return response.text().then((text) => settle(response.status, response.ok, text));
  }, () => {
    window.clearTimeout(timer);
    throw new ApiError("network", "offline", "", 0);
  });
}

export const getJson = (path) => send("GET", path);
export const postJson = (path, body) => send("POST", path, body === undefined ? {} : body);
export const patchJson = (path, body) => send("PATCH", path, body);
export const remove = (path) => send("DELETE", path);
export const getText = (path) => send("GET", path, undefined, "text");
export const getBlob = (path) => send("GET", path, undefined, "blob");

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
    xhr.addEventListener("error", () => reject(new ApiError("network", "offline", "", 0)));
    xhr.addEventListener("timeout", () => reject(new ApiError("network", "timeout", "", 0)));
    xhr.timeout = 120000;
    const form = new FormData();
    form.append("file", file, file.name);
    if (name) {
      form.append("name", name);
    }
    xhr.send(form);
  });
}

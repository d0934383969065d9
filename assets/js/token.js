/*
 * token.js — what the page can tell about its game link by itself. Stateless.
 *
 * A token is base64url(JSON claims) "." base64url(MAC). The page cannot check the
 * MAC (only the server holds the key), but it can read the claims: a token whose body
 * is not readable JSON, or whose expiry `e` (Unix seconds) has passed, will be refused
 * at "Bắt đầu", so the start screen says so at once. The server still decides.
 */

const MAX_TOKEN_BYTES = 1024; // the server refuses longer tokens as bad
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function decodeBody(body) {
  if (!BASE64URL.test(body)) {
    throw new Error("not base64url");
  }
  let text = body.replace(/-/g, "+").replace(/_/g, "/");
  while (text.length % 4) {
    text += "=";
  }
  const binary = window.atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) {
    bytes[i] = binary.charCodeAt(i);
  }
  // The claims carry the player's name, often Vietnamese: UTF-8.
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

// The token's expiry in Unix seconds, or 0 when the token cannot be read.
export function tokenExpiry(token) {
  const text = String(token || "");
  const parts = text.split(".");
  if (text.length > MAX_TOKEN_BYTES || parts.length !== 2 || !parts[1]) {
    return 0;
  }
  try {
    const claims = JSON.parse(decodeBody(parts[0]));
    const expiry = claims && typeof claims === "object" ? claims.e : null;
    return typeof expiry === "number" && isFinite(expiry) && expiry > 0 ? expiry : 0;
  } catch (e) {
    return 0;
  }
}

// "bad" (unreadable), "expired" (its expiry has passed on this device's clock) or "".
export function tokenProblem(token, nowSeconds) {
  const expiry = tokenExpiry(token);
  if (!expiry) {
    return "bad";
  }
  return nowSeconds > expiry ? "expired" : "";
}

// Whether the token is a room card's link (the claim r: 1); the server still decides.
export function isRoomToken(token) {
  const parts = String(token || "").split(".");
  if (parts.length !== 2) {
    return false;
  }
  try {
    const claims = JSON.parse(decodeBody(parts[0]));
    return !!claims && typeof claims === "object" && claims.r === 1;
  } catch (e) {
    return false;
  }
}

// Whether the token is a daily game's link (the claim d: 1, B13); the server decides.
export function isDailyToken(token) {
  const parts = String(token || "").split(".");
  if (parts.length !== 2) {
    return false;
  }
  try {
    const claims = JSON.parse(decodeBody(parts[0]));
    return !!claims && typeof claims === "object" && claims.d === 1;
  } catch (e) {
    return false;
  }
}

/*
 * text.js — the Vietnamese sentences the kernel's own modules write (the network
 * banner). Each game's sentences live in that game's text.js.
 */

export const KERNEL_TEXT = Object.freeze({
  network: "Mất kết nối với máy chủ. Kiểm tra mạng rồi bấm Thử lại nhé.",
  server: "Máy chủ đang gặp trục trặc. Đợi một chút rồi bấm Thử lại nhé."
});

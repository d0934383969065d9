/*
 * text.js — every Vietnamese string the script writes into the page, but for the
 * network banner's two sentences, which both games share (kernel/js/text.js).
 *
 * Plain data and a few small formatters; nothing here touches the DOM.
 */

export const TEXT = Object.freeze({
  noSession: "Ván chơi không còn nữa. Hãy bắt đầu ván mới.",
  tokenExpired: "Đường dẫn vào trò chơi đã hết hạn. Hãy đóng trang này và bấm Chơi lần nữa trong Telegram.",
  badToken: "Đường dẫn vào trò chơi không hợp lệ. Hãy đóng trang này và bấm Chơi lần nữa trong Telegram.",
  startTooFast: "Bạn bắt đầu hơi nhanh. Đợi vài giây rồi bấm Bắt đầu lại nhé.",
  startTooFastFor: (s) => "Bạn bắt đầu hơi nhanh. Đợi " + s + " giây rồi bấm Bắt đầu lại nhé.",
  busy: "Máy chủ đang đông người chơi. Đợi một lát rồi thử lại nhé.",
  moveBusy: "Máy chủ đang bận. Đợi một lát rồi gửi lại nhé.",
  moveTooFast: "Chậm lại một chút rồi gửi lại nhé.",
  empty: "Hãy gõ một từ trước đã.",
  thinking: "Máy đang nghĩ…",
  botSaid: "Máy nối: ",
  opening: "Máy mở đầu: ",
  answerWith: "Nối tiếp với",
  botAnswers: "Máy nối tiếp với",
  giveUp: "Chịu thua",
  giveUpArmed: "Chắc chưa? Bấm lần nữa",
  starting: "Đang bắt đầu…",
  start: "Bắt đầu",
  meaning: "Nghĩa",
  you: "Bạn",
  bot: "Máy",
  tenSeconds: "Còn 10 giây.",
  won: "Bạn thắng rồi!",
  lost: "Bạn thua mất rồi",
  over: "Ván đã kết thúc",
  replacedTitle: "Đã có ván mới",
  replaced: "Bạn vừa bắt đầu một ván mới (có lẽ ở thẻ khác), nên ván này dừng lại. Điểm của ván này vẫn được tính.",
  suggestTitle: "Bạn đã có thể nối:",
  deadEnd: "Không còn từ nào để nối — đây là thế bí thật sự.",
  words: " từ"
});

// Keyed by the view's end_reason; "{s}" is the turn limit in seconds.
export const END_REASONS = Object.freeze({
  timeout: "Hết giờ — bạn chưa nối kịp trong {s} giây.",
  no_legal_move: "Không còn từ nào để nối tiếp nữa.",
  gave_up: "Bạn đã chịu thua.",
  bot_stuck: "Máy hết từ để nối tiếp, đành chịu thua bạn.",
  max_moves: "Chuỗi đã dài tới 300 từ — ván đấu khép lại với phần thắng cho bạn."
});

// Keyed by the view's score_reported.
export const REPORT_TEXT = Object.freeze({
  pending: "Đang lưu điểm lên bảng xếp hạng…",
  ok: "Đã lưu điểm lên bảng xếp hạng.",
  failed: "Chưa lưu được điểm lên bảng xếp hạng. Điểm ván này vẫn được tính ở đây.",
  skipped: "Ván 0 điểm nên không ghi lên bảng xếp hạng."
});

// The end screen's record block (B12).
// Nối từ hôm nay (B13): the start screen's note and the end screen's block.
export const DAILY_TEXT = Object.freeze({
  copied: "Đã sao chép! Dán vào nhóm chat để khoe nhé.",
  copyRefused: "Không sao chép tự động được. Hãy chọn đoạn trên rồi sao chép nhé.",
  unavailable: "Chưa lấy được kết quả hôm nay. Hãy mở lại trang sau nhé."
});

// "5 ngày liền" under the daily game's end screen.
export function dailyStreak(days) {
  return "Chuỗi ngày chơi: " + days + " ngày liền";
}

export const RECORD_TEXT = Object.freeze({
  loading: "Đang xem kỷ lục…",
  newRecord: "Kỷ lục mới!",
  notOnTable: "Bạn chưa có điểm trên bảng của tin nhắn này.",
  someone: "Người chơi",
  you: " (bạn)",
  points: " điểm"
});

// "Kỷ lục của bạn: 120 điểm · hạng 2".
export function recordBest(best, place) {
  return "Kỷ lục của bạn: " + best + RECORD_TEXT.points + " · hạng " + place;
}

// "Từ hay nhất ván này: tình yêu (+34 điểm)".
export function recordWord(word, points) {
  return "Từ hay nhất ván này: " + word + " (+" + points + RECORD_TEXT.points + ")";
}

// The end reason of a dead end, when the view names the syllable nobody could follow.
export function noWordAfter(syllable) {
  return "Không còn từ nào bắt đầu bằng “" + syllable + "” để nối.";
}

// The spoken label of a player's word's points, e.g. "12 điểm".
export function pointsLabel(points) {
  return points + " điểm";
}

// The bot's points on its word: shown small and muted, never added to the score.
export function botPoints(points) {
  return "máy +" + points;
}

export function botPointsLabel(points) {
  return "Máy được " + points + " điểm, không tính vào điểm của bạn";
}

// The spoken label of a word's meaning toggle.
export function meaningOf(word) {
  return TEXT.meaning + " của “" + word + "”";
}

// Room mode (people against people in a group).
export const ROOM_TEXT = Object.freeze({
  subtitle: "Đấu chữ cùng cả nhóm",
  you: "bạn",
  host: "chủ phòng",
  noName: "Người chơi",
  opening: "Mở đầu",
  hostLobby: "Bạn là chủ phòng. Khi đủ người (từ 2 người), bấm Bắt đầu ván.",
  waiting: "Đang chờ chủ phòng bắt đầu ván.",
  waitingWatcher: "Phòng đã đủ 8 người chơi. Bạn xem ván này, có chỗ trống là vào chơi.",
  watching: "Bạn đang xem, ván sau sẽ vào chơi.",
  yourTurn: "Đến lượt bạn!",
  yourTurnTitle: "(!) Đến lượt bạn · Nối từ",
  pageTitle: "Nối từ",
  giveUp: "Chịu thua",
  giveUpArmed: "Chắc chưa? Bấm lần nữa",
  leave: "Rời phòng",
  leaveArmed: "Rời là bị loại. Bấm lần nữa",
  empty: "Hãy gõ một từ trước đã.",
  moveTooFast: "Chậm lại một chút rồi gửi lại nhé.",
  network: "Mất kết nối với máy chủ. Kiểm tra mạng rồi thử lại nhé.",
  reconnecting: "Mất kết nối, đang kết nối lại…",
  gone: "Phòng này không còn nữa. Hãy mở lại phòng từ Telegram.",
  // What the room screen says once this page is no longer in the room.
  leftTitle: "Bạn đã rời phòng",
  leftText: "Muốn chơi tiếp thì vào lại phòng nhé.",
  replacedTitle: "Bạn đã mở phòng ở nơi khác.",
  replacedText: "Trang này dừng lại để hai nơi không giành lượt của nhau.",
  noMemberTitle: "Bạn không còn ở trong phòng này",
  noMemberText: "Có thể bạn đã mở phòng ở nơi khác, hoặc đã rời phòng.",
  goneTitle: "Phòng đã đóng",
  goneText: "Vào lại để mở phòng mới trên thẻ này.",
  joinFailedTitle: "Chưa vào được phòng",
  rejoin: "Vào lại phòng",
  playHere: "Chơi ở đây",
  retry: "Thử lại",
  retryIn: (s) => "Thử lại (" + s + ")",
  tooFast: "Chậm lại một chút nhé!",
  waitFor: (s) => "Thử lại sau " + s + " giây nhé.",
  // The end of a game.
  youWon: "Bạn thắng!",
  youPlaced: (rank) => "Bạn về thứ " + rank,
  justEnded: "Ván vừa kết thúc",
  previous: "Kết quả ván trước",
  noWords: "Ván kết thúc trước khi có từ nào được nối.",
  capReason: "Chuỗi đã dài tới 300 từ: ai nhiều điểm nhất thắng.",
  othersOut: "Những người khác đều đã bị loại.",
  together: "cùng bị loại một lúc",
  orderNote: "Ai trụ lâu hơn xếp trên; cùng bị loại một lúc thì xếp theo thứ tự lượt.",
  previousChain: "Chuỗi từ ván trước",
  points: (n) => n + " đ",
  thinking: (name) => name + " đang nghĩ…",
  watchers: (n) => "· " + n + " người xem",
  out: (reason) => "Bạn đã bị loại" + (reason ? " (" + reason + ")" : "") + ".",
  bonus: (n) => "thưởng " + n
});

// Keyed by a player's out_reason.
export const OUT_REASONS = Object.freeze({
  timeout: "hết giờ",
  no_legal_move: "hết từ để nối",
  gave_up: "chịu thua",
  left: "rời phòng",
  bot_stuck: "máy bí"
});

export function turnOf(name) {
  return "Lượt của " + name + ".";
}

export function roomWinner(name, words) {
  return name + " thắng sau " + words + " từ!";
}

/*
 * text.js — every Vietnamese string the arena's script writes, and the small
 * functions that put a piece, a square or a result into words.
 */

// A number as a Vietnamese reader writes it (0,5; 65.536).
export function figure(value) {
  return Number(value).toLocaleString("vi-VN");
}

// A rating's figure to one decimal, as a Vietnamese reader writes it (25,0).
export function tenths(value) {
  return Number(value).toLocaleString("vi-VN", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

export const PIECE_NAMES = { ROCK: "Búa", PAPER: "Bao", SCISSORS: "Kéo" };
// The built-in bots' Vietnamese names, keyed by the server's names (which come from
// GET /arena/api/config; a test checks these keys against the server's list).
export const BUILTIN_NAMES = {
  random: "Ngẫu nhiên (random)",
  tactical: "Chiến thuật (tactical)",
  strong: "Mạnh nhất (strong)"
};

export const PHASES = {
  WAITING: "Đang chờ người vào chỗ trống",
  PLACEMENT: "Đang xếp quân",
  PLAYING: "Đang đấu",
  FINISHED: "Trận đã xong",
  ABANDONED: "Trận bị huỷ"
};

// Why a match ended, told to each viewer: `won` (the viewer answers for the winner
// only), `lost` (for the loser only) and `watch` (a spectator, or someone seated on
// both sides), each given the winner's and the loser's side and the turn limit; a
// match nobody won has `none`. The spectator's title already names the winner, so
// the spectator's sentence names the side it happened to.
const END_WORDS = {
  BASE_CAPTURED: {
    won: () => "Quân của bạn đã vào căn cứ đối thủ",
    lost: () => "Đối thủ đã chiếm căn cứ của bạn",
    watch: (winner, loser) => winner + " đã chiếm căn cứ của " + loser
  },
  NO_PIECES: {
    won: () => "Đối thủ không còn quân nào",
    lost: () => "Bạn không còn quân nào",
    watch: (winner, loser) => loser + " không còn quân nào"
  },
  TURN_LIMIT: {
    won: (winner, loser, limit) => "Hết " + limit + " lượt, bạn còn nhiều quân hơn",
    lost: (winner, loser, limit) => "Hết " + limit + " lượt, đối thủ còn nhiều quân hơn",
    watch: (winner, loser, limit) => "Hết " + limit + " lượt, " + winner + " còn nhiều quân hơn",
    none: (winner, loser, limit) => "Hết " + limit + " lượt, hai bên còn số quân bằng nhau"
  },
  BOT_FAILED: {
    won: () => "Bot của đối thủ bị lỗi",
    lost: () => "Bot của bạn bị lỗi",
    watch: (winner, loser) => "Bot " + loser + " bị lỗi"
  },
  SURRENDER: {
    won: () => "Đối thủ đã đầu hàng",
    lost: () => "Bạn đã đầu hàng",
    watch: (winner, loser) => loser + " đã đầu hàng"
  },
  TIME_UP: {
    won: () => "Đối thủ hết giờ đi nước",
    lost: () => "Bạn hết giờ đi nước",
    watch: (winner, loser) => loser + " hết giờ đi nước"
  },
  ABANDONED: {
    none: () => "Máy chủ khởi động lại giữa trận nên không ai thắng"
  }
};

// The viewer's part in a result: "won", "lost", "watch", or "none" (nobody won).
export function viewerRole(result, mine) {
  if (!result.winner) {
    return "none";
  }
  const loser = result.winner === "P1" ? "P2" : "P1";
  const forWinner = mine.indexOf(result.winner) >= 0;
  const forLoser = mine.indexOf(loser) >= 0;
  if (forWinner !== forLoser) {
    return forWinner ? "won" : "lost";
  }
  return "watch";
}

// The result box's title and sentence for a viewer answering for the sides `mine`;
// `names` gives each side's display name, `turnLimit` the match's limit.
export function endWords(result, mine, names, turnLimit) {
  const role = viewerRole(result, mine);
  const winner = result.winner || "";
  const loser = winner === "P1" ? "P2" : winner === "P2" ? "P1" : "";
  let title = T.draw;
  if (role === "won") {
    title = T.youWin;
  } else if (role === "lost") {
    title = T.youLose;
  } else if (role === "watch") {
    title = T.sideWins(winner, (names && names[winner]) || winner);
  } else if (result.reason === "ABANDONED") {
    title = T.abandoned;
  }
  const words = END_WORDS[result.reason] || {};
  const say = words[role];
  let sentence = say ? say(winner, loser, turnLimit) : result.reason;
  if (result.reason !== "TURN_LIMIT") {
    sentence += " (" + result.turns + " lượt)";
  }
  return { role: role, title: title, sentence: sentence + "." };
}

// What each failure code of spec B3 means, for the person reading the result.
export const FAILURES = {
  COMPILE_ERROR: "Bot không biên dịch được.",
  START_FAILED: "Bot không khởi động được.",
  RESOURCE_LIMIT: (figures) => "memory_mb" in figures
    ? "Bot dùng quá " + figure(figures.memory_mb) + " MB bộ nhớ."
    : "Bot dùng quá bộ nhớ cho phép.",
  INCOMPLETE_LINE: "Bot dừng giữa chừng khi đang viết một dòng.",
  EXITED: "Tiến trình của bot đã thoát.",
  EXTRA_OUTPUT: "Bot in ra stdout những thứ không phải câu trả lời.",
  // The figures are the server's (GET /arena/api/config); without them, no numbers.
  TIMEOUT: (figures) => "reply_s" in figures
    ? "Bot trả lời quá giờ (" + figure(figures.reply_s) + " giây, lượt đầu " + figure(figures.first_reply_s) + " giây)."
    : "Bot trả lời quá giờ.",
  REPLY_TOO_LONG: "Câu trả lời dài quá 65.536 ký tự.",
  BAD_JSON: "Câu trả lời không phải một đối tượng JSON hợp lệ.",
  WRONG_TYPE: "Trường type không phải ACTION.",
  STALE_SEQUENCE: "sequence không khớp với yêu cầu.",
  BAD_FIELD: "Nước đi thiếu trường hoặc sai kiểu.",
  MISMATCH: "pieceId, from hoặc to không khớp bàn cờ.",
  NOT_LEGAL: "Nước đi không có trong legalActions."
};

export const T = {
  networkError: "Mất kết nối với máy chủ. Kiểm tra mạng rồi thử lại nhé.",
  tryAgain: "Có lỗi, thử lại sau giây lát nhé.",
  chooseFile: "Hãy chọn một tệp bot trước đã.",
  uploading: "Đang gửi tệp…",
  building: "Đã gửi xong, máy chủ đang biên dịch (nếu máy chủ bận, bot chờ đến lượt)…",
  buildOk: "Biên dịch xong: bot sẵn sàng vào trận!",
  buildFailed: "Biên dịch lỗi. Xem thông báo của trình biên dịch bên dưới.",
  buildWaited: (seconds) => `Máy chủ đang bận biên dịch bot khác nên bot của bạn đã chờ ${seconds} giây đến lượt.`,
  public: "Công khai",
  private: "Riêng tư",
  makePublic: "Cho mọi người dùng",
  makePrivate: "Chỉ mình tôi",
  download: "Tải mã nguồn",
  deleteBot: "Xoá",
  deleteConfirm: (name) => "Xoá bot “" + name + "”? Không lấy lại được đâu.",
  yes: "Đồng ý",
  no: "Thôi",
  buildOkBadge: "chạy được",
  buildFailedBadge: "lỗi biên dịch",
  compilerMessages: "Thông báo của trình biên dịch",
  iPlay: "Tôi chơi (bằng tay)",
  myBots: "Bot của tôi",
  builtinBots: "Bot có sẵn của máy chủ",
  // "Một tệp .py, .cpp hoặc .jar.": the suffixes come from the server's languages.
  oneFileOf: "Một tệp ",
  or: " hoặc ",
  publicBots: "Bot công khai",
  openSeat: "Để trống: gửi mã cho bạn bè",
  badCode: "Mã phòng gồm 6 chữ và số, ví dụ 3KX9AC.",
  join: "Vào chơi",
  watch: "Xem",
  emptySeat: "Chỗ trống",
  person: "người chơi",
  uploadKind: "bot tải lên",
  builtinKind: "bot có sẵn",
  you: "bạn",
  ready: "đã sẵn sàng",
  thinkingBot: (name) => name + " đang nghĩ…",
  thinkingPerson: (name) => "Chờ " + name + " đi…",
  yourTurn: "Đến lượt bạn: chạm một quân của bạn, rồi chạm ô sáng để đi.",
  passOnly: "Bạn không còn nước đi nào: hãy bỏ lượt.",
  yourPlacement: "Xếp 18 quân của bạn rồi bấm Sẵn sàng.",
  waitOther: "Bạn đã sẵn sàng. Chờ bên kia…",
  botsStarting: "Hai bên đã sẵn sàng. Bot đang khởi động…",
  placementLeft: (n) => "Còn " + n + " quân chưa xếp.",
  queue: (n) => "Đang chờ lượt: thứ " + n,
  turn: (n, limit) => "Lượt " + n + "/" + limit,
  piecesLeft: (p1, p2) => "Quân còn: P1 " + p1 + " · P2 " + p2,
  paceBehind: (n) => "Chậm " + n + " lượt so với trận thật",
  paceLive: "Đang xem trực tiếp",
  paceSpeed: (n) => "Tốc độ ×" + n,
  roomTitle: "Phòng",
  localReplayTitle: "Bản ghi trận",
  localReplayFile: (name) => "Tệp " + name + " (đọc ngay trong trình duyệt, không gửi đi đâu).",
  replayFileBad: (why) => "Không mở được bản ghi này: " + why,
  replayFileTooBig: (mb) => "tệp lớn hơn " + mb + " MB, không giống một bản ghi trận.",
  replayFileUnreadable: "trình duyệt không đọc được tệp.",
  replayFileEmpty: "tệp trống.",
  replayNotJson: (line) => "dòng " + line + " không phải JSON. Hãy chọn tệp .jsonl mà lệnh noitu arena match --replay ghi ra.",
  replayNoSetup: "dòng đầu không phải sự kiện setup. Hãy chọn tệp .jsonl mà lệnh noitu arena match --replay ghi ra.",
  replayBadSetup: (line) => "dòng " + line + ": quân cờ trong setup không hợp lệ.",
  replayBadMove: (line) => "dòng " + line + ": nước đi không khớp với bàn cờ.",
  replayBadEnd: (line) => "dòng " + line + ": kết quả trận không hợp lệ.",
  countdownPlay: "Còn",
  countdownPlacement: "Xếp quân còn",
  draw: "Hoà!",
  youWin: "Bạn thắng!",
  youLose: "Bạn thua.",
  sideWins: (side, name) => side + " (" + name + ") thắng",
  abandoned: "Trận bị huỷ",
  surrender: "Đầu hàng",
  surrenderFor: (side) => "Đầu hàng cho " + side,
  surrenderConfirm: "Đầu hàng là thua trận này ngay. Chắc chưa?",
  leaveConfirm: "Rời phòng giữa trận là đầu hàng. Chắc chưa?",
  roomNotFound: "Không có phòng này (hoặc phòng đã đóng).",
  reconnecting: "Mất kết nối trực tiếp, đang nối lại…",
  copied: "Đã sao chép đường dẫn.",
  play: "Phát",
  pause: "Dừng",
  replayLoading: "Đang tải bản ghi trận…",
  replayDeleted: "Bản ghi đã xoá",
  replayFailed: "Không tải được bản ghi trận.",
  detail: "Chi tiết lỗi",
  stderr: (side, figures) => "stderr của bot " + side +
    ("stderr_kib" in figures ? " (" + figure(figures.stderr_kib) + " KiB cuối)" : " (phần cuối)"),
  noStderr: "(bot không ghi gì ra stderr)",
  lobbyTurn: (n, limit) => "lượt " + n + "/" + limit,
  ladderBadge: "Xếp hạng",
  ladderNoGames: "chưa đấu",
  suspended: "tạm dừng",
  suspendedMine: "Bảng xếp hạng đã tạm dừng bot này vì nó lỗi nhiều trận liền. Bấm tên bot để xem lỗi và cách xử lý.",
  keyShow: "Hiện khóa",
  keyHide: "Ẩn khóa",
  keyMasked: "Khóa đang ẩn, chỉ hiện 4 ký tự cuối: ",
  keyCopied: "Đã sao chép khóa chủ. Ở thiết bị khác, dán nó vào ô «Dùng khóa chủ từ thiết bị khác».",
  keyCopyFailed: "Trình duyệt không cho sao chép: khóa đã hiện ra, hãy tự chọn và sao chép nhé.",
  keyBad: "Khóa chủ gồm đúng 32 ký tự, chỉ có chữ số 0–9 và chữ a–f. Hãy dán lại nguyên khóa nhé.",
  keySame: "Trình duyệt này đang dùng đúng khóa đó rồi.",
  keyNoBots: "Máy chủ không có bot nào của khóa này. Kiểm tra lại khóa nhé (chép từ ô «Khóa chủ» ở thiết bị kia).",
  keyReplace: "Trình duyệt này sẽ dùng khóa mới. Các bot của khóa đang dùng chỉ quản lý lại được bằng chính khóa đó: bạn đã sao chép nó chưa?",
  keyChecking: "Đang hỏi máy chủ về khóa này…",
  keyUsed: (n) => "Đã dùng khóa mới: " + n + " bot của khóa đó hiện ở trên.",
  rating: (mu, sigma) => tenths(mu) + " ± " + tenths(sigma),
  record: (wins, draws, losses) => wins + "–" + draws + "–" + losses + " (thắng–hoà–thua)",
  games: (n) => n + " trận",
  lastGame: (when) => "trận cuối " + when,
  rank: "Vào bảng xếp hạng",
  ranked: "đang xếp hạng",
  unrank: "Rời bảng",
  unrankConfirm: (name) => "Cho “" + name + "” rời bảng xếp hạng? Lịch sử đấu vẫn được giữ.",
  resume: "Cho chơi tiếp",
  ratingNone: "Bot chưa có điểm: nó chưa vào bảng xếp hạng.",
  ratingNoGames: "Chưa đấu trận xếp hạng nào. Máy chủ rảnh là bot được xếp cặp ngay.",
  ratingOne: "Mới có một điểm: đấu thêm vài trận là thấy đường đi.",
  ratingChartLabel: (n) => "Biểu đồ điểm μ qua " + n + " lần xếp hạng, vùng mờ là μ ± σ",
  rankLine: (rank) => "Hạng " + rank,
  bySide: (side, one) => "Cầm " + side + ": " + one.wins + " thắng · " + one.draws + " hoà · " + one.losses + " thua",
  replyMs: (p50, p99) => "Thời gian trả lời: trung vị " + figure(p50) + " ms, p99 " + figure(p99) + " ms",
  times: (n) => n + " lần",
  deletedBot: "bot đã xoá",
  against: "gặp",
  sideWord: (side) => "cầm " + side,
  watchReplay: "Xem lại",
  ladderMatch: "xếp hạng",
  roomMatch: (code) => code ? "phòng " + code : "phòng",
  matchReplayTitle: "Xem lại trận",
  matchReplayNote: "Bản ghi của một trận đã xong.",
  stderrOwn: "stderr của bot (chỉ bạn thấy)"
};

// A match's result for the bot whose page it is.
export const RESULT_WORDS = { win: "Thắng", loss: "Thua", draw: "Hoà", abandoned: "Huỷ" };

// A match of a bot's history in words, from the side it played: the result box's
// sentence as a spectator reads it ("P1 đã chiếm căn cứ của P2 (n lượt).").
export function historyReason(match) {
  const other = match.side === "P1" ? "P2" : "P1";
  const winner = match.result === "win" ? match.side : match.result === "loss" ? other : null;
  return endWords({ winner: winner, reason: match.reason, turns: match.turns }, [], null, match.turns).sentence;
}

// A moment in the reader's time zone, short: "14:05 2/12".
export function shortTime(ms) {
  if (!Number.isFinite(ms)) {
    return "";
  }
  const when = new Date(ms);
  const pad = (n) => String(n).padStart(2, "0");
  return pad(when.getHours()) + ":" + pad(when.getMinutes()) + " " + when.getDate() + "/" + (when.getMonth() + 1);
}

// A piece's type from its id ("P1-ROCK-3" → "ROCK"); spec B1 fixes the id's form.
export function typeOfId(id) {
  const parts = String(id || "").split("-");
  return parts.length === 3 ? parts[1] : "";
}

export function sideOfId(id) {
  return String(id || "").slice(0, 2);
}

export const pieceName = (type) => PIECE_NAMES[type] || "Quân";
export const squareText = (pos) => "(" + pos.row + "," + pos.col + ")";

// "Búa P1" for a piece id.
export function pieceOfId(id) {
  return pieceName(typeOfId(id)) + " " + sideOfId(id);
}

const FIGHT_WORDS = { WIN: "thắng", LOSE: "thua", TIE: "hoà, không ai mất quân" };

// One sentence for an applied action: the move and its fight.
export function describeAction(last) {
  if (!last || !last.action) {
    return "";
  }
  const head = "Lượt " + (last.turn + 1) + ": " + last.player + " ";
  if (last.action.type === "PASS") {
    return head + "bỏ lượt.";
  }
  const action = last.action;
  let text = head + "đi " + pieceName(typeOfId(action.pieceId)) + " " +
    squareText(action.from) + " → " + squareText(action.to);
  if (last.fight) {
    text += ", đánh " + pieceOfId(last.fight.defender) + ": " + (FIGHT_WORDS[last.fight.result] || "");
  }
  return text + ".";
}

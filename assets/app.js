/*
 * noitu — the player's page for Vietnamese word chaining against the bot.
 *
 * Plain script, no build step. The server owns the chain, the clock and the score;
 * this page only shows the session view it gets back and sends the player's words.
 *
 * Stable hooks for browser tests (each element has the id and a data-testid of the
 * same name):
 *
 *   Screens (exactly one is visible, the others carry `hidden`):
 *     #screen-notoken   no game link: how to open the game from Telegram
 *     #screen-start     rules, difficulty, start
 *     #screen-play      the game
 *     #screen-end       the result
 *   Start:
 *     #difficulty-easy, #difficulty-medium, #difficulty-hard   radio inputs
 *     #start-button, #start-error
 *     #session-message  "Ván chơi không còn nữa…" after a no_session error
 *   Play:
 *     #score            the score (digits only)
 *     #countdown        whole seconds left (digits only); #timer-box gets .urgent
 *     #countdown-bar    the bar; its --frac custom property is the fraction left
 *     #bot-word         live region: the bot's last word / "Máy đang nghĩ…"
 *     #current-syllable the syllable to answer
 *     #word-input, #send-button
 *     #reject-message   the server's message for a refused word
 *     #give-up-button   needs two taps (data-armed="true" after the first)
 *     #chain            <li> per word, newest first, with data-by="bot|player",
 *                       data-word, .chain-word, .chain-points, and a
 *                       button.meaning-toggle[aria-expanded] opening .meanings
 *   End:
 *     #end-title, #end-reason (data-reason="<end_reason>"), #final-score,
 *     #score-report (data-state="<score_reported>"), #suggestions (<li> per word),
 *     #play-again, #share-button, #end-chain (the whole chain again)
 *   Anywhere:
 *     #network-error, #retry-button
 *
 * #screen-play and #screen-end also carry data-status="<status>".
 */
(function () {
  "use strict";

  // ---- constants ---------------------------------------------------------------

  var STORE_TOKEN = "noitu.token";
  var STORE_SESSION = "noitu.session";
  var STORE_DIFFICULTY = "noitu.difficulty";
  var REQUEST_TIMEOUT_MS = 15000;
  var TOO_FAST_RETRY_MS = 350;
  var THINK_MIN_MS = 650;
  var THINK_MAX_MS = 900;
  var URGENT_MS = 5000;
  var GIVE_UP_ARM_MS = 3000;
  var EXPIRY_RECHECK_MS = 1200;
  var EXPIRY_MAX_CHECKS = 8;
  var REPORT_POLL_MS = 1500;
  var REPORT_POLL_MAX = 20;
  var TICK_MS = 100;

  var TEXT = {
    noSession: "Ván chơi không còn nữa. Hãy bắt đầu ván mới.",
    network: "Mất kết nối với máy chủ. Kiểm tra mạng rồi bấm Thử lại nhé.",
    server: "Máy chủ đang gặp trục trặc. Đợi một chút rồi bấm Thử lại nhé.",
    tokenExpired: "Đường dẫn vào trò chơi đã hết hạn. Hãy đóng trang này và bấm Chơi lần nữa trong Telegram.",
    badToken: "Đường dẫn vào trò chơi không hợp lệ. Hãy đóng trang này và bấm Chơi lần nữa trong Telegram.",
    startTooFast: "Bạn bắt đầu hơi nhanh. Đợi vài giây rồi bấm Bắt đầu lại nhé.",
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
    noMeaning: "Chưa có nghĩa cho từ này.",
    meaning: "Nghĩa",
    you: "Bạn",
    bot: "Máy",
    tenSeconds: "Còn 10 giây.",
    won: "Bạn thắng rồi!",
    lost: "Bạn thua mất rồi",
    over: "Ván đã kết thúc",
    suggestTitle: "Bạn đã có thể nối:",
    deadEnd: "Không còn từ nào để nối — đây là thế bí thật sự.",
    words: " từ"
  };

  var END_REASONS = {
    timeout: "Hết giờ — bạn chưa nối kịp trong {s} giây.",
    no_legal_move: "Không còn từ nào để nối tiếp nữa.",
    gave_up: "Bạn đã chịu thua.",
    bot_stuck: "Máy hết từ để nối tiếp, đành chịu thua bạn.",
    max_moves: "Chuỗi đã dài tới 300 từ — ván đấu khép lại với phần thắng cho bạn."
  };

  var REPORT_TEXT = {
    pending: "Đang lưu điểm lên bảng xếp hạng…",
    ok: "Đã lưu điểm lên bảng xếp hạng.",
    failed: "Chưa lưu được điểm lên bảng xếp hạng. Điểm ván này vẫn được tính ở đây.",
    skipped: "Ván 0 điểm nên không ghi lên bảng xếp hạng."
  };

  // ---- small helpers -------------------------------------------------------------

  function $(id) {
    return document.getElementById(id);
  }

  function storeGet(key) {
    try {
      return window.sessionStorage.getItem(key) || "";
    } catch (e) {
      return "";
    }
  }

  function storeSet(key, value) {
    try {
      if (value) {
        window.sessionStorage.setItem(key, value);
      } else {
        window.sessionStorage.removeItem(key);
      }
    } catch (e) {
      /* storage may be disabled; memory still works */
    }
  }

  function now() {
    return window.performance && performance.now ? performance.now() : Date.now();
  }

  function toInt(value, fallback) {
    var n = Number(value);
    return isFinite(n) ? Math.round(n) : fallback;
  }

  function lastSyllable(word) {
    var parts = String(word || "").trim().split(/\s+/);
    return parts[parts.length - 1] || "";
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = String(text);
    }
    return node;
  }

  // ---- state -------------------------------------------------------------------

  var app = {
    token: "",
    session: "",
    view: null,
    screen: "",
    epoch: 0, // bumped whenever a game is left, so late answers are ignored
    busy: false,
    thinking: false,
    thinkTimer: 0,
    deadlineLeftMs: 0, // deadline_ms - server_now_ms of the last view
    receivedAt: 0, // performance.now() when that view arrived
    turnLimitMs: 30000,
    tickTimer: 0,
    announcedTen: false,
    expiryChecks: 0,
    lastExpiryCheck: 0,
    giveUpTimer: 0,
    reportTimer: 0,
    reportPolls: 0,
    retry: null,
    chainRendered: { play: 0, end: 0 },
    chainSession: { play: "", end: "" }
  };

  // ---- HTTP --------------------------------------------------------------------

  function ApiError(kind, code, message, status) {
    this.kind = kind; // "api" (server said {"error"}) or "network"
    this.code = code || "";
    this.message = message || "";
    this.status = status || 0;
  }

  var KNOWN_ERRORS = {
    bad_request: 1, bad_token: 1, token_expired: 1, no_session: 1,
    game_over: 1, too_fast: 1, busy: 1
  };

  function apiUrl(route) {
    var url = new URL("api/" + route, window.location.href);
    url.search = "";
    url.hash = "";
    return url.toString();
  }

  function postOnce(route, body) {
    var controller = typeof AbortController === "function" ? new AbortController() : null;
    var timer = 0;
    if (controller) {
      timer = window.setTimeout(function () {
        controller.abort();
      }, REQUEST_TIMEOUT_MS);
    }
    return window.fetch(apiUrl(route), {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body),
      cache: "no-store",
      credentials: "same-origin",
      referrerPolicy: "no-referrer",
      signal: controller ? controller.signal : undefined
    }).then(function (response) {
      window.clearTimeout(timer);
      return response.text().then(function (text) {
        var data = null;
        try {
          data = text ? JSON.parse(text) : null;
        } catch (e) {
          data = null;
        }
        if (response.ok && data && typeof data === "object" && !data.error) {
          return data;
        }
        if (data && typeof data === "object" && typeof data.error === "string" && KNOWN_ERRORS[data.error]) {
          throw new ApiError("api", data.error, data.message, response.status);
        }
        // A 500, a proxy page, an empty body: all count as a broken connection.
        throw new ApiError("network", data && data.error ? String(data.error) : "http_" + response.status, "", response.status);
      });
    }, function () {
      window.clearTimeout(timer);
      throw new ApiError("network", "offline", "", 0);
    });
  }

  // Posts once; a too_fast answer is retried once after a short wait.
  function post(route, body) {
    return postOnce(route, body).catch(function (err) {
      if (err instanceof ApiError && err.code === "too_fast" && route !== "start") {
        return new Promise(function (resolve) {
          window.setTimeout(resolve, TOO_FAST_RETRY_MS);
        }).then(function () {
          return postOnce(route, body);
        });
      }
      throw err;
    });
  }

  // ---- screens -----------------------------------------------------------------

  var SCREENS = ["notoken", "start", "play", "end"];

  function showScreen(name) {
    SCREENS.forEach(function (s) {
      $("screen-" + s).hidden = s !== name;
    });
    $("loading").hidden = true;
    document.body.setAttribute("data-screen", name);
    app.screen = name;
    if (name !== "play") {
      stopTicking();
      disarmGiveUp();
      cancelThinking();
    }
    if (name !== "end") {
      stopReportPolling();
    }
  }

  function showLoading() {
    SCREENS.forEach(function (s) {
      $("screen-" + s).hidden = true;
    });
    $("loading").hidden = false;
  }

  function showNetworkError(err, retry) {
    var text = err && err.status >= 500 && err.code !== "offline" ? TEXT.server : TEXT.network;
    $("network-error-text").textContent = text;
    $("network-error").hidden = false;
    app.retry = retry || null;
    $("retry-button").hidden = !retry;
  }

  function hideNetworkError() {
    $("network-error").hidden = true;
    app.retry = null;
  }

  function setBusy(flag) {
    app.busy = flag;
    updateSendButton();
    $("give-up-button").disabled = flag;
  }

  function updateSendButton() {
    var blocked = app.busy || app.thinking;
    $("send-button").disabled = blocked;
    $("send-button").setAttribute("aria-busy", blocked ? "true" : "false");
  }

  // ---- start screen -------------------------------------------------------------

  function selectedDifficulty() {
    var checked = document.querySelector('input[name="difficulty"]:checked');
    return checked ? checked.value : "medium";
  }

  function goToStart(message) {
    app.epoch += 1;
    app.session = "";
    app.view = null;
    storeSet(STORE_SESSION, "");
    setBusy(false);
    showScreen("start");
    var note = $("session-message");
    note.textContent = message || "";
    note.hidden = !message;
    $("start-error").hidden = true;
    $("start-button").disabled = false;
    $("start-button").textContent = TEXT.start;
  }

  function showStartError(text) {
    var box = $("start-error");
    box.textContent = text;
    box.hidden = false;
  }

  function startGame() {
    if (app.busy) {
      return;
    }
    hideNetworkError();
    $("start-error").hidden = true;
    var difficulty = selectedDifficulty();
    storeSet(STORE_DIFFICULTY, difficulty);
    var epoch = ++app.epoch;
    setBusy(true);
    var button = $("start-button");
    button.disabled = true;
    button.textContent = TEXT.starting;
    post("start", { token: app.token, difficulty: difficulty }).then(function (view) {
      if (epoch !== app.epoch) {
        return;
      }
      setBusy(false);
      button.disabled = false;
      button.textContent = TEXT.start;
      $("session-message").hidden = true;
      $("word-input").value = "";
      clearReject();
      applyView(view, { fresh: true });
    }, function (err) {
      if (epoch !== app.epoch) {
        return;
      }
      setBusy(false);
      button.disabled = false;
      button.textContent = TEXT.start;
      if (err.kind !== "api") {
        showNetworkError(err, startGame);
        return;
      }
      if (err.code === "token_expired") {
        showStartError(TEXT.tokenExpired);
      } else if (err.code === "bad_token") {
        showStartError(TEXT.badToken);
      } else if (err.code === "too_fast") {
        showStartError(TEXT.startTooFast);
      } else if (err.code === "busy") {
        showStartError(TEXT.busy);
      } else {
        showStartError(err.message || TEXT.server);
      }
    });
  }

  // ---- views ------------------------------------------------------------------

  // Shows whatever the server says the session is now.
  function applyView(view, opts) {
    opts = opts || {};
    if (!view || typeof view !== "object" || !view.session) {
      showNetworkError(new ApiError("network", "bad_view", "", 0), refreshState);
      return;
    }
    if (app.session && view.session !== app.session && !opts.fresh) {
      return; // an answer about a game we already left
    }
    app.session = String(view.session);
    storeSet(STORE_SESSION, app.session);
    app.view = view;
    if (view.status === "playing") {
      renderPlay(view, opts);
    } else {
      renderEnd(view);
    }
  }

  function chainOf(view) {
    return Array.isArray(view && view.chain) ? view.chain : [];
  }

  function setClock(view) {
    var deadline = toInt(view.deadline_ms, 0);
    var serverNow = toInt(view.server_now_ms, 0);
    app.turnLimitMs = Math.max(toInt(view.turn_limit_ms, 30000), 1000);
    app.deadlineLeftMs = deadline && serverNow ? deadline - serverNow : app.turnLimitMs;
    app.receivedAt = now();
    if (app.deadlineLeftMs > 0) {
      app.expiryChecks = 0; // a turn with time on it: the expiry checks start over
    }
  }

  function timeLeftMs() {
    return app.deadlineLeftMs - (now() - app.receivedAt);
  }

  function renderPlay(view, opts) {
    var chain = chainOf(view);
    var wasPlaying = app.screen === "play";
    if (!wasPlaying) {
      showScreen("play");
    }
    $("screen-play").setAttribute("data-status", String(view.status));
    $("score").textContent = String(toInt(view.score, 0));
    if (!opts.keepClock) {
      setClock(view); // the delayed reveal after "thinking" keeps the clock it had
    }
    if (opts.newTurn || !wasPlaying) {
      app.announcedTen = false;
    }

    if (opts.thinkingWord) {
      // The player's word is shown at once; the bot's reply waits a moment.
      renderChain("play", chain.slice(0, chain.length - 1), view.session);
      startThinking(opts.thinkingWord, function () {
        renderPlay(view, { newTurn: true, keepClock: true, keepFocus: true });
      });
      startTicking();
      return;
    }

    renderChain("play", chain, view.session);
    var last = chain.length ? chain[chain.length - 1] : null;
    // Rewrite the live region only when the bot's word changed, so a screen reader
    // does not repeat it after every refused word or refresh.
    var botLine = $("bot-word");
    var prefix = chain.length === 1 ? TEXT.opening : TEXT.botSaid;
    var key = last && last.by === "bot" ? chain.length + ":" + last.word : "";
    if (botLine.getAttribute("data-key") !== key) {
      botLine.setAttribute("data-key", key);
      botLine.textContent = "";
      if (key) {
        botLine.appendChild(document.createTextNode(prefix));
        botLine.appendChild(el("strong", "bot-word-text", last.word));
      }
    }
    $("turn-label").textContent = TEXT.answerWith;
    $("current-syllable").textContent = String(view.current || (last ? lastSyllable(last.word) : ""));
    $("current-syllable").classList.remove("pending");
    $("word-input").placeholder = (view.current ? view.current + " …" : "");
    updateSendButton();
    startTicking();
    if (!opts.keepFocus) {
      focusInput(false);
    }
  }

  function startThinking(playerWord, done) {
    cancelThinking();
    app.thinking = true;
    updateSendButton();
    $("bot-word").textContent = TEXT.thinking;
    $("bot-word").setAttribute("data-key", "thinking");
    $("turn-label").textContent = TEXT.botAnswers;
    $("current-syllable").textContent = lastSyllable(playerWord);
    $("current-syllable").classList.add("pending");
    var wait = THINK_MIN_MS + Math.floor(Math.random() * (THINK_MAX_MS - THINK_MIN_MS));
    var epoch = app.epoch;
    app.thinkTimer = window.setTimeout(function () {
      app.thinkTimer = 0;
      app.thinking = false;
      updateSendButton();
      if (epoch === app.epoch) {
        done();
      }
    }, wait);
  }

  function cancelThinking() {
    if (app.thinkTimer) {
      window.clearTimeout(app.thinkTimer);
      app.thinkTimer = 0;
    }
    app.thinking = false;
  }

  function focusInput(select) {
    var input = $("word-input");
    if (app.screen !== "play") {
      return;
    }
    try {
      input.focus({ preventScroll: true });
    } catch (e) {
      input.focus();
    }
    if (select) {
      input.select();
    }
  }

  // ---- countdown ----------------------------------------------------------------

  function startTicking() {
    if (!app.tickTimer) {
      app.tickTimer = window.setInterval(tick, TICK_MS);
    }
    tick();
  }

  function stopTicking() {
    if (app.tickTimer) {
      window.clearInterval(app.tickTimer);
      app.tickTimer = 0;
    }
  }

  function tick() {
    if (app.screen !== "play") {
      stopTicking();
      return;
    }
    var left = Math.max(timeLeftMs(), 0);
    var seconds = Math.ceil(left / 1000);
    var counter = $("countdown");
    if (counter.textContent !== String(seconds)) {
      counter.textContent = String(seconds);
    }
    var frac = Math.min(Math.max(left / app.turnLimitMs, 0), 1);
    $("countdown-bar").style.setProperty("--frac", frac.toFixed(4));
    var urgent = left <= URGENT_MS;
    $("timer-box").classList.toggle("urgent", urgent);
    $("countdown-bar").classList.toggle("urgent", urgent);
    if (!app.announcedTen && left <= 10000 && left > 0 && !app.thinking) {
      app.announcedTen = true;
      announce(TEXT.tenSeconds);
    }
    if (left <= 0) {
      checkExpiry();
    }
  }

  function announce(text) {
    var live = $("sr-live");
    live.textContent = "";
    window.setTimeout(function () {
      live.textContent = text;
    }, 50);
  }

  // At zero the server settles the turn (after its 2 s grace), so ask it, and ask
  // again a little later while it still says "playing".
  function checkExpiry() {
    if (app.busy || app.thinking) {
      return;
    }
    if (app.expiryChecks >= EXPIRY_MAX_CHECKS) {
      return;
    }
    if (app.expiryChecks > 0 && now() - app.lastExpiryCheck < EXPIRY_RECHECK_MS) {
      return;
    }
    app.expiryChecks += 1;
    app.lastExpiryCheck = now();
    refreshState({ keepFocus: true, quietNetwork: app.expiryChecks > 1 }).then(function () {
      app.lastExpiryCheck = now();
    });
  }

  // ---- API actions during a game -------------------------------------------------

  function handleGameError(err, retry) {
    if (err.kind === "api" && (err.code === "no_session" || err.code === "bad_request")) {
      goToStart(TEXT.noSession);
      return true;
    }
    if (err.kind === "api" && err.code === "game_over") {
      refreshState();
      return true;
    }
    if (err.kind !== "api" || err.code === "busy") {
      showNetworkError(err, retry);
      return true;
    }
    return false;
  }

  function refreshState(opts) {
    opts = opts || {};
    if (!app.session) {
      return Promise.resolve();
    }
    if (app.busy) {
      return Promise.resolve();
    }
    var epoch = app.epoch;
    setBusy(true);
    return post("state", { session: app.session }).then(function (view) {
      if (epoch !== app.epoch) {
        return;
      }
      setBusy(false);
      hideNetworkError();
      applyView(view, { keepFocus: opts.keepFocus });
    }, function (err) {
      if (epoch !== app.epoch) {
        return;
      }
      setBusy(false);
      if (opts.quietNetwork && err.kind !== "api") {
        return;
      }
      if (!handleGameError(err, refreshState)) {
        showNetworkError(err, refreshState);
      }
    });
  }

  function sendMove() {
    if (app.screen !== "play" || app.busy || app.thinking) {
      return;
    }
    var input = $("word-input");
    var word = input.value.replace(/\s+/g, " ").trim();
    if (!word) {
      showReject(TEXT.empty, "hint");
      focusInput(false);
      return;
    }
    hideNetworkError();
    disarmGiveUp();
    var epoch = app.epoch;
    setBusy(true);
    post("move", { session: app.session, word: word }).then(function (answer) {
      if (epoch !== app.epoch) {
        return;
      }
      setBusy(false);
      var result = answer && answer.result;
      var view = answer && answer.state;
      if (!result || !view) {
        showNetworkError(new ApiError("network", "bad_answer", "", 0), refreshState);
        return;
      }
      if (result.accepted) {
        clearReject();
        input.value = "";
        var played = result.player_word || word;
        var opts = { keepFocus: true };
        if (result.bot_word) {
          opts.thinkingWord = played;
        }
        if (view.status === "playing") {
          applyView(view, opts);
        } else if (view.end_reason === "bot_stuck") {
          // The bot could not answer the player's word: let it "think", then end.
          showFinalMove(view, played);
        } else {
          applyView(view);
        }
        focusInput(false);
      } else {
        showReject(result.message || TEXT.moveBusy, "reject", result.reason);
        applyView(view, { keepFocus: true });
        if (view.status === "playing") {
          focusInput(true);
        }
      }
    }, function (err) {
      if (epoch !== app.epoch) {
        return;
      }
      setBusy(false);
      if (err.kind === "api" && err.code === "too_fast") {
        showReject(TEXT.moveTooFast, "hint");
        focusInput(true);
        return;
      }
      if (err.kind === "api" && err.code === "busy") {
        showReject(TEXT.moveBusy, "hint");
        focusInput(true);
        return;
      }
      if (err.kind === "api" && err.code === "bad_request" && err.message) {
        // e.g. a word that is too long; the game itself is still fine.
        showReject(err.message, "reject", "bad_request");
        focusInput(true);
        return;
      }
      handleGameError(err, refreshState);
    });
  }

  // The player's last word left the bot without a reply: show it, pause, then end.
  function showFinalMove(view, played) {
    var chain = chainOf(view);
    renderChain("play", chain, view.session);
    $("score").textContent = String(toInt(view.score, 0));
    stopTicking();
    app.view = view;
    app.session = String(view.session);
    startThinking(played, function () {
      renderEnd(view);
    });
  }

  function giveUpPressed() {
    var button = $("give-up-button");
    if (app.busy || app.thinking) {
      return;
    }
    if (button.getAttribute("data-armed") !== "true") {
      button.setAttribute("data-armed", "true");
      button.textContent = TEXT.giveUpArmed;
      app.giveUpTimer = window.setTimeout(disarmGiveUp, GIVE_UP_ARM_MS);
      return;
    }
    disarmGiveUp();
    hideNetworkError();
    var epoch = app.epoch;
    setBusy(true);
    post("give-up", { session: app.session }).then(function (view) {
      if (epoch !== app.epoch) {
        return;
      }
      setBusy(false);
      applyView(view);
    }, function (err) {
      if (epoch !== app.epoch) {
        return;
      }
      setBusy(false);
      if (!handleGameError(err, refreshState)) {
        showNetworkError(err, refreshState);
      }
    });
  }

  function disarmGiveUp() {
    if (app.giveUpTimer) {
      window.clearTimeout(app.giveUpTimer);
      app.giveUpTimer = 0;
    }
    var button = $("give-up-button");
    button.removeAttribute("data-armed");
    button.textContent = TEXT.giveUp;
  }

  function showReject(text, kind, reason) {
    var box = $("reject-message");
    box.textContent = text;
    box.setAttribute("data-kind", kind || "reject");
    if (reason) {
      box.setAttribute("data-reason", reason);
    } else {
      box.removeAttribute("data-reason");
    }
    $("word-input").setAttribute("aria-invalid", kind === "reject" ? "true" : "false");
  }

  function clearReject() {
    var box = $("reject-message");
    box.textContent = "";
    box.removeAttribute("data-kind");
    box.removeAttribute("data-reason");
    $("word-input").removeAttribute("aria-invalid");
  }

  // ---- chain ------------------------------------------------------------------

  var meaningSeq = 0;

  function itemWord(item) {
    if (item && typeof item === "object") {
      return String(item.word || "");
    }
    return String(item || "");
  }

  function renderMeanings(item) {
    var meanings = item && typeof item === "object" && Array.isArray(item.meanings) ? item.meanings : [];
    var list = meanings.filter(function (m) {
      return m && (typeof m === "string" || m.gloss);
    });
    if (!list.length) {
      return el("p", "no-meaning", TEXT.noMeaning);
    }
    // No nested <li> here, so "#chain li" and "#suggestions li" only match words.
    var ul = el("div", "meaning-list");
    ul.setAttribute("role", "list");
    list.forEach(function (m) {
      var li = el("p", "meaning");
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
    var by = item && item.by === "player" ? "player" : "bot";
    var word = itemWord(item);
    var li = el("li", "chain-item");
    li.setAttribute("data-by", by);
    li.setAttribute("data-word", word);
    li.setAttribute("data-index", String(index));

    var row = el("div", "chain-row");
    var who = el("span", "chain-who", by === "player" ? TEXT.you : TEXT.bot);
    row.appendChild(who);
    row.appendChild(el("span", "chain-word", word));
    if (by === "player") {
      var pts = el("span", "chain-points", "+" + toInt(item.points, 0));
      pts.setAttribute("aria-label", toInt(item.points, 0) + " điểm");
      row.appendChild(pts);
    }
    var panelId = "meaning-" + (++meaningSeq);
    var toggle = el("button", "meaning-toggle", TEXT.meaning);
    toggle.type = "button";
    toggle.setAttribute("aria-expanded", "false");
    toggle.setAttribute("aria-controls", panelId);
    toggle.setAttribute("aria-label", TEXT.meaning + " của “" + word + "”");
    row.appendChild(toggle);
    li.appendChild(row);

    var panel = el("div", "meanings");
    panel.id = panelId;
    panel.hidden = true;
    panel.appendChild(renderMeanings(item));
    li.appendChild(panel);
    return li;
  }

  // Chains only grow during a game, so new words are prepended (newest on top)
  // and open meaning panels stay open.
  function renderChain(which, chain, session) {
    var list = $(which === "play" ? "chain" : "end-chain");
    if (app.chainSession[which] !== session || chain.length < app.chainRendered[which]) {
      list.textContent = "";
      app.chainRendered[which] = 0;
      app.chainSession[which] = session;
    }
    for (var i = app.chainRendered[which]; i < chain.length; i++) {
      var li = chainItem(chain[i], i + 1);
      list.insertBefore(li, list.firstChild);
    }
    app.chainRendered[which] = chain.length;
    var fresh = list.querySelector(".chain-item.newest");
    if (fresh) {
      fresh.classList.remove("newest");
    }
    if (list.firstChild) {
      list.firstChild.classList.add("newest");
    }
    var count = $(which === "play" ? "chain-count" : "end-chain-count");
    count.textContent = chain.length ? "(" + chain.length + TEXT.words + ")" : "";
  }

  function onChainClick(event) {
    var toggle = event.target.closest ? event.target.closest(".meaning-toggle") : null;
    if (!toggle) {
      return;
    }
    var panel = $(toggle.getAttribute("aria-controls"));
    var open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    if (panel) {
      panel.hidden = !open;
    }
  }

  // ---- end screen ---------------------------------------------------------------

  function renderEnd(view) {
    cancelThinking();
    showScreen("end");
    $("screen-end").setAttribute("data-status", String(view.status));
    var won = view.status === "won";
    var reason = String(view.end_reason || "");
    $("end-title").textContent = won ? TEXT.won : view.status === "lost" ? TEXT.lost : TEXT.over;
    $("end-result").setAttribute("data-outcome", won ? "won" : "lost");
    var reasonBox = $("end-reason");
    var reasonText = (END_REASONS[reason] || "").replace("{s}",
      String(Math.round(Math.max(toInt(view.turn_limit_ms, 30000), 1000) / 1000)));
    if (reason === "no_legal_move" && view.current) {
      reasonText = "Không còn từ nào bắt đầu bằng “" + view.current + "” để nối.";
    }
    reasonBox.textContent = reasonText;
    reasonBox.setAttribute("data-reason", reason);
    $("final-score").textContent = String(toInt(view.score, 0));
    renderReport(view.score_reported);
    renderSuggestions(view);
    renderChain("end", chainOf(view), view.session);
    updateShareButton();
    app.reportPolls = 0;
    if (view.score_reported === "pending") {
      scheduleReportPoll();
    }
    var again = $("play-again");
    try {
      again.focus({ preventScroll: true });
    } catch (e) {
      again.focus();
    }
  }

  function renderReport(state) {
    var box = $("score-report");
    state = state ? String(state) : "";
    box.setAttribute("data-state", state);
    box.textContent = REPORT_TEXT[state] || "";
  }

  function renderSuggestions(view) {
    var box = $("suggestions");
    box.textContent = "";
    if (view.status !== "lost") {
      box.hidden = true;
      return;
    }
    var list = Array.isArray(view.suggestions) ? view.suggestions : [];
    list = list.filter(function (s) {
      return itemWord(s);
    });
    box.hidden = false;
    if (!list.length) {
      box.appendChild(el("p", "dead-end", TEXT.deadEnd));
      return;
    }
    box.appendChild(el("h3", "suggest-title", TEXT.suggestTitle));
    var ul = el("ul", "suggest-list");
    list.forEach(function (s) {
      var li = el("li", "suggest-item");
      li.setAttribute("data-word", itemWord(s));
      li.appendChild(el("span", "suggest-word", itemWord(s)));
      li.appendChild(renderMeanings(s));
      ul.appendChild(li);
    });
    box.appendChild(ul);
  }

  function scheduleReportPoll() {
    stopReportPolling();
    if (app.reportPolls >= REPORT_POLL_MAX) {
      return;
    }
    app.reportTimer = window.setTimeout(pollReport, REPORT_POLL_MS);
  }

  function stopReportPolling() {
    if (app.reportTimer) {
      window.clearTimeout(app.reportTimer);
      app.reportTimer = 0;
    }
  }

  function pollReport() {
    app.reportTimer = 0;
    if (app.screen !== "end" || !app.session) {
      return;
    }
    app.reportPolls += 1;
    var epoch = app.epoch;
    var session = app.session;
    postOnce("state", { session: session }).then(function (view) {
      if (epoch !== app.epoch || app.screen !== "end" || !view || view.session !== session) {
        return;
      }
      app.view = view;
      renderReport(view.score_reported);
      $("final-score").textContent = String(toInt(view.score, 0));
      if (view.score_reported === "pending") {
        scheduleReportPoll();
      }
    }, function (err) {
      if (epoch !== app.epoch || app.screen !== "end") {
        return;
      }
      if (err.kind === "api" && err.code === "no_session") {
        goToStart(TEXT.noSession);
        return;
      }
      // A hiccup while waiting for the leaderboard: keep trying quietly.
      scheduleReportPoll();
    });
  }

  function shareAvailable() {
    return !!(window.TelegramGameProxy && typeof window.TelegramGameProxy.shareScore === "function");
  }

  function updateShareButton() {
    $("share-button").hidden = !shareAvailable();
  }

  function shareScore() {
    if (!shareAvailable()) {
      return;
    }
    try {
      window.TelegramGameProxy.shareScore();
    } catch (e) {
      /* nothing useful to do; Telegram shows its own UI */
    }
  }

  function playAgain() {
    hideNetworkError();
    goToStart("");
    $("start-button").focus();
  }

  // ---- boot -------------------------------------------------------------------

  // Takes the token out of the address bar so a copied link does not carry it.
  function readToken() {
    var fromUrl = "";
    try {
      var url = new URL(window.location.href);
      fromUrl = url.searchParams.get("t") || "";
      if (url.searchParams.has("t")) {
        url.searchParams.delete("t");
        window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
      }
    } catch (e) {
      /* keep whatever we could read */
    }
    var stored = storeGet(STORE_TOKEN);
    if (fromUrl) {
      if (fromUrl !== stored) {
        // A new game link (another game message): the old session is not ours to resume.
        storeSet(STORE_SESSION, "");
      }
      storeSet(STORE_TOKEN, fromUrl);
      return fromUrl;
    }
    return stored;
  }

  function resume() {
    hideNetworkError();
    showLoading();
    var epoch = app.epoch;
    app.busy = true;
    post("state", { session: app.session }).then(function (view) {
      if (epoch !== app.epoch) {
        return;
      }
      setBusy(false);
      applyView(view, { fresh: true });
    }, function (err) {
      if (epoch !== app.epoch) {
        return;
      }
      setBusy(false);
      if (err.kind === "api" && (err.code === "no_session" || err.code === "bad_request" || err.code === "game_over")) {
        goToStart(TEXT.noSession);
        return;
      }
      showNetworkError(err, resume);
    });
  }

  function onVisible() {
    if (document.visibilityState !== "visible") {
      return;
    }
    if (app.screen === "play" && !app.thinking) {
      refreshState({ keepFocus: true });
    } else if (app.screen === "end" && app.view && app.view.score_reported === "pending" && !app.reportTimer) {
      app.reportPolls = 0;
      pollReport();
    }
  }

  function wire() {
    $("start-button").addEventListener("click", startGame);
    $("move-form").addEventListener("submit", function (event) {
      event.preventDefault();
      sendMove();
    });
    // Keep the keyboard up on phones: tapping Send must not take the focus away
    // from the input (the click still fires).
    ["pointerdown", "mousedown"].forEach(function (type) {
      $("send-button").addEventListener(type, function (event) {
        if (document.activeElement === $("word-input")) {
          event.preventDefault();
        }
      });
    });
    $("word-input").addEventListener("input", function () {
      if ($("reject-message").getAttribute("data-kind") === "hint") {
        clearReject();
      }
    });
    $("give-up-button").addEventListener("click", giveUpPressed);
    $("play-again").addEventListener("click", playAgain);
    $("share-button").addEventListener("click", shareScore);
    $("retry-button").addEventListener("click", function () {
      var retry = app.retry;
      hideNetworkError();
      if (retry) {
        retry();
      }
    });
    $("chain").addEventListener("click", onChainClick);
    $("end-chain").addEventListener("click", onChainClick);
    document.addEventListener("visibilitychange", onVisible);
    var games = $("telegram-games-js");
    if (games) {
      games.addEventListener("load", updateShareButton);
    }
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) {
        onVisible();
      }
    });
  }

  function boot() {
    var live = el("p", "visually-hidden");
    live.id = "sr-live";
    live.setAttribute("aria-live", "polite");
    document.body.appendChild(live);

    wire();
    var remembered = storeGet(STORE_DIFFICULTY);
    if (remembered && $("difficulty-" + remembered)) {
      $("difficulty-" + remembered).checked = true;
    }
    app.token = readToken();
    if (!app.token) {
      showScreen("notoken");
      return;
    }
    app.session = storeGet(STORE_SESSION);
    if (app.session) {
      resume();
    } else {
      goToStart("");
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", boot);
  } else {
    boot();
  }
})();

// Built-in bot "strong" for Búa Bao Kéo 9×9 (the bot arena, "Đấu bot").
//
// A standalone program run through the same runner, protocol, clock and sandbox limits
// as an uploaded bot: one YOUR_TURN line in on stdin, one compact ACTION line out on
// stdout, until EOF. C++17 standard library only (g++ -std=c++17 -O2).
//
// How it plays: a time-bounded iterative-deepening negamax with alpha-beta (principal
// variation search), a transposition table kept between turns, null-move pruning, late
// move reductions, killer/history move ordering, and a quiescence search over winning
// fights and base captures (with "evasions" when the opponent threatens to take our
// base next move). The evaluation counts material with the rock-paper-scissors balance
// (a type is worth more while the opponent keeps pieces it beats and has fewer that beat
// it; a type nothing can beat any more is worth a lot more), hanging pieces, pressure on
// the enemy base and danger around our own, and closeness to the pieces we can beat.
//
// Time: the search stops at a hard budget checked against both the wall clock and the
// process CPU clock (later turns: ~0.8 s wall or ~0.35 s CPU; the first turn 2 s wall or
// 0.8 s CPU), far inside the 2 s per reply even under the 0.5-CPU quota. A legal answer
// is always ready: the first legal action before the search starts, then the best move
// of the deepest finished iteration.
//
// Pondering: after answering, it goes on searching the position the opponent faces
// until the next request arrives (stdin is polled every ~1000 nodes, so a reply is never
// delayed) or 1.5 s of CPU have gone; the transposition table then already holds its
// answers to the opponent's likely moves. This uses only the bot's own CPU quota, while
// the opponent thinks; the next reply's budget is unchanged.
//
// Rules as the server applies them (spec A3/B1): a piece moves one square in any of the
// 8 directions; ROCK beats SCISSORS, SCISSORS beats PAPER, PAPER beats ROCK; the winner
// of a fight stands on the target square, a losing attacker is removed, the same type
// changes nothing (the turn still counts). After every action: a side whose base holds
// an enemy piece loses; then a side with no pieces loses; then at the turn limit (200)
// more pieces alive wins, equal is a draw. P1's base is (rows-1, 0), P2's is (0, cols-1).
//
// Optional command-line flags (for local testing only; the server passes none):
//   --cpu-ms N   CPU budget per later turn in milliseconds (default 350)
//   --wall-ms N  wall-clock budget per later turn in milliseconds (default 800)
//   --ponder-ms N  CPU cap of pondering per wait in milliseconds (default 1500; 0: off)
//   --verbose    search statistics on stderr
//   --param NAME=VALUE   an evaluation weight (see Params), for tuning

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <poll.h>
#include <string>
#include <utility>
#include <vector>

namespace {

// ===================================================================================
// A tiny JSON reader. It keeps each value's raw span in the source line, so the chosen
// legal action can be echoed byte for byte as the server sent it.
// ===================================================================================

struct Json {
    enum Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Null;
    bool boolean = false;
    std::string text;             // decoded string, or the raw text of a number
    size_t begin = 0, end = 0;    // raw span in the source
    std::vector<Json> items;      // array elements, or object values
    std::vector<std::string> keys;  // object keys, parallel to items

    const Json* get(const char* key) const {
        if (kind != Object) return nullptr;
        for (size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return &items[i];
        return nullptr;
    }
    bool isInteger() const {
        if (kind != Number || text.empty()) return false;
        for (char c : text)
            if (c == '.' || c == 'e' || c == 'E') return false;
        return true;
    }
    long long asInt(long long fallback = 0) const {
        if (!isInteger()) return fallback;
        return std::strtoll(text.c_str(), nullptr, 10);
    }
    std::string asString() const { return kind == String ? text : std::string(); }
};

class JsonReader {
public:
    explicit JsonReader(const std::string& src) : s_(src) {}

    bool parse(Json& out) {
        pos_ = 0;
        skipSpace();
        if (!value(out, 0)) return false;
        skipSpace();
        return pos_ == s_.size();
    }

private:
    const std::string& s_;
    size_t pos_ = 0;

    void skipSpace() {
        while (pos_ < s_.size()) {
            char c = s_[pos_];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
            ++pos_;
        }
    }
    bool literal(const char* word) {
        size_t n = std::strlen(word);
        if (s_.compare(pos_, n, word) != 0) return false;
        pos_ += n;
        return true;
    }
    bool value(Json& v, int depth) {
        if (depth > 64 || pos_ >= s_.size()) return false;
        v.begin = pos_;
        bool ok = false;
        char c = s_[pos_];
        if (c == '{') {
            ok = object(v, depth);
        } else if (c == '[') {
            ok = array(v, depth);
        } else if (c == '"') {
            v.kind = Json::String;
            ok = string(v.text);
        } else if (c == 't') {
            v.kind = Json::Bool;
            v.boolean = true;
            ok = literal("true");
        } else if (c == 'f') {
            v.kind = Json::Bool;
            ok = literal("false");
        } else if (c == 'n') {
            ok = literal("null");
        } else {
            v.kind = Json::Number;
            ok = number(v.text);
        }
        v.end = pos_;
        return ok;
    }
    bool number(std::string& out) {
        size_t start = pos_;
        if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
        size_t digits = pos_;
        while (pos_ < s_.size()) {
            char c = s_[pos_];
            if ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')
                ++pos_;
            else
                break;
        }
        if (pos_ == digits) return false;
        out.assign(s_, start, pos_ - start);
        return true;
    }
    static void putUtf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }
    bool hex4(unsigned& cp) {
        if (pos_ + 4 > s_.size()) return false;
        cp = 0;
        for (int k = 0; k < 4; ++k) {
            char c = s_[pos_++];
            cp <<= 4;
            if (c >= '0' && c <= '9') cp |= static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f') cp |= static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') cp |= static_cast<unsigned>(c - 'A' + 10);
            else return false;
        }
        return true;
    }
    bool string(std::string& out) {
        ++pos_;  // opening quote
        out.clear();
        while (pos_ < s_.size()) {
            char c = s_[pos_++];
            if (c == '"') return true;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= s_.size()) return false;
            char e = s_[pos_++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned cp;
                    if (!hex4(cp)) return false;
                    if (cp >= 0xD800 && cp < 0xDC00 && pos_ + 6 <= s_.size() && s_[pos_] == '\\' &&
                        s_[pos_ + 1] == 'u') {
                        pos_ += 2;
                        unsigned low;
                        if (!hex4(low)) return false;
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    }
                    putUtf8(out, cp);
                    break;
                }
                default: return false;
            }
        }
        return false;
    }
    bool array(Json& v, int depth) {
        v.kind = Json::Array;
        ++pos_;
        skipSpace();
        if (pos_ < s_.size() && s_[pos_] == ']') {
            ++pos_;
            return true;
        }
        while (true) {
            v.items.emplace_back();
            skipSpace();
            if (!value(v.items.back(), depth + 1)) return false;
            skipSpace();
            if (pos_ >= s_.size()) return false;
            if (s_[pos_] == ',') {
                ++pos_;
                continue;
            }
            if (s_[pos_] == ']') {
                ++pos_;
                return true;
            }
            return false;
        }
    }
    bool object(Json& v, int depth) {
        v.kind = Json::Object;
        ++pos_;
        skipSpace();
        if (pos_ < s_.size() && s_[pos_] == '}') {
            ++pos_;
            return true;
        }
        while (true) {
            skipSpace();
            if (pos_ >= s_.size() || s_[pos_] != '"') return false;
            v.keys.emplace_back();
            if (!string(v.keys.back())) return false;
            skipSpace();
            if (pos_ >= s_.size() || s_[pos_] != ':') return false;
            ++pos_;
            skipSpace();
            v.items.emplace_back();
            if (!value(v.items.back(), depth + 1)) return false;
            skipSpace();
            if (pos_ >= s_.size()) return false;
            if (s_[pos_] == ',') {
                ++pos_;
                continue;
            }
            if (s_[pos_] == '}') {
                ++pos_;
                return true;
            }
            return false;
        }
    }
};

// ===================================================================================
// Clocks
// ===================================================================================

double wallSeconds() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

double cpuSeconds() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

// ===================================================================================
// The game
// ===================================================================================

constexpr int ROCK = 0, PAPER = 1, SCISSORS = 2;
// BEATS[a][b]: type a wins a fight against type b (whichever attacks).
constexpr bool BEATS[3][3] = {
    /* ROCK     */ {false, false, true},
    /* PAPER    */ {true, false, false},
    /* SCISSORS */ {false, true, false},
};
constexpr int PREY[3] = {SCISSORS, ROCK, PAPER};      // the type t beats
constexpr int PREDATOR[3] = {PAPER, SCISSORS, ROCK};  // the type that beats t

constexpr int DEFAULT_TURN_LIMIT = 200;

constexpr int INF = 1000000;
constexpr int WIN_SCORE = 900000;  // a won game, minus the ply it happens at
constexpr int WIN_BOUND = 800000;  // scores beyond this are forced wins/losses
constexpr int MAX_PLY = 96;
constexpr int MAX_MOVES = 512;     // 18 pieces x 8 directions, with room to spare
constexpr int MAX_PIECES = 160;    // per request; more are ignored

enum MoveKind { QUIET = 0, FIGHT_WIN = 1, FIGHT_LOSE = 2, FIGHT_TIE = 3, PASS_MOVE = 4 };

struct Piece {
    int side = 0;  // 0 = P1, 1 = P2
    int type = 0;
    int sq = 0;
    bool alive = true;
};

struct Undo {
    int from, to, mover, victim, kind;
    uint64_t hash;
};

uint64_t splitmix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

// Move encoding: from * 65536 + to; PASS is the special value below (0 means "none").
constexpr uint32_t PASS_CODE = 0xFFFFFFFFu;
inline uint32_t encodeMove(int from, int to) { return (static_cast<uint32_t>(from) << 16) | static_cast<uint32_t>(to); }
inline int moveFrom(uint32_t m) { return static_cast<int>(m >> 16); }
inline int moveTo(uint32_t m) { return static_cast<int>(m & 0xFFFF); }

struct TTEntry {
    uint64_t key = 0;
    uint32_t move = 0;
    int32_t score = 0;
    int16_t depth = -1;
    uint8_t flag = 0;  // 0 empty, 1 exact, 2 lower bound, 3 upper bound
};

// Evaluation weights, in hundredths of a plain piece.
struct Params {
    int prey = 6;           // a type gains this per enemy piece it beats
    int predator = 6;       // ... and loses this per enemy piece that beats it
    int safe = 24;          // nothing the opponent has left can beat this type
    int safePrey = 4;       // ... plus this per enemy piece it can still beat
    int hang = 55;          // % of the second attacked piece of the side to move
    int oppHang = 10;       // % of the second attacked piece of the side waiting
    int chase = 2;          // per square of distance to the nearest enemy it beats
    int advance[10] = {0, 36, 18, 9, 5, 3, 2, 1, 0, 0};  // by distance to the enemy base
    int safeAdvance = 3;    // multiplier of `advance` for a type nothing can beat
    int danger[4] = {0, 60, 30, 12};  // unanswered enemy at this distance from our base
    int fadeTurns = 40;     // balance terms fade out over the last turns
    // Search switches (for experiments).
    int nullMove = 1;
    int lmr = 1;
    int lmrStart = 3;       // moves searched in full before reductions start
    int lmrDeep = 12;       // from this move on, reduce by two plies
    int futility = 0;       // frontier futility margin (0: off)
    int center = 3;         // per square closer to the board's centre (mobility)
};

class Engine {
public:
    Params params;

    // ---------------- the position ----------------
    int rows = 0, cols = 0, squares = 0;
    std::vector<int> rowOf, colOf;
    std::vector<int> nbrStart, nbrList;  // neighbours of sq: nbrList[nbrStart[sq] .. nbrStart[sq+1])
    std::vector<int> board;              // piece index or -1
    std::vector<Piece> pieces;
    int count[2][3] = {{0, 0, 0}, {0, 0, 0}};
    int total[2] = {0, 0};
    int baseSq[2] = {0, 0};
    int stm = 0;
    int turn = 0;
    int turnLimit = DEFAULT_TURN_LIMIT;
    uint64_t hash = 0;
    std::vector<uint64_t> zobrist;  // [sq * 6 + side * 3 + type]
    uint64_t zSide = 0;

    // ---------------- search state ----------------
    std::vector<TTEntry> tt;
    uint64_t ttMask = 0;
    uint32_t killers[MAX_PLY + 8][2] = {};
    std::vector<int32_t> history;  // [(side * squares + from) * squares + to], if small enough
    uint32_t moveBuf[MAX_PLY + 8][MAX_MOVES];
    int scoreBuf[MAX_PLY + 8][MAX_MOVES];
    long long nodes = 0;
    bool stopped = false;
    bool pondering = false;
    double startWall = 0, startCpu = 0, wallBudget = 0.8, cpuBudget = 0.35;
    bool verbose = false;

    void configureBoard(int r, int c) {
        if (r == rows && c == cols) return;
        rows = r;
        cols = c;
        squares = r * c;
        rowOf.assign(squares, 0);
        colOf.assign(squares, 0);
        for (int sq = 0; sq < squares; ++sq) {
            rowOf[sq] = sq / cols;
            colOf[sq] = sq % cols;
        }
        nbrStart.assign(squares + 1, 0);
        nbrList.clear();
        for (int sq = 0; sq < squares; ++sq) {
            nbrStart[sq] = static_cast<int>(nbrList.size());
            for (int dr = -1; dr <= 1; ++dr)
                for (int dc = -1; dc <= 1; ++dc) {
                    if (dr == 0 && dc == 0) continue;
                    int nr = rowOf[sq] + dr, nc = colOf[sq] + dc;
                    if (nr >= 0 && nr < rows && nc >= 0 && nc < cols) nbrList.push_back(nr * cols + nc);
                }
        }
        nbrStart[squares] = static_cast<int>(nbrList.size());
        zobrist.assign(static_cast<size_t>(squares) * 6, 0);
        for (size_t i = 0; i < zobrist.size(); ++i) zobrist[i] = splitmix(i * 7919 + 12345);
        zSide = splitmix(0xABCDEF);
        size_t historySize = static_cast<size_t>(2) * squares * squares;
        history.assign(historySize <= 4000000 ? historySize : 0, 0);
        std::fill(tt.begin(), tt.end(), TTEntry());
        baseSq[0] = (rows - 1) * cols;  // P1's base: bottom-left
        baseSq[1] = cols - 1;           // P2's base: top-right
    }

    void allocateTT(int bits) {
        tt.assign(static_cast<size_t>(1) << bits, TTEntry());
        ttMask = (static_cast<uint64_t>(1) << bits) - 1;
    }

    uint64_t zPiece(int sq, int side, int type) const { return zobrist[static_cast<size_t>(sq) * 6 + side * 3 + type]; }
    static uint64_t zTurn(int t) { return splitmix(0x5151515151ULL + static_cast<uint64_t>(t)); }

    void clearPieces() {
        board.assign(squares, -1);
        pieces.clear();
        std::memset(count, 0, sizeof count);
        total[0] = total[1] = 0;
    }

    bool addPiece(int side, int type, int sq) {
        if (sq < 0 || sq >= squares || board[sq] != -1 || static_cast<int>(pieces.size()) >= MAX_PIECES) return false;
        Piece p;
        p.side = side;
        p.type = type;
        p.sq = sq;
        board[sq] = static_cast<int>(pieces.size());
        pieces.push_back(p);
        ++count[side][type];
        ++total[side];
        return true;
    }

    void computeHash() {
        hash = 0;
        for (const Piece& p : pieces)
            if (p.alive) hash ^= zPiece(p.sq, p.side, p.type);
        if (stm) hash ^= zSide;
        hash ^= zTurn(turn);
    }

    // ---------------- rules ----------------
    int dist(int a, int b) const {
        int dr = rowOf[a] - rowOf[b];
        int dc = colOf[a] - colOf[b];
        if (dr < 0) dr = -dr;
        if (dc < 0) dc = -dc;
        return dr > dc ? dr : dc;
    }

    int kindOf(int from, int to) const {
        int t = board[to];
        if (t < 0) return QUIET;
        int a = pieces[board[from]].type, d = pieces[t].type;
        if (BEATS[a][d]) return FIGHT_WIN;
        if (BEATS[d][a]) return FIGHT_LOSE;
        return FIGHT_TIE;
    }

    void make(uint32_t m, Undo& u) {
        u.hash = hash;
        if (m == PASS_CODE) {
            u.kind = PASS_MOVE;
        } else {
            int from = moveFrom(m), to = moveTo(m);
            u.from = from;
            u.to = to;
            int p = board[from];
            int t = board[to];
            u.mover = p;
            u.victim = t;
            Piece& mp = pieces[p];
            if (t < 0) {
                u.kind = QUIET;
                board[from] = -1;
                board[to] = p;
                hash ^= zPiece(from, mp.side, mp.type) ^ zPiece(to, mp.side, mp.type);
                mp.sq = to;
            } else {
                Piece& dp = pieces[t];
                if (BEATS[mp.type][dp.type]) {
                    u.kind = FIGHT_WIN;
                    dp.alive = false;
                    --count[dp.side][dp.type];
                    --total[dp.side];
                    hash ^= zPiece(to, dp.side, dp.type);
                    board[from] = -1;
                    board[to] = p;
                    hash ^= zPiece(from, mp.side, mp.type) ^ zPiece(to, mp.side, mp.type);
                    mp.sq = to;
                } else if (BEATS[dp.type][mp.type]) {
                    u.kind = FIGHT_LOSE;
                    mp.alive = false;
                    --count[mp.side][mp.type];
                    --total[mp.side];
                    hash ^= zPiece(from, mp.side, mp.type);
                    board[from] = -1;
                } else {
                    u.kind = FIGHT_TIE;  // nothing changes but the turn
                }
            }
        }
        hash ^= zSide ^ zTurn(turn) ^ zTurn(turn + 1);
        ++turn;
        stm ^= 1;
    }

    void unmake(const Undo& u) {
        stm ^= 1;
        --turn;
        hash = u.hash;
        if (u.kind == PASS_MOVE || u.kind == FIGHT_TIE) return;
        Piece& mp = pieces[u.mover];
        if (u.kind == QUIET) {
            board[u.to] = -1;
            board[u.from] = u.mover;
            mp.sq = u.from;
        } else if (u.kind == FIGHT_WIN) {
            Piece& dp = pieces[u.victim];
            dp.alive = true;
            ++count[dp.side][dp.type];
            ++total[dp.side];
            board[u.to] = u.victim;
            board[u.from] = u.mover;
            mp.sq = u.from;
        } else {  // FIGHT_LOSE
            mp.alive = true;
            ++count[mp.side][mp.type];
            ++total[mp.side];
            board[u.from] = u.mover;
        }
    }

    // After a move: has the game ended? 2 = play goes on; otherwise the result for the
    // side to move: +1 won, -1 lost, 0 draw. Same order as the server's checks.
    int outcome() const {
        int mover = stm ^ 1;
        int occupant = board[baseSq[stm]];
        if (occupant >= 0 && pieces[occupant].side == mover) return -1;
        occupant = board[baseSq[mover]];
        if (occupant >= 0 && pieces[occupant].side == stm) return 1;
        if (total[stm] == 0) return -1;
        if (total[mover] == 0) return 1;
        if (turn >= turnLimit) {
            if (total[stm] > total[mover]) return 1;
            if (total[stm] < total[mover]) return -1;
            return 0;
        }
        return 2;
    }

    // Can `side` take the enemy base with its next move?
    bool canTakeBase(int side) const {
        int b = baseSq[side ^ 1];
        int occupant = board[b];
        int defender = -1;
        if (occupant >= 0) {
            if (pieces[occupant].side == side) return false;
            defender = pieces[occupant].type;
        }
        for (int k = nbrStart[b]; k < nbrStart[b + 1]; ++k) {
            int p = board[nbrList[k]];
            if (p < 0 || pieces[p].side != side) continue;
            if (defender < 0 || BEATS[pieces[p].type][defender]) return true;
        }
        return false;
    }

    // ---------------- evaluation ----------------
    int pieceValue(int side, int type, int balancePct) const {
        int o = side ^ 1;
        int prey = count[o][PREY[type]];
        int pred = count[o][PREDATOR[type]];
        int v = params.prey * prey - params.predator * pred;
        if (pred == 0) v += params.safe + params.safePrey * prey;
        return 100 + v * balancePct / 100;
    }

    // Static score from the side to move's point of view.
    int evaluate() const {
        const Params& P = params;
        int left = turnLimit - turn;
        int balancePct = left >= P.fadeTurns ? 100 : (left <= 0 ? 0 : left * 100 / P.fadeTurns);
        int value[2][3];
        for (int s = 0; s < 2; ++s)
            for (int t = 0; t < 3; ++t) value[s][t] = pieceValue(s, t, balancePct);

        // Squares of each side's pieces of each type.
        int where[2][3][MAX_PIECES];
        int n[2][3] = {{0, 0, 0}, {0, 0, 0}};
        for (const Piece& p : pieces)
            if (p.alive) where[p.side][p.type][n[p.side][p.type]++] = p.sq;

        int score[2] = {0, 0};
        int hangBest[2] = {0, 0}, hangSecond[2] = {0, 0};
        for (int s = 0; s < 2; ++s) {
            const int o = s ^ 1;
            for (int t = 0; t < 3; ++t) {
                const int v = value[s][t];
                const bool safe = count[o][PREDATOR[t]] == 0;
                const int prey = PREY[t];
                for (int i = 0; i < n[s][t]; ++i) {
                    const int sq = where[s][t][i];
                    score[s] += v;
                    if (P.center) {
                        int dr = 2 * rowOf[sq] - (rows - 1), dc = 2 * colOf[sq] - (cols - 1);
                        if (dr < 0) dr = -dr;
                        if (dc < 0) dc = -dc;
                        score[s] -= P.center * ((dr > dc ? dr : dc) / 2);
                    }

                    // Pressure on the enemy base.
                    if (balancePct > 0) {
                        int d = dist(sq, baseSq[o]);
                        if (d < 10) score[s] += safe ? P.advance[d] * P.safeAdvance : P.advance[d];
                    }

                    // Attacked by an enemy that beats it? Defended by one of ours that
                    // beats whatever takes it?
                    bool attacked = false, defended = false;
                    for (int k = nbrStart[sq]; k < nbrStart[sq + 1]; ++k) {
                        int q = board[nbrList[k]];
                        if (q < 0) continue;
                        const Piece& np = pieces[q];
                        if (np.side == o) {
                            if (np.type == PREDATOR[t]) attacked = true;
                        } else if (np.type == prey) {
                            defended = true;
                        }
                    }
                    if (attacked) {
                        int loss = defended ? v - value[o][PREDATOR[t]] : v;
                        if (loss > hangBest[s]) {
                            hangSecond[s] = hangBest[s];
                            hangBest[s] = loss;
                        } else if (loss > hangSecond[s]) {
                            hangSecond[s] = loss;
                        }
                    }

                    // Chase: stay near the enemy pieces this one beats.
                    if (n[o][prey] > 0) {
                        int best = 8;
                        for (int j = 0; j < n[o][prey]; ++j) {
                            int d = dist(sq, where[o][prey][j]);
                            if (d < best) best = d;
                        }
                        score[s] -= P.chase * best;
                    }
                }
            }
        }

        // Danger at each base: enemies close to it that none of its side's pieces can
        // answer (one that beats the intruder and is next to it or closer to the base).
        for (int s = 0; s < 2; ++s) {
            const int o = s ^ 1;
            const int b = baseSq[s];
            for (int t = 0; t < 3; ++t) {
                for (int i = 0; i < n[o][t]; ++i) {
                    int e = where[o][t][i];
                    int d = dist(e, b);
                    if (d > 3) continue;
                    bool answered = false;
                    const int guardType = PREDATOR[t];
                    for (int j = 0; j < n[s][guardType] && !answered; ++j) {
                        int g = where[s][guardType][j];
                        if (dist(g, e) <= 1 || dist(g, b) < d) answered = true;
                    }
                    if (!answered) score[s] -= P.danger[d];
                }
            }
        }

        const int me = stm, them = stm ^ 1;
        int result = score[me] - score[them];
        // The side to move can save one attacked piece; it risks the second. The side
        // waiting loses its best one to quiescence; the threat to a second is worth a bit.
        result -= hangSecond[me] * P.hang / 100;
        result += hangSecond[them] * P.oppHang / 100;
        return result;
    }

    // ---------------- move generation ----------------
    // The moves of the side to move into `out`; returns how many. Attacks that lose the
    // attacker are left out (never better than another move) and only one same-type
    // attack is kept (they all leave the same position), unless nothing else is left.
    int generate(uint32_t* out) const {
        int n = 0;
        bool tieKept = false;
        for (const Piece& p : pieces) {
            if (!p.alive || p.side != stm) continue;
            for (int k = nbrStart[p.sq]; k < nbrStart[p.sq + 1]; ++k) {
                int to = nbrList[k];
                int q = board[to];
                if (q >= 0) {
                    const Piece& t = pieces[q];
                    if (t.side == stm || BEATS[t.type][p.type]) continue;
                    if (!BEATS[p.type][t.type]) {
                        if (tieKept) continue;
                        tieKept = true;
                    }
                }
                if (n < MAX_MOVES) out[n++] = encodeMove(p.sq, to);
            }
        }
        if (n == 0) {  // only losing attacks (or nothing at all)
            for (const Piece& p : pieces) {
                if (!p.alive || p.side != stm) continue;
                for (int k = nbrStart[p.sq]; k < nbrStart[p.sq + 1]; ++k) {
                    int q = board[nbrList[k]];
                    if (q >= 0 && pieces[q].side != stm && n < MAX_MOVES) out[n++] = encodeMove(p.sq, nbrList[k]);
                }
            }
        }
        return n;
    }

    // Winning fights and base captures only (for quiescence).
    int generateCaptures(uint32_t* out) const {
        int n = 0;
        const int enemyBase = baseSq[stm ^ 1];
        for (const Piece& p : pieces) {
            if (!p.alive || p.side != stm) continue;
            for (int k = nbrStart[p.sq]; k < nbrStart[p.sq + 1]; ++k) {
                int to = nbrList[k];
                int q = board[to];
                if (q >= 0 ? (pieces[q].side != stm && BEATS[p.type][pieces[q].type]) : to == enemyBase)
                    if (n < MAX_MOVES) out[n++] = encodeMove(p.sq, to);
            }
        }
        return n;
    }

    // ---------------- search ----------------
    void checkTime() {
        if ((nodes & 1023) != 0) return;
        if (wallSeconds() - startWall > wallBudget || cpuSeconds() - startCpu > cpuBudget) stopped = true;
        if (pondering && inputWaiting()) stopped = true;
    }

    // Is a line (or EOF) waiting on stdin? Only asked while pondering, when the stream
    // buffer is known to be empty.
    static bool inputWaiting() {
        pollfd p;
        p.fd = 0;
        p.events = POLLIN;
        p.revents = 0;
        return poll(&p, 1, 0) > 0;
    }

    // Pondering: after answering, search the position the opponent now faces until its
    // next request arrives (or a CPU cap), so the transposition table already holds
    // our answers to its likely moves. It uses only our own CPU quota while the
    // opponent thinks; it never delays a reply (stdin is polled every ~1000 nodes).
    void ponder(uint32_t ourMove, double cpuCap) {
        if (ourMove == 0 || ourMove == PASS_CODE || inputWaiting()) return;
        Undo u;
        make(ourMove, u);
        if (outcome() == 2) {
            uint32_t* buf = moveBuf[MAX_PLY + 4];
            int n = generate(buf);
            std::vector<uint32_t> replies(buf, buf + n);
            if (n >= 1) {
                pondering = true;
                searchRoot(replies, 1e9, cpuCap);
                pondering = false;
            }
        }
        unmake(u);
        stopped = false;
    }

    int historyIndex(uint32_t m) const { return (stm * squares + moveFrom(m)) * squares + moveTo(m); }

    void ttStore(int depth, int score, int flag, uint32_t move, int ply) {
        if (tt.empty()) return;
        if (score > WIN_BOUND) score += ply;
        else if (score < -WIN_BOUND) score -= ply;
        TTEntry& e = tt[hash & ttMask];
        if (e.key != hash || depth >= e.depth || flag == 1) {
            if (move != 0 || e.key != hash) e.move = move;
            e.key = hash;
            e.depth = static_cast<int16_t>(depth);
            e.score = score;
            e.flag = static_cast<uint8_t>(flag);
        }
    }

    // Scores moves for ordering: TT move, base captures, winning fights (most valuable
    // victim first), killers, then quiet moves (threats made first, steps next to an
    // enemy that beats the piece last, history in between), ties last.
    void scoreMoves(const uint32_t* moves, int* scores, int n, uint32_t ttMove, int ply) const {
        const int enemyBase = baseSq[stm ^ 1];
        for (int i = 0; i < n; ++i) {
            uint32_t m = moves[i];
            int s;
            if (m == ttMove) {
                s = 100000000;
            } else if (m == PASS_CODE) {
                s = -1000000;
            } else {
                int from = moveFrom(m), to = moveTo(m);
                int mover = board[from];
                const Piece& p = pieces[mover];
                int q = board[to];
                if (to == enemyBase) {
                    s = 90000000;
                } else if (q >= 0) {
                    const Piece& t = pieces[q];
                    if (BEATS[p.type][t.type]) s = 50000000 + 1000 * pieceValue(t.side, t.type, 100) - p.type;
                    else if (BEATS[t.type][p.type]) s = -900000;
                    else s = -500000;
                } else if (m == killers[ply][0]) {
                    s = 40000000;
                } else if (m == killers[ply][1]) {
                    s = 39000000;
                } else {
                    s = history.empty() ? 0 : history[historyIndex(m)];
                    bool danger = false, threat = false;
                    for (int k = nbrStart[to]; k < nbrStart[to + 1]; ++k) {
                        int e = board[nbrList[k]];
                        if (e < 0 || e == mover) continue;
                        const Piece& ep = pieces[e];
                        if (ep.side == stm) continue;
                        if (BEATS[ep.type][p.type]) danger = true;
                        else if (BEATS[p.type][ep.type]) threat = true;
                    }
                    if (danger) s -= 20000000;
                    else if (threat) s += 10000000;
                }
            }
            scores[i] = s;
        }
    }

    // Moves the best-scored remaining move to position i (selection sort, lazily).
    static void pickNext(uint32_t* moves, int* scores, int i, int n) {
        int best = i;
        for (int j = i + 1; j < n; ++j)
            if (scores[j] > scores[best]) best = j;
        if (best != i) {
            std::swap(moves[i], moves[best]);
            std::swap(scores[i], scores[best]);
        }
    }

    int terminalScore(int r, int ply) const {
        // r is the result for the side to move after the move; we are the mover.
        if (r == -1) return WIN_SCORE - ply - 1;
        if (r == 1) return -(WIN_SCORE - ply - 1);
        return 0;
    }

    int quiesce(int alpha, int beta, int ply, int qdepth) {
        ++nodes;
        checkTime();
        if (stopped) return 0;
        if (canTakeBase(stm)) return WIN_SCORE - ply;
        if (ply >= MAX_PLY) return evaluate();
        // When the opponent threatens to take our base, standing pat is not an option:
        // every move is tried (like check evasions), for a few plies.
        const bool evade = qdepth < 4 && canTakeBase(stm ^ 1);
        int best = -INF;
        if (!evade) {
            best = evaluate();
            if (best >= beta) return best;
            if (best > alpha) alpha = best;
        }
        uint32_t* moves = moveBuf[ply];
        int* scores = scoreBuf[ply];
        int n = evade ? generate(moves) : generateCaptures(moves);
        if (n == 0) {
            if (!evade) return best;
            moves[0] = PASS_CODE;
            n = 1;
        }
        scoreMoves(moves, scores, n, 0, ply);
        for (int i = 0; i < n; ++i) {
            pickNext(moves, scores, i, n);
            uint32_t m = moves[i];
            Undo u;
            make(m, u);
            int r = outcome();
            int score = r != 2 ? terminalScore(r, ply) : -quiesce(-beta, -alpha, ply + 1, qdepth + 1);
            unmake(u);
            if (stopped) return 0;
            if (score > best) {
                best = score;
                if (score > alpha) {
                    alpha = score;
                    if (alpha >= beta) break;
                }
            }
        }
        return best;
    }

    int search(int depth, int alpha, int beta, int ply, bool allowNull) {
        if (depth <= 0 || ply >= MAX_PLY - 8) return quiesce(alpha, beta, ply, 0);
        ++nodes;
        checkTime();
        if (stopped) return 0;
        if (canTakeBase(stm)) return WIN_SCORE - ply;
        // Mate-distance pruning.
        if (alpha < -(WIN_SCORE - ply)) alpha = -(WIN_SCORE - ply);
        if (beta > WIN_SCORE - ply - 1) beta = WIN_SCORE - ply - 1;
        if (alpha >= beta) return alpha;

        const bool pvNode = beta - alpha > 1;
        uint32_t ttMove = 0;
        if (!tt.empty()) {
            const TTEntry& e = tt[hash & ttMask];
            if (e.key == hash && e.flag != 0) {
                ttMove = e.move;
                if (e.depth >= depth && !pvNode) {
                    int s = e.score;
                    if (s > WIN_BOUND) s -= ply;
                    else if (s < -WIN_BOUND) s += ply;
                    if (e.flag == 1) return s;
                    if (e.flag == 2 && s >= beta) return s;
                    if (e.flag == 3 && s <= alpha) return s;
                }
            }
        }

        const bool threatened = canTakeBase(stm ^ 1);
        if (threatened && ply < 24) ++depth;  // like a check extension

        // Null move. A same-type attack really is a pass in this game, so passing is
        // almost always possible and zugzwang is rare.
        if (params.nullMove && allowNull && !pvNode && !threatened && depth >= 3 && total[stm] >= 3 && turn + depth < turnLimit &&
            beta < WIN_BOUND && beta > -WIN_BOUND) {
            if (evaluate() >= beta) {
                Undo u;
                make(PASS_CODE, u);
                int r = depth >= 6 ? 3 : 2;
                int score = -search(depth - 1 - r, -beta, -beta + 1, ply + 1, false);
                unmake(u);
                if (stopped) return 0;
                if (score >= beta && score < WIN_BOUND) return score;
            }
        }

        // Frontier futility: at the last plies, quiet moves cannot lift a hopeless
        // static score above alpha.
        bool futile = false;
        if (params.futility > 0 && depth <= 2 && !pvNode && !threatened && alpha > -WIN_BOUND && alpha < WIN_BOUND)
            futile = evaluate() + params.futility * depth <= alpha;

        uint32_t* moves = moveBuf[ply];
        int* scores = scoreBuf[ply];
        int n = generate(moves);
        if (n == 0) {
            moves[0] = PASS_CODE;
            n = 1;
        }
        scoreMoves(moves, scores, n, ttMove, ply);

        int best = -INF;
        uint32_t bestMove = 0;
        const int origAlpha = alpha;
        for (int i = 0; i < n; ++i) {
            pickNext(moves, scores, i, n);
            const uint32_t m = moves[i];
            const bool quiet = m != PASS_CODE && board[moveTo(m)] < 0;
            const bool killer = m == killers[ply][0] || m == killers[ply][1];
            if (futile && quiet && i > 0 && moveTo(m) != baseSq[stm ^ 1]) continue;
            Undo u;
            make(m, u);
            int r = outcome();
            int score;
            if (r != 2) {
                score = terminalScore(r, ply);
            } else if (i == 0) {
                score = -search(depth - 1, -beta, -alpha, ply + 1, true);
            } else {
                int reduction = 0;
                if (params.lmr && quiet && !killer && depth >= 3 && i >= params.lmrStart && !threatened && m != ttMove) {
                    reduction = i >= params.lmrDeep ? 2 : 1;
                    if (reduction > depth - 2) reduction = depth - 2;
                }
                score = -search(depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, true);
                if (score > alpha && reduction > 0 && !stopped)
                    score = -search(depth - 1, -alpha - 1, -alpha, ply + 1, true);
                if (score > alpha && score < beta && !stopped) score = -search(depth - 1, -beta, -alpha, ply + 1, true);
            }
            unmake(u);
            if (stopped) return 0;
            if (score > best) {
                best = score;
                bestMove = m;
                if (score > alpha) {
                    alpha = score;
                    if (alpha >= beta) {
                        if (quiet) {
                            if (killers[ply][0] != m) {
                                killers[ply][1] = killers[ply][0];
                                killers[ply][0] = m;
                            }
                            if (!history.empty()) {
                                int32_t& h = history[historyIndex(m)];
                                h += depth * depth;
                                if (h > 1000000)
                                    for (int32_t& x : history) x /= 2;
                            }
                        }
                        break;
                    }
                }
            }
        }
        int flag = best >= beta ? 2 : (best > origAlpha ? 1 : 3);
        ttStore(depth, best, flag, bestMove == PASS_CODE ? 0 : bestMove, ply);
        return best;
    }

    // Searches the root moves (already restricted to the request's legal actions) and
    // returns the index of the chosen one.
    int searchRoot(const std::vector<uint32_t>& rootMoves, double wallLimit, double cpuLimit) {
        startWall = wallSeconds();
        startCpu = cpuSeconds();
        wallBudget = wallLimit;
        cpuBudget = cpuLimit;
        stopped = false;
        nodes = 0;
        std::memset(killers, 0, sizeof killers);
        for (int32_t& h : history) h /= 8;

        const int n = static_cast<int>(rootMoves.size());
        if (n <= 1 && !pondering) return 0;

        // First order: the TT's move, then the usual ordering.
        std::vector<int> order(n);
        {
            uint32_t ttMove = 0;
            if (!tt.empty()) {
                const TTEntry& e = tt[hash & ttMask];
                if (e.key == hash) ttMove = e.move;
            }
            std::vector<int> s(n);
            scoreMoves(rootMoves.data(), s.data(), n, ttMove, 0);
            for (int i = 0; i < n; ++i) order[i] = i;
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return s[a] > s[b]; });
        }
        int bestIndex = order[0];
        int bestScore = -INF;
        int completedDepth = 0;
        std::vector<int> scores(n);
        for (int depth = 1; depth <= MAX_PLY - 16; ++depth) {
            int alpha = -INF;
            const int beta = INF;
            int iterBest = -1, iterScore = -INF;
            std::fill(scores.begin(), scores.end(), -INF);
            for (int k = 0; k < n; ++k) {
                const int i = order[k];
                Undo u;
                make(rootMoves[i], u);
                int r = outcome();
                int score;
                if (r != 2) {
                    score = terminalScore(r, 0);
                } else if (k == 0) {
                    score = -search(depth - 1, -beta, -alpha, 1, true);
                } else {
                    score = -search(depth - 1, -alpha - 1, -alpha, 1, true);
                    if (!stopped && score > alpha) score = -search(depth - 1, -beta, -alpha, 1, true);
                }
                unmake(u);
                if (stopped) break;
                scores[i] = score;
                if (score > iterScore) {
                    iterScore = score;
                    iterBest = i;
                    if (score > alpha) alpha = score;
                }
            }
            if (stopped) {
                // PVS proves a later move better only by finishing its full-window
                // search, so the best finished move of this iteration can be trusted.
                if (iterBest >= 0) bestIndex = iterBest;
                break;
            }
            bestIndex = iterBest;
            bestScore = iterScore;
            completedDepth = depth;
            ttStore(depth, bestScore, 1, rootMoves[bestIndex], 0);
            // Next iteration: the best first, the rest by this iteration's scores.
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return scores[a] > scores[b]; });
            if (bestScore > WIN_BOUND || bestScore < -WIN_BOUND) break;  // a forced result is known
            double wallUsed = wallSeconds() - startWall, cpuUsed = cpuSeconds() - startCpu;
            if (!pondering && (wallUsed > wallBudget * 0.5 || cpuUsed > cpuBudget * 0.5)) break;  // the next would not finish
        }
        if (verbose) {
            std::cerr << "strong: turn " << turn << " depth " << completedDepth << " score " << bestScore << " nodes "
                      << nodes << " cpu " << (cpuSeconds() - startCpu) << " wall " << (wallSeconds() - startWall)
                      << std::endl;
        }
        return bestIndex;
    }
};
// "--param name=value" (local tuning only): sets one evaluation weight.
bool setParam(Params& p, const std::string& spec) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos) return false;
    std::string name = spec.substr(0, eq);
    int v = std::atoi(spec.c_str() + eq + 1);
    if (name == "prey") p.prey = v;
    else if (name == "predator") p.predator = v;
    else if (name == "safe") p.safe = v;
    else if (name == "safePrey") p.safePrey = v;
    else if (name == "hang") p.hang = v;
    else if (name == "oppHang") p.oppHang = v;
    else if (name == "chase") p.chase = v;
    else if (name == "safeAdvance") p.safeAdvance = v;
    else if (name == "fadeTurns") p.fadeTurns = v;
    else if (name == "nullMove") p.nullMove = v;
    else if (name == "lmr") p.lmr = v;
    else if (name == "lmrStart") p.lmrStart = v;
    else if (name == "lmrDeep") p.lmrDeep = v;
    else if (name == "futility") p.futility = v;
    else if (name == "center") p.center = v;
    else if (name.rfind("advance", 0) == 0 && name.size() == 8 && name[7] >= '0' && name[7] <= '9') p.advance[name[7] - '0'] = v;
    else if (name.rfind("danger", 0) == 0 && name.size() == 7 && name[6] >= '1' && name[6] <= '3') p.danger[name[6] - '0'] = v;
    else return false;
    return true;
}

int typeFromName(const std::string& name) {
    if (name == "ROCK") return ROCK;
    if (name == "PAPER") return PAPER;
    if (name == "SCISSORS") return SCISSORS;
    return -1;
}

bool readSquare(const Json* pos, int& row, int& col) {
    if (!pos) return false;
    const Json* r = pos->get("row");
    const Json* c = pos->get("col");
    if (!r || !c || !r->isInteger() || !c->isInteger()) return false;
    row = static_cast<int>(r->asInt());
    col = static_cast<int>(c->asInt());
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    double laterCpu = 0.35, laterWall = 0.8, ponderCpu = 1.5;
    bool verbose = false;
    std::vector<std::string> params;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--cpu-ms" && i + 1 < argc) laterCpu = std::atof(argv[++i]) / 1000.0;
        else if (a == "--wall-ms" && i + 1 < argc) laterWall = std::atof(argv[++i]) / 1000.0;
        else if (a == "--verbose") verbose = true;
        else if (a == "--ponder-ms" && i + 1 < argc) ponderCpu = std::atof(argv[++i]) / 1000.0;
        else if (a == "--param" && i + 1 < argc) params.push_back(argv[++i]);
    }

    static Engine engine;
    engine.verbose = verbose;
    for (const std::string& p : params)
        if (!setParam(engine.params, p)) std::cerr << "strong: unknown --param " << p << std::endl;
    engine.allocateTT(20);  // 2^20 entries x 24 bytes: 24 MB, well inside 384 MB
    bool firstTurn = true;

    std::string line;
    while (std::getline(std::cin, line)) {
        double received = wallSeconds();
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        Json req;
        JsonReader reader(line);
        if (!reader.parse(req) || req.kind != Json::Object) {
            std::cerr << "strong: unreadable request" << std::endl;
            continue;
        }
        const Json* type = req.get("type");
        if (!type || type->asString() != "YOUR_TURN") continue;
        const Json* sequence = req.get("sequence");
        const Json* legal = req.get("legalActions");
        if (!sequence || sequence->kind != Json::Number || !legal || legal->kind != Json::Array || legal->items.empty()) {
            std::cerr << "strong: request without sequence or legalActions" << std::endl;
            continue;
        }
        // The answer defaults to the first legal action; the search may improve it.
        size_t chosen = 0;
        uint32_t chosenMove = 0;

        try {
            const Json* playerField = req.get("player");
            std::string me = playerField ? playerField->asString() : "P1";
            const Json* state = req.get("state");
            const Json* board = state ? state->get("board") : nullptr;
            const Json* rowsField = board ? board->get("rows") : nullptr;
            const Json* colsField = board ? board->get("cols") : nullptr;
            const Json* piecesField = board ? board->get("pieces") : nullptr;
            const Json* turnField = req.get("turn");
            int rows = rowsField && rowsField->isInteger() ? static_cast<int>(rowsField->asInt()) : 9;
            int cols = colsField && colsField->isInteger() ? static_cast<int>(colsField->asInt()) : 9;
            bool usable = rows >= 1 && cols >= 1 && rows <= 256 && cols <= 256 && static_cast<long>(rows) * cols <= 65535 &&
                          piecesField && piecesField->kind == Json::Array;
            bool onlyPass = legal->items.size() == 1 && legal->items[0].get("type") &&
                            legal->items[0].get("type")->asString() == "PASS";
            if (usable && !onlyPass) {
                engine.configureBoard(rows, cols);
                engine.clearPieces();
                for (const Json& p : piecesField->items) {
                    const Json* owner = p.get("ownerId");
                    const Json* ptype = p.get("type");
                    const Json* status = p.get("status");
                    if (status && status->kind == Json::String && status->text != "ALIVE") continue;
                    int r, c;
                    if (!owner || !ptype || !readSquare(p.get("position"), r, c)) continue;
                    int t = typeFromName(ptype->asString());
                    std::string ownerId = owner->asString();
                    int side = ownerId == "P1" ? 0 : (ownerId == "P2" ? 1 : (ownerId == me ? (me == "P1" ? 0 : 1) : -1));
                    if (t < 0 || side < 0 || r < 0 || r >= rows || c < 0 || c >= cols) continue;
                    engine.addPiece(side, t, r * cols + c);
                }
                engine.stm = me == "P2" ? 1 : 0;
                engine.turn = turnField && turnField->isInteger() ? static_cast<int>(turnField->asInt()) : 0;
                if (engine.turn < 0) engine.turn = 0;
                engine.computeHash();

                // Root moves: exactly the request's legal actions, in our encoding.
                std::vector<uint32_t> rootMoves;
                std::vector<size_t> rootIndex;
                for (size_t i = 0; i < legal->items.size(); ++i) {
                    const Json& a = legal->items[i];
                    const Json* at = a.get("type");
                    if (!at || at->asString() != "MOVE") continue;
                    int fr, fc, tr, tc;
                    if (!readSquare(a.get("from"), fr, fc) || !readSquare(a.get("to"), tr, tc)) continue;
                    if (fr < 0 || fr >= rows || fc < 0 || fc >= cols || tr < 0 || tr >= rows || tc < 0 || tc >= cols)
                        continue;
                    int from = fr * cols + fc, to = tr * cols + tc;
                    int p = engine.board[from];
                    if (p < 0 || engine.pieces[p].side != engine.stm) continue;
                    if (engine.board[to] >= 0 && engine.pieces[engine.board[to]].side == engine.stm) continue;
                    rootMoves.push_back(encodeMove(from, to));
                    rootIndex.push_back(i);
                }
                if (!rootMoves.empty()) {
                    chosen = rootIndex[0];
                    // Prefer not to throw pieces away at the root: drop losing attacks
                    // and keep one same-type attack, unless nothing else is left.
                    std::vector<uint32_t> kept;
                    std::vector<size_t> keptIndex;
                    bool tieKept = false;
                    for (size_t k = 0; k < rootMoves.size(); ++k) {
                        int kind = engine.kindOf(moveFrom(rootMoves[k]), moveTo(rootMoves[k]));
                        if (kind == FIGHT_LOSE) continue;
                        if (kind == FIGHT_TIE) {
                            if (tieKept) continue;
                            tieKept = true;
                        }
                        kept.push_back(rootMoves[k]);
                        keptIndex.push_back(rootIndex[k]);
                    }
                    if (kept.empty()) {
                        kept = rootMoves;
                        keptIndex = rootIndex;
                    }
                    // The clock started when the line was written; we count from reading it.
                    double wallLimit = firstTurn ? 2.0 : laterWall;
                    double cpuLimit = firstTurn ? std::max(0.8, laterCpu) : laterCpu;
                    wallLimit -= wallSeconds() - received;
                    if (wallLimit < 0.05) wallLimit = 0.05;
                    int best = engine.searchRoot(kept, wallLimit, cpuLimit);
                    chosen = keptIndex[static_cast<size_t>(best)];
                    chosenMove = kept[static_cast<size_t>(best)];
                }
            }
        } catch (...) {
            chosen = 0;  // any surprise: still answer with a legal action
        }
        firstTurn = false;

        const Json& action = legal->items[chosen];
        std::string reply = "{\"type\":\"ACTION\",\"sequence\":";
        reply += sequence->text;
        reply += ",\"action\":";
        reply.append(line, action.begin, action.end - action.begin);
        reply += "}";
        std::cout << reply << '\n' << std::flush;

        if (ponderCpu > 0 && chosenMove != 0 && std::cin.rdbuf()->in_avail() == 0) {
            try {
                engine.ponder(chosenMove, ponderCpu);
            } catch (...) {
            }
        }
    }
    return 0;
}

#!/usr/bin/env python3
"""Bot mẫu "chiến thuật một nước" cho Búa Bao Kéo 9×9.

Bot xét từng nước trong legalActions, chấm điểm bằng evaluate() và chọn nước
có điểm cao nhất. Nó chỉ nhìn trước MỘT nước của chính mình:
  - đánh thắng được cộng điểm, đánh thua bị trừ điểm,
  - đánh vào quân cùng loại là phí một lượt (hai quân đứng yên),
  - mô phỏng nước đi rồi trừ điểm nếu ô mới có thể bị ăn ngay,
  - ưu tiên tiến lại gần những quân địch mà mình thắng được.

Bạn có thể thay evaluate()/choose_action() bằng chiến thuật mạnh hơn
(minimax, alpha-beta, bảng trạng thái đã gặp, tìm kiếm có giới hạn thời gian...),
nhưng hãy giữ nguyên vòng lặp đọc/ghi ở cuối file.

Tìm kiếm thì dừng chậm nhất sau 1 giây, đo từ lúc đọc xong dòng yêu cầu, và luôn
giữ sẵn một nước dự phòng. Giới hạn 2 giây là đồng hồ của server, tính cả lúc bot
phải chờ CPU (bot chỉ có nửa CPU) và lúc server bận, nên thời gian bot tự đo luôn
ít hơn thời gian server đo. Xem mục «Thời gian và giới hạn» của /bot-guide.html.
"""

import json
import sys

# Loại nào thắng loại nào: Búa (ROCK) thắng Kéo, Kéo thắng Bao, Bao thắng Búa.
BEATS = {"ROCK": "SCISSORS", "SCISSORS": "PAPER", "PAPER": "ROCK"}

# 8 hướng đi: lên, xuống, trái, phải và 4 đường chéo.
DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]

# Điểm cho từng tình huống (thử chỉnh để bot chơi theo ý bạn).
WIN_FIGHT = 100  # ăn được quân địch
LOSE_FIGHT = -100  # lao vào quân thắng mình: mất quân
SAME_TYPE = -5  # đánh quân cùng loại: không ai mất gì, phí lượt
CAN_BE_TAKEN = -60  # ô mới đứng cạnh một quân địch thắng mình
TAKE_BASE = 100000  # chiếm được căn cứ địch: thắng trận
TOWARDS_PREY = 3  # mỗi ô tiến gần hơn tới quân địch mình thắng được


def distance(a, b):
    """Số nước đi ít nhất giữa hai ô (được đi chéo)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def enemy_base(request):
    """Căn cứ của đối thủ: P1 ở (rows-1, 0), P2 ở (0, cols-1)."""
    board = request["state"]["board"]
    if request["player"] == "P1":
        return (0, board["cols"] - 1)
    return (board["rows"] - 1, 0)


def index_pieces(request):
    """Trả về hai từ điển: id -> quân và (hàng, cột) -> quân."""
    by_id = {}
    by_square = {}
    for piece in request["state"]["board"]["pieces"]:
        square = (piece["position"]["row"], piece["position"]["col"])
        by_id[piece["id"]] = piece
        by_square[square] = piece
    return by_id, by_square


def evaluate(action, request):
    """Chấm điểm một nước đi: càng cao càng tốt."""
    if action["type"] != "MOVE":
        return 0  # PASS: chỉ xảy ra khi không còn nước nào khác

    me = request["player"]
    by_id, by_square = index_pieces(request)
    piece = by_id[action["pieceId"]]
    my_type = piece["type"]
    start = (action["from"]["row"], action["from"]["col"])
    target = (action["to"]["row"], action["to"]["col"])
    rows = request["state"]["board"]["rows"]
    cols = request["state"]["board"]["cols"]

    score = 0
    survives = True
    defender = by_square.get(target)
    if defender is not None:  # ô đích có quân địch: đây là một trận đánh
        if BEATS[my_type] == defender["type"]:
            score += WIN_FIGHT
        elif BEATS[defender["type"]] == my_type:
            score += LOSE_FIGHT
            survives = False
        else:
            score += SAME_TYPE
            target = start  # hòa: quân mình đứng yên tại chỗ

    if not survives:
        return score

    # Bước vào căn cứ địch (trống, hoặc thắng quân đang giữ) là thắng luôn.
    if target == enemy_base(request):
        return score + TAKE_BASE

    # Mô phỏng: sau nước đi, có quân địch nào đứng cạnh và thắng mình không?
    for dr, dc in DIRECTIONS:
        r, c = target[0] + dr, target[1] + dc
        if not (0 <= r < rows and 0 <= c < cols):
            continue
        neighbour = by_square.get((r, c))
        if neighbour is None or neighbour["ownerId"] == me:
            continue
        if BEATS[neighbour["type"]] == my_type:
            score += CAN_BE_TAKEN
            break

    # Tiến lại gần quân địch gần nhất mà mình thắng được.
    prey = [
        (p["position"]["row"], p["position"]["col"])
        for p in by_id.values()
        if p["ownerId"] != me and p["type"] == BEATS[my_type] and p is not defender
    ]
    if prey:
        before = min(distance(start, sq) for sq in prey)
        after = min(distance(target, sq) for sq in prey)
        score += TOWARDS_PREY * (before - after)

    return score


def choose_action(request):
    """Chọn nước có điểm cao nhất (hòa điểm thì lấy nước đứng trước)."""
    best_action = None
    best_score = None
    for action in request["legalActions"]:
        score = evaluate(action, request)
        if best_score is None or score > best_score:
            best_action, best_score = action, score
    return best_action


def main():
    # Đọc từng dòng cho tới khi server đóng stdin (EOF). Không dùng input("...").
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        if request.get("type") != "YOUR_TURN":
            continue
        try:
            action = choose_action(request)
        except Exception as error:  # noqa: BLE001 - có lỗi vẫn trả lời một nước hợp lệ
            print("lỗi:", error, file=sys.stderr)
            action = request["legalActions"][0]
        reply = {"type": "ACTION", "sequence": request["sequence"], "action": action}
        print(json.dumps(reply, separators=(",", ":")), flush=True)


if __name__ == "__main__":
    main()

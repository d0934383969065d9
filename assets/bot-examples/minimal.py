#!/usr/bin/env python3
"""Bot tối giản cho Búa Bao Kéo 9×9.

Mỗi lượt, server gửi một dòng JSON "YOUR_TURN" vào stdin. Bot trả lời đúng một
dòng JSON "ACTION" ra stdout: chép lại "sequence" và chọn một nước trong
"legalActions". Bot này luôn chọn nước đầu tiên trong danh sách.

Khi trận đấu kết thúc, server đóng stdin và vòng lặp bên dưới tự dừng.
"""

import json
import sys


def choose_action(request):
    # Thay hàm này bằng chiến thuật của bạn.
    # Nước đi phải là MỘT phần tử của request["legalActions"], giữ nguyên mọi trường.
    return request["legalActions"][0]


def main():
    # Đọc từng dòng cho tới khi stdin đóng (EOF). Không dùng input("...").
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        if request.get("type") != "YOUR_TURN":
            continue
        reply = {
            "type": "ACTION",
            "sequence": request["sequence"],  # chép nguyên số sequence nhận được
            "action": choose_action(request),
        }
        # Đúng một dòng, JSON gọn, flush ngay để server nhận được.
        print(json.dumps(reply, separators=(",", ":")), flush=True)
        # Muốn in thông tin gỡ lỗi thì in ra stderr, KHÔNG in ra stdout:
        # print("đã chọn", reply["action"], file=sys.stderr)


if __name__ == "__main__":
    main()

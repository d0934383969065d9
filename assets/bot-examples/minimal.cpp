// Bot tối giản cho Búa Bao Kéo 9×9 (C++17, chỉ dùng thư viện chuẩn).
//
// Mỗi lượt server gửi một dòng JSON "YOUR_TURN". Bot trả lời một dòng
// {"type":"ACTION","sequence":N,"action":{...}} với N chép từ yêu cầu và
// action là một phần tử của "legalActions" (ở đây: phần tử đầu tiên).
//
// Server không có nlohmann/json, nên bot này chỉ tìm chuỗi đơn giản:
// tìm số sau "sequence" và cắt nguyên object đầu tiên trong "legalActions".
// Muốn viết chiến thuật thật, hãy tự thêm một bộ đọc JSON nhỏ vào file này.
//
// Biên dịch thử:  g++ -std=c++17 -O2 minimal.cpp -o minimal

#include <cctype>
#include <iostream>
#include <string>

// Bỏ qua khoảng trắng bắt đầu từ vị trí i.
static size_t skipSpaces(const std::string& s, size_t i) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return i;
}

// Tìm giá trị số nguyên của trường "sequence". Trả về chuỗi rỗng nếu không thấy.
static std::string findSequence(const std::string& s) {
    size_t i = s.find("\"sequence\"");
    if (i == std::string::npos) return "";
    i = skipSpaces(s, i + 10);
    if (i >= s.size() || s[i] != ':') return "";
    i = skipSpaces(s, i + 1);
    size_t start = i;
    if (i < s.size() && s[i] == '-') ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(start, i - start);
}

// Cắt nguyên object đầu tiên trong mảng "legalActions", ví dụ
// {"type":"MOVE","pieceId":"P1-ROCK-1","from":{...},"to":{...}}.
// Đếm ngoặc nhọn, bỏ qua mọi thứ nằm trong chuỗi "...".
static std::string findFirstAction(const std::string& s) {
    size_t i = s.find("\"legalActions\"");
    if (i == std::string::npos) return "";
    i = skipSpaces(s, i + 14);
    if (i >= s.size() || s[i] != ':') return "";
    i = skipSpaces(s, i + 1);
    if (i >= s.size() || s[i] != '[') return "";
    i = skipSpaces(s, i + 1);
    if (i >= s.size() || s[i] != '{') return "";
    size_t start = i;
    int depth = 0;
    bool inString = false;
    for (; i < s.size(); ++i) {
        char ch = s[i];
        if (inString) {
            if (ch == '\\') ++i;          // bỏ qua ký tự sau dấu '\'
            else if (ch == '"') inString = false;
        } else if (ch == '"') {
            inString = true;
        } else if (ch == '{') {
            ++depth;
        } else if (ch == '}') {
            if (--depth == 0) return s.substr(start, i - start + 1);
        }
    }
    return "";
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    // Đọc từng dòng cho tới khi server đóng stdin (hết trận).
    while (std::getline(std::cin, line)) {
        if (line.find("\"YOUR_TURN\"") == std::string::npos) continue;
        std::string sequence = findSequence(line);
        std::string action = findFirstAction(line);
        if (sequence.empty() || action.empty()) {
            std::cerr << "không đọc được yêu cầu" << std::endl;  // gỡ lỗi: chỉ ra stderr
            continue;
        }
        // Đúng một dòng, kết thúc bằng xuống dòng, flush ngay (std::endl).
        std::cout << "{\"type\":\"ACTION\",\"sequence\":" << sequence
                  << ",\"action\":" << action << "}" << std::endl;
    }
    return 0;
}

// Bot tối giản cho Búa Bao Kéo 9×9 (Java, chỉ dùng thư viện chuẩn).
//
// Quy tắc: lớp "public class Main", không có dòng "package".
// Mỗi lượt server gửi một dòng JSON "YOUR_TURN". Bot trả lời một dòng
// {"type":"ACTION","sequence":N,"action":{...}} với N chép từ yêu cầu và
// action là một phần tử của "legalActions" (ở đây: phần tử đầu tiên).
//
// Server không có Jackson/Gson, nên bot này chỉ tìm chuỗi đơn giản.
// Muốn dùng thư viện ngoài, hãy đóng gói tất cả vào một file JAR có Main-Class.
//
// Biên dịch thử:  javac Main.java && java Main < yeu-cau.txt

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

public class Main {

    // Bỏ qua khoảng trắng bắt đầu từ vị trí i.
    static int skipSpaces(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        return i;
    }

    // Tìm giá trị số nguyên của trường "sequence"; null nếu không thấy.
    static String findSequence(String s) {
        int i = s.indexOf("\"sequence\"");
        if (i < 0) return null;
        i = skipSpaces(s, i + 10);
        if (i >= s.length() || s.charAt(i) != ':') return null;
        i = skipSpaces(s, i + 1);
        int start = i;
        if (i < s.length() && s.charAt(i) == '-') i++;
        while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
        return i > start ? s.substring(start, i) : null;
    }

    // Cắt nguyên object đầu tiên trong mảng "legalActions".
    // Đếm ngoặc nhọn, bỏ qua mọi thứ nằm trong chuỗi "...".
    static String findFirstAction(String s) {
        int i = s.indexOf("\"legalActions\"");
        if (i < 0) return null;
        i = skipSpaces(s, i + 14);
        if (i >= s.length() || s.charAt(i) != ':') return null;
        i = skipSpaces(s, i + 1);
        if (i >= s.length() || s.charAt(i) != '[') return null;
        i = skipSpaces(s, i + 1);
        if (i >= s.length() || s.charAt(i) != '{') return null;
        int start = i;
        int depth = 0;
        boolean inString = false;
        for (; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (inString) {
                if (ch == '\\') i++;              // bỏ qua ký tự sau dấu '\'
                else if (ch == '"') inString = false;
            } else if (ch == '"') {
                inString = true;
            } else if (ch == '{') {
                depth++;
            } else if (ch == '}') {
                depth--;
                if (depth == 0) return s.substring(start, i + 1);
            }
        }
        return null;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        // Đọc từng dòng cho tới khi server đóng stdin (hết trận): readLine trả về null.
        while ((line = in.readLine()) != null) {
            if (!line.contains("\"YOUR_TURN\"")) continue;
            String sequence = findSequence(line);
            String action = findFirstAction(line);
            if (sequence == null || action == null) {
                System.err.println("không đọc được yêu cầu");  // gỡ lỗi: chỉ ra stderr
                continue;
            }
            // Đúng một dòng, rồi flush ngay.
            out.println("{\"type\":\"ACTION\",\"sequence\":" + sequence + ",\"action\":" + action + "}");
            out.flush();
        }
    }
}

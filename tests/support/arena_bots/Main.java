import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;

// Answers every request with one line: "java <n> <max heap in MiB> <processors>".
public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        int n = 0;
        while ((line = in.readLine()) != null) {
            n++;
            long heap = Runtime.getRuntime().maxMemory() / (1024 * 1024);
            System.out.println("java " + n + " " + heap + " " + Runtime.getRuntime().availableProcessors());
            System.out.flush();
        }
    }
}

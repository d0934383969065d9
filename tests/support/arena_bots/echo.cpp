// Answers every request with one line: "cpp <n> <length of the request>".
#include <iostream>
#include <string>

int main() {
    std::string line;
    long n = 0;
    while (std::getline(std::cin, line)) {
        ++n;
        std::cout << "cpp " << n << " " << line.size() << std::endl;
    }
    return 0;
}

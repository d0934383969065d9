#include <iostream>

int main() {
    std::cout << undeclared_variable << std::endl;
    return 0;
}

// ringlab command line (placeholder entry point; subcommands are added in cli/).
#include <iostream>
int main() { std::cout << "ringlab\n"; return 0; }

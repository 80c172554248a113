// The C++ front end of the test that a key is the same key from every front end
// (python/tests/test_cli.py builds filters from the same text keys in Python, in C++ and with
// the command-line program, and queries each from the other two).
//
//   front_end_keys build FILE KEY...   a blocked filter (FPR 0.01) of the keys as strings
//   front_end_keys count FILE KEY...   prints how many of the keys FILE may contain
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <batchbloom/filter.hpp>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: front_end_keys build|count FILE KEY...\n");
        return 2;
    }
    const std::string_view command = argv[1];
    const std::string path = argv[2];
    const std::vector<std::string_view> keys(argv + 3, argv + argc);
    try {
        if (command == "build") {
            batchbloom::Filter f(batchbloom::Params::for_fpr(keys.size(), 0.01));
            f.insert(keys);
            f.save(path);
        } else if (command == "count") {
            std::printf("%zu\n", batchbloom::Filter::load(path).count(keys));
        } else {
            std::fprintf(stderr, "front_end_keys: unknown command\n");
            return 2;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "front_end_keys: %s\n", e.what());
        return 1;
    }
    return 0;
}

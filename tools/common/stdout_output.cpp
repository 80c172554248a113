#include "common/stdout_output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

namespace batchbloom::cli {

namespace {
[[noreturn]] void fail(int err) { throw std::runtime_error(std::string("cannot write to stdout: ") + std::strerror(err)); }
}  // namespace

void write_stdout(std::string_view text) {
    if (!text.empty() && std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) fail(errno);
}

void finish_stdout() {
    if (std::fflush(stdout) != 0) fail(errno);
}

}  // namespace batchbloom::cli

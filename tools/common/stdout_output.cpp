#include "common/stdout_output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>

#include <batchbloom/atomic_file.hpp>

namespace batchbloom::cli {

namespace {
[[noreturn]] void fail(int err) { throw std::runtime_error(std::string("cannot write to stdout: ") + std::strerror(err)); }
// A stream onto write_stdout (stdio buffers), keeping its first error for the caller.
class StdoutBuf : public std::streambuf {
public:
    void rethrow() const {
        if (error_) std::rethrow_exception(error_);
    }

protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        const char ch = traits_type::to_char_type(c);
        return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        if (error_) return 0;
        try {
            write_stdout(std::string_view(s, static_cast<std::size_t>(n)));
            return n;
        } catch (...) {
            error_ = std::current_exception();
            return 0;
        }
    }

private:
    std::exception_ptr error_;
};

}  // namespace

void write_output(std::string_view out, const std::function<void(std::ostream&)>& write) {
    if (out != "-") return batchbloom::write_file(std::filesystem::path(std::string(out)), write);
    if (::isatty(STDOUT_FILENO) == 1)
        throw std::runtime_error("refusing to write a binary filter to a terminal (redirect stdout or give a file)");
    StdoutBuf buf;
    std::ostream stream(&buf);
    try {
        write(stream);
    } catch (...) {
        buf.rethrow();  // the write error that made the stream fail, if that is what happened
        throw;
    }
    buf.rethrow();
    finish_stdout();
}

void write_stdout(std::string_view text) {
    if (!text.empty() && std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) fail(errno);
}

void finish_stdout() {
    if (std::fflush(stdout) != 0) fail(errno);
}

}  // namespace batchbloom::cli

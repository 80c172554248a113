// libFuzzer target for Filter::load(std::istream&).
//
// Contract checked on every input:
//   * load either returns a filter or throws batchbloom::Error (normally FormatError); any other
//     exception, a crash or a sanitizer report is a bug;
//   * a seekable and an unseekable stream over the same bytes give the same outcome;
//   * a loaded filter re-saves to exactly the bytes it was read from, loads back equal, and
//     answers queries (keys inserted into it are then found).
//
// Random mutations almost never keep the two XXH3 checksums of the format right, so each input
// is also tried a second time with its checksums recomputed ("resealed", following the layout
// in src/format/blocked_format.cpp: payload hash at offset 40, header hash of bytes 0..55 at offset 56). That
// lets the fuzzer reach the field checks, the allocation and the payload reading behind them.
// Inputs are small (run_fuzz.sh: -max_len=8192), so run_fuzz.sh also caps single allocations
// (-malloc_limit_mb) to catch a loader that allocates what a header claims rather than what the
// input holds.
//
// Seed corpus: run the binary with BATCHBLOOM_FUZZ_WRITE_SEEDS=<dir> and it writes a few valid
// saved filters into <dir> and exits (tests/fuzz/run_fuzz.sh does this).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "batchbloom/batchbloom.hpp"

namespace {

using batchbloom::Filter;

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "fuzz_load: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

// An input stream that cannot seek, like a pipe.
class OneWayBuf : public std::streambuf {
public:
    explicit OneWayBuf(std::string_view bytes) : bytes_(bytes) {
        char* b = bytes_.data();
        setg(b, b, b + bytes_.size());
    }

private:
    std::string bytes_;
};

struct Outcome {
    std::optional<Filter> filter;
    std::size_t consumed = 0;  // stream position after a successful load
    std::string error;         // batchbloom::Error message otherwise
};

template <class MakeStream>
Outcome try_load(MakeStream&& make, const char* how) {
    Outcome r;
    try {
        auto holder = make();
        std::istream& in = holder->stream();
        r.filter.emplace(Filter::load(in));
        r.consumed = holder->position();
    } catch (const batchbloom::Error& e) {
        r.error = e.what();
    } catch (const std::exception& e) {
        fail(std::string("load from a ") + how + " threw a non-batchbloom exception: " + e.what());
    } catch (...) {
        fail(std::string("load from a ") + how + " threw a non-std exception");
    }
    return r;
}

struct Seekable {
    std::istringstream in;
    explicit Seekable(std::string_view b) : in(std::string(b), std::ios::binary) {}
    std::istream& stream() { return in; }
    std::size_t position() {
        in.clear();
        return static_cast<std::size_t>(in.tellg());
    }
};

struct Unseekable {
    OneWayBuf buf;
    std::istream in;
    std::size_t size;
    explicit Unseekable(std::string_view b) : buf(b), in(&buf), size(b.size()) {}
    std::istream& stream() { return in; }
    std::size_t position() {
        // Count what is left by reading it.
        in.clear();
        std::size_t left = 0;
        while (in.get() != std::char_traits<char>::eof()) ++left;
        return size - left;
    }
};

std::string save_to_string(const Filter& f) {
    std::ostringstream out(std::ios::binary);
    f.save(out);
    return std::move(out).str();
}

void check_loaded(const Filter& f, std::string_view input, std::size_t consumed) {
    // Re-saving gives back exactly the bytes that were read.
    std::string again;
    try {
        again = save_to_string(f);
    } catch (const std::exception& e) {
        fail(std::string("saving a loaded filter threw: ") + e.what());
    }
    if (again.size() != consumed) fail("load consumed " + std::to_string(consumed) + " bytes but save wrote " +
                                       std::to_string(again.size()));
    if (again.size() > input.size() || input.substr(0, again.size()) != again)
        fail("a loaded filter re-saves to different bytes than it was loaded from");

    // The saved bytes load back to an equal filter.
    try {
        std::istringstream in(again, std::ios::binary);
        if (!(Filter::load(in) == f)) fail("re-saved filter loads back different");
    } catch (const batchbloom::Error& e) {
        fail(std::string("re-saved filter does not load: ") + e.what());
    }

    // Queries work; inserted keys are found; the estimates do not crash.
    Filter g = f;
    const std::uint64_t ints[] = {0, 1, 42, 0xDEADBEEFCAFEBABEULL, ~std::uint64_t{0}};
    const std::string_view strs[] = {"", "a", "batchbloom", std::string_view(input.data(), input.size() < 16 ? input.size() : 16)};
    for (std::uint64_t k : ints) (void)g.contains(k);
    for (std::string_view s : strs) (void)g.contains(s);
    std::vector<std::uint8_t> out(std::size(ints));
    g.contains(std::span<const std::uint64_t>(ints), std::span<std::uint8_t>(out));
    for (std::size_t i = 0; i < out.size(); ++i)
        if (out[i] != (g.contains(ints[i]) ? 1 : 0)) fail("bulk and single-key contains disagree");
    (void)g.fill_ratio();
    (void)g.current_fpr();
    try {
        (void)g.estimated_cardinality();
    } catch (const batchbloom::Error&) {
    }
    for (std::uint64_t k : ints) g.insert(k);
    for (std::string_view s : strs) g.insert(s);
    for (std::uint64_t k : ints)
        if (!g.contains(k)) fail("an inserted integer key is not found");
    for (std::string_view s : strs)
        if (!g.contains(s)) fail("an inserted string key is not found");
    if (g.count(std::span<const std::uint64_t>(ints)) != std::size(ints)) fail("count misses inserted keys");
}

void write_seeds(const char* dir) {
    using batchbloom::HashKind;
    using batchbloom::Params;
    using batchbloom::Shape;
    struct Seed {
        Shape shape;
        std::uint64_t blocks;
        unsigned k;
        batchbloom::Hashing hashing;
        unsigned keys;
    };
    const Seed seeds[] = {
        {Shape::word512, 1, 8, {HashKind::xxh3, 0}, 0},
        {Shape::word512, 4, 8, {HashKind::xxh3, 0}, 20},
        {Shape::split256, 3, 8, {HashKind::murmur3, 0x9E3779B9}, 15},
        {Shape::line512, 2, 5, {HashKind::xxh3, 0x0123456789ABCDEFULL}, 10},
        {Shape::split256, 1, 16, {HashKind::murmur3, 1}, 3},
        {Shape::line512, 8, 12, {HashKind::murmur3, 0xFFFFFFFF}, 60},
    };
    int n = 0;
    for (const Seed& s : seeds) {
        Filter f(Params::make(s.shape, s.blocks, s.k), s.hashing);
        for (unsigned i = 0; i < s.keys; ++i) {
            f.insert(std::uint64_t{i} * 0x9E3779B97F4A7C15ULL);
            f.insert(std::string_view("key" + std::to_string(i)));
        }
        const std::string path = std::string(dir) + "/seed-" + std::to_string(n++) + ".bbf";
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        const std::string bytes = save_to_string(f);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out) {
            std::fprintf(stderr, "fuzz_load: cannot write %s\n", path.c_str());
            std::exit(1);
        }
    }
    std::fprintf(stderr, "fuzz_load: wrote %d seed filters to %s\n", n, dir);
}

// The input with both checksums recomputed, or nothing if it is too short to have a header.
std::optional<std::string> resealed(std::string_view input) {
    constexpr std::size_t header = 64, off_length = 32, off_payload_sum = 40, off_header_sum = 56;
    if (input.size() < header) return std::nullopt;
    std::string s(input);
    std::uint64_t length;
    std::memcpy(&length, s.data() + off_length, 8);
    if (length <= s.size() - header) {
        const std::uint64_t sum = batchbloom::xxh3_64(s.data() + header, static_cast<std::size_t>(length), 0);
        std::memcpy(s.data() + off_payload_sum, &sum, 8);
    }
    const std::uint64_t sum = batchbloom::xxh3_64(s.data(), off_header_sum, 0);
    std::memcpy(s.data() + off_header_sum, &sum, 8);
    if (s == input) return std::nullopt;  // already sealed: nothing new to try
    return s;
}

void run_one(std::string_view input) {
    Outcome a = try_load([&] { return std::make_unique<Seekable>(input); }, "seekable istringstream");
    Outcome b = try_load([&] { return std::make_unique<Unseekable>(input); }, "unseekable stream");

    if (a.filter.has_value() != b.filter.has_value())
        fail("seekable and unseekable streams disagree: " + (a.filter ? "unseekable: " + b.error : "seekable: " + a.error));
    if (!a.filter) return;
    if (!(*a.filter == *b.filter)) fail("seekable and unseekable streams load different filters");
    if (a.consumed != b.consumed) fail("seekable and unseekable streams consumed different byte counts");
    check_loaded(*a.filter, input, a.consumed);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* dir = std::getenv("BATCHBLOOM_FUZZ_WRITE_SEEDS")) {
        write_seeds(dir);
        std::exit(0);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    run_one(input);
    if (const auto sealed = resealed(input)) run_one(*sealed);
    return 0;
}

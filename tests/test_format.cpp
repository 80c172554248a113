// Tests of the blocked filter's file beyond what every kind's file does (test_file_properties.cpp:
// round trips, truncation, bit flips, trailing bytes, paths): the header's layout, round trips
// over every shape, k and hashing, invalid fields under a valid checksum, and hostile lengths.
//
// Some tests patch header fields. They follow the version-1 layout documented in docs/format.md (and
// coded in src/format/file_header.cpp):
//
//   offset size field
//        0    8 magic "BATCHBLM"
//        8    2 format version (1)
//       10    1 filter kind (1 = blocked Bloom filter)
//       11    1 block shape        12  1 hash kind        13  1 k
//       14    1 key kinds: 0 = not recorded, else 0x80 | 1 (integers) | 2 (byte strings)
//       15    1 reserved, zero
//       16    8 hash seed          24  8 blocks           32  8 payload length in bytes
//       40    8 XXH3-64 (seed 0) of the payload
//       48    8 reserved, zero
//       56    8 XXH3-64 (seed 0) of bytes 0..55
//       64      payload
//
// FormatLayout.* pins that layout, so a change to the format shows up there first.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "batchbloom/error.hpp"
#include "batchbloom/filter.hpp"
#include "batchbloom/hash.hpp"
#include "batchbloom/layout.hpp"
#include "batchbloom/params.hpp"
#include "format/file_header.hpp"
#include "support.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BB_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define BB_TEST_SANITIZED 1
#endif
#endif
#ifndef BB_TEST_SANITIZED
#define BB_TEST_SANITIZED 0
#endif

namespace {

namespace fs = std::filesystem;
using batchbloom::Filter;
using batchbloom::FormatError;
using batchbloom::Hashing;
using batchbloom::HashKind;
using batchbloom::Params;
using batchbloom::Shape;

constexpr std::size_t kHeaderSize = 64;
constexpr std::size_t kOffVersion = 8, kOffKind = 10, kOffShape = 11, kOffHashKind = 12, kOffK = 13,
                      kOffKeyKinds = 14, kOffReserved1 = 15, kOffSeed = 16, kOffBlocks = 24, kOffLength = 32, kOffPayloadSum = 40,
                      kOffReserved2 = 48, kOffHeaderSum = 56;

// ---- helpers -------------------------------------------------------------------------------

template <class T>
void put(std::string& s, std::size_t off, T v) {
    std::memcpy(s.data() + off, &v, sizeof v);
}

template <class T>
T get(const std::string& s, std::size_t off) {
    T v;
    std::memcpy(&v, s.data() + off, sizeof v);
    return v;
}

// Recomputes the header checksum (the codec's own) after a header field was patched, so that
// the loader gets past the checksum and has to judge the field itself.
void reseal(std::string& s) { batchbloom::io::seal_header(std::as_writable_bytes(std::span(s))); }

std::string save_to_string(const Filter& f) {
    std::ostringstream out(std::ios::binary);
    f.save(out);
    return std::move(out).str();
}

Filter load_from_string(const std::string& bytes) {
    std::istringstream in(bytes, std::ios::binary);
    return Filter::load(in);
}

using batchbloom::testing::mentions;
using batchbloom::testing::name;
using batchbloom::testing::Via;

Filter load_via(const std::string& bytes, Via via) { return batchbloom::testing::load_via<Filter>(bytes, via); }

::testing::AssertionResult rejects(const std::string& bytes, const std::vector<const char*>& words,
                                   Via via = Via::seekable) {
    return batchbloom::testing::rejects<Filter>(bytes, words, via);
}

std::vector<std::uint64_t> int_keys(std::size_t n, std::uint64_t salt) {
    std::vector<std::uint64_t> keys(n);
    std::mt19937_64 rng(salt);
    for (auto& k : keys) k = rng();
    return keys;
}

std::vector<std::string> string_keys(std::size_t n, std::uint64_t salt) {
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < n; ++i) keys.push_back("key-" + std::to_string(salt) + "-" + std::to_string(i));
    keys.push_back("");
    keys.push_back(std::string("with\0zero", 9));
    return keys;
}

struct Filled {
    Filter filter;
    std::vector<std::uint64_t> ints;
    std::vector<std::string> strings;
};

Filled make_filled(const Params& params, const Hashing& hashing, std::size_t n = 150, std::uint64_t salt = 1) {
    Filled r{Filter(params, hashing), int_keys(n, salt), string_keys(n / 3, salt)};
    r.filter.insert(std::span<const std::uint64_t>(r.ints));
    r.filter.insert(std::span<const std::string>(r.strings));
    return r;
}

::testing::AssertionResult contains_all(const Filter& f, const Filled& src) {
    for (std::uint64_t k : src.ints)
        if (!f.contains(k)) return ::testing::AssertionFailure() << "integer key " << k << " lost";
    for (const std::string& s : src.strings)
        if (!f.contains(std::string_view(s))) return ::testing::AssertionFailure() << "string key \"" << s << "\" lost";
    return ::testing::AssertionSuccess();
}

// A unique directory under the system temp directory, removed with everything in it.
using batchbloom::testing::TempDir;

void write_file(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good());
}

const Shape kShapes[] = {Shape::split256, Shape::word512, Shape::line512};
const Hashing kHashings[] = {
    {HashKind::xxh3, 0},
    {HashKind::xxh3, 0x0123456789ABCDEFULL},
    {HashKind::murmur3, 0x9E3779B9ULL},
    {HashKind::murmur3, 0xFFFFFFFFULL},
};

// A filter with a few dozen payload bytes per block and keys in it: the subject of the
// rejection tests.
Filled reference_filter() {
    return make_filled(Params::make(Shape::word512, 37, 7), Hashing{HashKind::murmur3, 0x9E3779B9ULL}, 300, 99);
}

// ---- layout ------------------------------------------------------------------------------

TEST(FormatLayout, HeaderFieldsAreWhereTheFormatSaysTheyAre) {
    const auto params = Params::make(Shape::line512, 5, 11);
    const Hashing hashing{HashKind::murmur3, 0xA1B2C3D4ULL};
    const Filled f = make_filled(params, hashing);
    const std::string s = save_to_string(f.filter);

    ASSERT_EQ(s.size(), kHeaderSize + params.bytes());
    EXPECT_EQ(s.substr(0, 8), "BATCHBLM");
    EXPECT_EQ(get<std::uint16_t>(s, kOffVersion), 1);
    EXPECT_EQ(get<std::uint8_t>(s, kOffKind), 1);
    EXPECT_EQ(get<std::uint8_t>(s, kOffShape), static_cast<std::uint8_t>(Shape::line512));
    EXPECT_EQ(get<std::uint8_t>(s, kOffHashKind), static_cast<std::uint8_t>(HashKind::murmur3));
    EXPECT_EQ(get<std::uint8_t>(s, kOffK), 11);
    const batchbloom::KeyKinds kinds = f.filter.key_kinds();
    ASSERT_TRUE(kinds.recorded);
    EXPECT_EQ(get<std::uint8_t>(s, kOffKeyKinds), 0x80 | (kinds.integers ? 1 : 0) | (kinds.bytes ? 2 : 0));
    EXPECT_EQ(get<std::uint8_t>(s, kOffReserved1), 0);
    EXPECT_EQ(get<std::uint64_t>(s, kOffSeed), 0xA1B2C3D4ULL);
    EXPECT_EQ(get<std::uint64_t>(s, kOffBlocks), 5u);
    EXPECT_EQ(get<std::uint64_t>(s, kOffLength), params.bytes());
    EXPECT_EQ(get<std::uint64_t>(s, kOffPayloadSum), batchbloom::xxh3_64(s.data() + kHeaderSize, params.bytes(), 0));
    EXPECT_EQ(get<std::uint64_t>(s, kOffReserved2), 0u);
    EXPECT_EQ(get<std::uint64_t>(s, kOffHeaderSum), batchbloom::xxh3_64(s.data(), 56, 0));
    // The payload is the blocks exactly as they are in memory.
    const auto bytes = f.filter.bytes();
    EXPECT_EQ(0, std::memcmp(s.data() + kHeaderSize, bytes.data(), bytes.size()));
}

// ---- round trips ---------------------------------------------------------------------------

TEST(FormatRoundTrip, EveryShapeKAndHashingThroughAStream) {
    for (Shape shape : kShapes) {
        for (unsigned k : {1u, 2u, 7u, 8u, 9u, 16u}) {
            for (std::uint64_t blocks : {1u, 3u, 100u}) {
                for (const Hashing& hashing : kHashings) {
                    SCOPED_TRACE(std::string(batchbloom::to_string(shape)) + " k=" + std::to_string(k) +
                                 " blocks=" + std::to_string(blocks) + " " +
                                 std::string(batchbloom::to_string(hashing.kind)) + " seed=" + std::to_string(hashing.seed));
                    const Filled f = make_filled(Params::make(shape, blocks, k), hashing, 120, k * 1000 + blocks);
                    const std::string saved = save_to_string(f.filter);
                    ASSERT_EQ(saved.size(), kHeaderSize + f.filter.params().bytes());

                    for (Via via : {Via::seekable, Via::unseekable}) {
                        const Filter g = load_via(saved, via);
                        EXPECT_TRUE(g == f.filter) << name(via);
                        EXPECT_EQ(g.params(), f.filter.params());
                        EXPECT_EQ(g.hashing(), f.filter.hashing());
                        EXPECT_TRUE(contains_all(g, f)) << name(via);
                        EXPECT_EQ(save_to_string(g), saved) << "re-saving a loaded filter changes its bytes";
                    }
                }
            }
        }
    }
}

TEST(FormatRoundTrip, EmptyAndFullFilters) {
    for (Shape shape : kShapes) {
        Filter empty(Params::make(shape, 4, 8), Hashing{HashKind::xxh3, 5});
        EXPECT_TRUE(load_from_string(save_to_string(empty)) == empty);

        Filter full = empty;
        std::memset(full.mutable_bytes().data(), 0xFF, full.mutable_bytes().size());
        const Filter g = load_from_string(save_to_string(full));
        EXPECT_TRUE(g == full);
        EXPECT_EQ(g.fill_ratio(), 1.0);
    }
}

TEST(FormatRoundTrip, LargerFilter) {
    // Several MiB, so that the payload does not fit one read buffer.
    const Filled f = make_filled(Params::make(Shape::word512, 100000, 8), Hashing{HashKind::xxh3, 77}, 20000, 3);
    const std::string saved = save_to_string(f.filter);
    for (Via via : {Via::seekable, Via::unseekable}) {
        const Filter g = load_via(saved, via);
        EXPECT_TRUE(g == f.filter) << name(via);
        EXPECT_TRUE(contains_all(g, f)) << name(via);
    }
}

TEST(FormatRoundTrip, OperatorEqualsSeesDifferences) {
    // The round-trip tests rely on operator==; make sure it is not trivially true.
    const Filled f = reference_filter();
    Filter g = f.filter;
    EXPECT_TRUE(g == f.filter);
    g.mutable_bytes()[5] ^= std::byte{1};
    EXPECT_FALSE(g == f.filter);
    Filter h(f.filter.params(), Hashing{HashKind::murmur3, 0x9E3779BAULL});
    std::memcpy(h.mutable_bytes().data(), f.filter.bytes().data(), f.filter.bytes().size());
    EXPECT_FALSE(h == f.filter);
}

// ---- rejected inputs -----------------------------------------------------------------------

TEST(FormatReject, WrongMagic) {
    const std::string good = save_to_string(reference_filter().filter);
    std::string s = good;
    std::memcpy(s.data(), "BLOOMFLT", 8);
    EXPECT_TRUE(rejects(s, {"magic"}));
    s = good;
    s[7] = 'X';
    EXPECT_TRUE(rejects(s, {"magic"}));
    EXPECT_TRUE(rejects(std::string(200, '\0'), {"magic"}));
    EXPECT_TRUE(rejects("hello, this is not a filter at all, it is text that goes on for a while.........", {"magic"}));
}

TEST(FormatReject, WrongVersion) {
    const std::string good = save_to_string(reference_filter().filter);
    for (std::uint16_t v : std::vector<std::uint16_t>{0, 2, 3, 0x100, 0xFFFF}) {
        std::string s = good;
        put<std::uint16_t>(s, kOffVersion, v);
        EXPECT_TRUE(rejects(s, {"version"})) << "version " << v;
        reseal(s);  // a well-formed header from a future version
        EXPECT_TRUE(rejects(s, {"version"})) << "version " << v << ", resealed";
        try {
            load_from_string(s);
        } catch (const FormatError& e) {
            EXPECT_NE(std::string(e.what()).find(std::to_string(v)), std::string::npos)
                << "the message should name the version found: " << e.what();
        }
    }
}

TEST(FormatReject, TruncatedLargePayload) {
    // More than one 1 MiB read chunk, cut in the second chunk.
    const Filter f(Params::make(Shape::word512, 40000, 8), Hashing{});
    const std::string good = save_to_string(f);
    for (Via via : {Via::seekable, Via::unseekable}) {
        for (std::size_t cut : {std::size_t{1} << 20, (std::size_t{1} << 20) + 1, good.size() - kHeaderSize - 1})
            EXPECT_TRUE(rejects(good.substr(0, kHeaderSize + cut), {"truncat"}, via)) << "payload bytes " << cut;
    }
}

TEST(FormatReject, WellSealedHeadersWithInvalidFields) {
    // The header checksum is right, so the loader has to judge each field itself.
    const std::string good = save_to_string(reference_filter().filter);
    struct Case {
        const char* what;
        std::function<void(std::string&)> patch;
        std::vector<const char*> words;
    };
    const std::vector<Case> cases = {
        {"filter kind 2", [](std::string& s) { put<std::uint8_t>(s, kOffKind, 2); }, {"kind"}},
        {"filter kind 0", [](std::string& s) { put<std::uint8_t>(s, kOffKind, 0); }, {"kind"}},
        {"shape 0", [](std::string& s) { put<std::uint8_t>(s, kOffShape, 0); }, {"shape"}},
        {"shape 4", [](std::string& s) { put<std::uint8_t>(s, kOffShape, 4); }, {"shape"}},
        {"shape 255", [](std::string& s) { put<std::uint8_t>(s, kOffShape, 255); }, {"shape"}},
        {"hash kind 0", [](std::string& s) { put<std::uint8_t>(s, kOffHashKind, 0); }, {"hash"}},
        {"hash kind 9", [](std::string& s) { put<std::uint8_t>(s, kOffHashKind, 9); }, {"hash"}},
        {"k 0", [](std::string& s) { put<std::uint8_t>(s, kOffK, 0); }, {"k "}},
        {"k 17", [](std::string& s) { put<std::uint8_t>(s, kOffK, 17); }, {"k "}},
        {"k 255", [](std::string& s) { put<std::uint8_t>(s, kOffK, 255); }, {"k "}},
        {"reserved 15", [](std::string& s) { put<std::uint8_t>(s, kOffReserved1, 1); }, {"reserved"}},
        {"key kinds 0x01", [](std::string& s) { put<std::uint8_t>(s, kOffKeyKinds, 0x01); }, {"key-kinds"}},
        {"key kinds 0x84", [](std::string& s) { put<std::uint8_t>(s, kOffKeyKinds, 0x84); }, {"key-kinds"}},
        {"reserved 48", [](std::string& s) { put<std::uint64_t>(s, kOffReserved2, 1ULL << 63); }, {"reserved"}},
        {"murmur3 seed 2^32", [](std::string& s) { put<std::uint64_t>(s, kOffSeed, 1ULL << 32); }, {"seed"}},
        {"blocks 0", [](std::string& s) {
             put<std::uint64_t>(s, kOffBlocks, 0);
             put<std::uint64_t>(s, kOffLength, 0);
         }, {"blocks"}},
        {"blocks max_blocks+1 with a matching length", [](std::string& s) {
             put<std::uint64_t>(s, kOffBlocks, batchbloom::layout::max_blocks + 1);
             put<std::uint64_t>(s, kOffLength, (batchbloom::layout::max_blocks + 1) * 64);
         }, {"blocks"}},
        {"blocks 2^32+1 with a matching length", [](std::string& s) {
             put<std::uint64_t>(s, kOffBlocks, (1ULL << 32) + 1);
             put<std::uint64_t>(s, kOffLength, ((1ULL << 32) + 1) * 64);
         }, {"blocks"}},
        // blocks * 64 wraps to 0 in 64 bits: the length check must not be fooled by overflow.
        {"blocks 2^58, length 0", [](std::string& s) {
             put<std::uint64_t>(s, kOffBlocks, 1ULL << 58);
             put<std::uint64_t>(s, kOffLength, 0);
         }, {"blocks"}},
        {"blocks 38 (payload holds 37)", [](std::string& s) {
             put<std::uint64_t>(s, kOffBlocks, 38);
             put<std::uint64_t>(s, kOffLength, 38 * 64);
         }, {"truncat"}},
        {"blocks 36 (payload holds 37)", [](std::string& s) {
             put<std::uint64_t>(s, kOffBlocks, 36);
             put<std::uint64_t>(s, kOffLength, 36 * 64);
         }, {"checksum", "corrupt"}},
        {"length 2^60", [](std::string& s) { put<std::uint64_t>(s, kOffLength, 1ULL << 60); }, {"length"}},
        {"length 2^64-1", [](std::string& s) { put<std::uint64_t>(s, kOffLength, ~0ULL); }, {"length"}},
        {"length one block short", [](std::string& s) { put<std::uint64_t>(s, kOffLength, 36 * 64); }, {"length"}},
        {"length one byte long", [](std::string& s) { put<std::uint64_t>(s, kOffLength, 37 * 64 + 1); }, {"length"}},
        {"shape split256 with word512's length", [](std::string& s) {
             put<std::uint8_t>(s, kOffShape, static_cast<std::uint8_t>(Shape::split256));
         }, {"length"}},
        {"payload checksum", [](std::string& s) { put<std::uint64_t>(s, kOffPayloadSum, 12345); }, {"checksum", "corrupt"}},
    };
    for (const Case& c : cases) {
        std::string s = good;
        c.patch(s);
        reseal(s);
        for (Via via : {Via::seekable, Via::unseekable}) {
            const auto start = std::chrono::steady_clock::now();
            EXPECT_TRUE(rejects(s, c.words, via)) << c.what << " (" << name(via) << ")";
            EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << c.what;
        }
    }
}

TEST(FormatReject, AbsurdPayloadLengthFailsFastWithoutAllocating) {
    // A 64-byte header that claims 2^60 payload bytes (blocks to match, as far as 64 bits go).
    const std::string good = save_to_string(reference_filter().filter);
    for (std::uint64_t blocks : {std::uint64_t{37}, std::uint64_t{1} << 54}) {
        std::string s = good.substr(0, kHeaderSize);
        put<std::uint64_t>(s, kOffBlocks, blocks);
        put<std::uint64_t>(s, kOffLength, std::uint64_t{1} << 60);
        reseal(s);
        for (Via via : {Via::seekable, Via::unseekable}) {
            const auto start = std::chrono::steady_clock::now();
            EXPECT_TRUE(rejects(s, {}, via)) << "blocks " << blocks << " (" << name(via) << ")";
            EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
        }
    }
}

// Runs `load` in a child process, so that a loader that allocates what a hostile header claims
// cannot exhaust this machine or disturb the other tests. Without sanitizers the child's address
// space is capped at its current size + 1 GiB, so such an allocation fails there; in every build
// the child measures how much its peak resident memory grew. Sanitizer runtimes reserve huge
// address ranges, so under them there is no cap and the tests claim only 1 GiB.
struct ChildLoad {
    std::string outcome;   // "FormatError: <message>", or what happened instead
    long rss_growth_kib;   // growth of the child's peak RSS during the load, -1 if unknown
};

long peak_rss_kib() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

ChildLoad load_in_child(const std::function<void()>& load) {
    int fds[2];
    if (::pipe(fds) != 0) return {"pipe failed", -1};
    const pid_t pid = ::fork();
    if (pid < 0) return {"fork failed", -1};
    if (pid == 0) {
        ::close(fds[0]);
        ::alarm(60);
        if (!BB_TEST_SANITIZED) {
            long pages = 0;
            if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
                if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
                std::fclose(f);
            }
            const rlim_t cap =
                static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (rlim_t{1} << 30);
            const rlimit lim{cap, cap};
            ::setrlimit(RLIMIT_AS, &lim);
        }
        std::string msg;
        const long rss_before = peak_rss_kib();
        try {
            load();
            msg = "loaded a filter";
        } catch (const FormatError& e) {
            msg = std::string("FormatError: ") + e.what();
        } catch (const batchbloom::Error& e) {
            msg = std::string("batchbloom::Error (not FormatError): ") + e.what();
        } catch (const std::bad_alloc&) {
            msg = "std::bad_alloc";
        } catch (const std::exception& e) {
            msg = std::string("other exception: ") + e.what();
        }
        msg = std::to_string(peak_rss_kib() - rss_before) + "\n" + msg;
        const char* p = msg.data();
        std::size_t left = msg.size();
        while (left > 0) {
            const ssize_t w = ::write(fds[1], p, left);
            if (w <= 0) break;
            p += w;
            left -= static_cast<std::size_t>(w);
        }
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string msg;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) msg.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ChildLoad r{msg, -1};
    if (const auto nl = msg.find('\n'); nl != std::string::npos) {
        r.rss_growth_kib = std::atol(msg.substr(0, nl).c_str());
        r.outcome = msg.substr(nl + 1);
    }
    if (WIFSIGNALED(status)) r.outcome = "child killed by signal " + std::to_string(WTERMSIG(status)) + " " + r.outcome;
    return r;
}

::testing::AssertionResult rejected_as_truncated_without_allocating(const ChildLoad& r) {
    if (r.outcome.rfind("FormatError: ", 0) != 0 || !mentions(r.outcome, {"truncat"}))
        return ::testing::AssertionFailure() << "expected a FormatError about truncation, got: " << r.outcome;
    if (r.rss_growth_kib < 0 || r.rss_growth_kib > 256 * 1024)
        return ::testing::AssertionFailure() << "rejected, but peak memory grew by " << r.rss_growth_kib
                                             << " KiB for a 164-byte input";
    return ::testing::AssertionSuccess();
}

// Block counts for a header that claims 1 GiB, and without sanitizers also 4 GiB and the
// largest valid filter (layout::max_blocks blocks of 64 bytes, ~256 GiB).
std::vector<std::uint64_t> hostile_block_counts() {
    if (BB_TEST_SANITIZED) return {std::uint64_t{1} << 24};
    return {std::uint64_t{1} << 24, std::uint64_t{1} << 26, batchbloom::layout::max_blocks};
}

std::string hostile_header(std::uint64_t blocks) {
    // A header that is valid in every field, checksum included, and claims `blocks` blocks of
    // 64 bytes, followed by only 100 payload bytes.
    std::string s = save_to_string(Filter(Params::make(Shape::word512, 1, 8), Hashing{}));
    s.resize(kHeaderSize);
    put<std::uint64_t>(s, kOffBlocks, blocks);
    put<std::uint64_t>(s, kOffLength, blocks * 64);
    reseal(s);
    return s + std::string(100, '\x5a');
}

// The loader's contract (src/format/blocked_format.cpp): a hostile header must not make it allocate more than
// the input really holds -- on seekable streams, on streams that cannot tell their size, and
// on files.
TEST(FormatReject, HostileHeaderOnSeekableStreamDoesNotAllocateTheClaimedPayload) {
    for (std::uint64_t blocks : hostile_block_counts()) {
        const std::string s = hostile_header(blocks);
        EXPECT_TRUE(rejected_as_truncated_without_allocating(load_in_child([&] { load_from_string(s); })))
            << blocks << " blocks";
    }
}

TEST(FormatReject, HostileHeaderOnUnseekableStreamDoesNotAllocateTheClaimedPayload) {
    for (std::uint64_t blocks : hostile_block_counts()) {
        const std::string s = hostile_header(blocks);
        EXPECT_TRUE(rejected_as_truncated_without_allocating(load_in_child([&] { load_via(s, Via::unseekable); })))
            << blocks << " blocks";
    }
}

TEST(FormatReject, HostileHeaderInAFile) {
    TempDir dir;
    for (std::uint64_t blocks : hostile_block_counts()) {
        const fs::path p = dir.path() / "hostile.bbf";
        write_file(p, hostile_header(blocks));
        EXPECT_TRUE(rejected_as_truncated_without_allocating(load_in_child([&] { (void)Filter::load(p); })))
            << blocks << " blocks";
    }
}

// ---- files ---------------------------------------------------------------------------------

}  // namespace

#pragma once
// Shared test helpers: deterministic key sets, the shapes and k every engine is checked with,
// probe comparisons, loads that must fail (from seekable and unseekable streams), temporary
// directories, whole-file reads.
#include <gtest/gtest.h>

#include <batchbloom/error.hpp>
#include <batchbloom/hash.hpp>
#include <batchbloom/params.hpp>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <span>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace batchbloom::testing {

/// A fast deterministic source of well-spread 64-bit keys: the library's mixer over a counter
/// that starts at a seed-dependent random point, so different seeds give unrelated sequences
/// (a counter XORed with small seeds would give the same set of values).
class KeyGen {
public:
    explicit KeyGen(std::uint64_t seed) : counter_(mix64(seed, 0x5eed5eed5eed5eedULL)) {}
    std::uint64_t next() { return mix64(counter_++, 0); }

private:
    std::uint64_t counter_;
};

/// n random keys with the given low bit: sets drawn with different parities never overlap,
/// so "absent" keys are absent by construction.
inline std::vector<std::uint64_t> random_keys(std::size_t n, std::uint64_t seed, unsigned parity) {
    KeyGen g(seed);
    std::vector<std::uint64_t> keys(n);
    for (auto& k : keys) k = (g.next() & ~std::uint64_t(1)) | parity;
    return keys;
}

/// Probe keys of which half are present: n keys of parity 1 drawn from `seed` (absent from any
/// set of parity-0 keys), then the first n of `present`.
inline std::vector<std::uint64_t> half_present(const std::vector<std::uint64_t>& present, std::size_t n,
                                               std::uint64_t seed) {
    std::vector<std::uint64_t> q = random_keys(n, seed, 1);
    q.insert(q.end(), present.begin(), present.begin() + static_cast<std::ptrdiff_t>(n));
    return q;
}

/// Every block shape, for tests parameterized by shape, and the shape's name for their names:
/// INSTANTIATE_TEST_SUITE_P(Shapes, T, ::testing::ValuesIn(all_shapes), shape_name).
inline constexpr Shape all_shapes[] = {Shape::split256, Shape::word512, Shape::line512};
inline std::string shape_name(const ::testing::TestParamInfo<Shape>& info) { return std::string(to_string(info.param)); }

/// A block shape and a k.
struct ShapeK {
    Shape shape;
    unsigned k;
};

/// What every engine is checked with against the scalar reference: each shape at its usual k,
/// at a small one and at an odd or the largest one.
inline constexpr ShapeK engine_configs[] = {{Shape::split256, 8}, {Shape::split256, 1}, {Shape::split256, 11},
                                            {Shape::word512, 8},  {Shape::word512, 3},  {Shape::word512, 16},
                                            {Shape::line512, 6},  {Shape::line512, 9},  {Shape::line512, 16}};

/// "word512 k=8", for traces.
inline std::string label(Shape s, unsigned k) { return std::string(to_string(s)) + " k=" + std::to_string(k); }

/// `got` answers the probes of `queries` as `ref` does: bytes, packed bitmap and count. Two
/// filters of any classes with those probes; a failure returns from here, so call it under
/// ASSERT_NO_FATAL_FAILURE where the test must stop.
template <class Ref, class Got>
void expect_same_probes(const Ref& ref, const Got& got, std::span<const std::uint64_t> queries) {
    std::vector<std::uint8_t> want(queries.size()), answers(queries.size());
    ref.contains(queries, want);
    got.contains(queries, answers);
    ASSERT_EQ(answers, want);
    // A word more than the keys need, all ones: every bit of a key's word is written, nothing past.
    std::vector<std::uint64_t> want_bits((queries.size() + 63) / 64), bits(want_bits.size() + 1, ~std::uint64_t(0));
    ref.contains_bitmap(queries, want_bits);
    got.contains_bitmap(queries, bits);
    ASSERT_EQ(bits.back(), ~std::uint64_t(0)) << "wrote past the keys' words";
    bits.pop_back();
    ASSERT_EQ(bits, want_bits);
    ASSERT_EQ(got.count(queries), ref.count(queries));
}

/// F::load of a file's `bytes` throws a FormatError whose message contains `needle`.
/// True if `msg` contains any of `words`, ignoring case.
inline bool mentions(const std::string& msg, const std::vector<const char*>& words) {
    auto lower = [](std::string t) {
        for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return t;
    };
    const std::string m = lower(msg);
    for (const char* w : words)
        if (m.find(lower(w)) != std::string::npos) return true;
    return false;
}

/// An input stream that cannot seek (like a pipe): tellg() and seekg() fail.
class OneWayBuf : public std::streambuf {
public:
    explicit OneWayBuf(std::string bytes) : bytes_(std::move(bytes)) {
        char* b = bytes_.data();
        setg(b, b, b + bytes_.size());
    }

private:
    std::string bytes_;
};

/// The two kinds of stream a loader must treat alike.
enum class Via { seekable, unseekable };
inline const char* name(Via v) { return v == Via::seekable ? "seekable stream" : "unseekable stream"; }

/// F::load over `bytes` from a stream of that kind.
template <class F>
F load_via(const std::string& bytes, Via via) {
    if (via == Via::seekable) {
        std::istringstream in(bytes, std::ios::binary);
        return F::load(in);
    }
    OneWayBuf buf(bytes);
    std::istream in(&buf);
    return F::load(in);
}

/// F::load of `bytes` must throw FormatError whose message mentions one of `words` (none: any).
template <class F>
::testing::AssertionResult rejects(const std::string& bytes, const std::vector<const char*>& words,
                                   Via via = Via::seekable) {
    try {
        (void)load_via<F>(bytes, via);
        return ::testing::AssertionFailure() << "loaded a filter from a " << name(via) << " instead of rejecting it";
    } catch (const FormatError& e) {
        if (words.empty() || mentions(e.what(), words)) return ::testing::AssertionSuccess();
        std::string listed;
        for (const char* w : words) listed += std::string(listed.empty() ? "" : " / ") + "\"" + w + "\"";
        return ::testing::AssertionFailure() << "FormatError message \"" << e.what() << "\" mentions none of "
                                             << listed;
    } catch (const Error& e) {
        return ::testing::AssertionFailure() << "threw batchbloom::Error, not FormatError: " << e.what();
    } catch (const std::bad_alloc&) {
        return ::testing::AssertionFailure() << "threw std::bad_alloc";
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "threw a non-batchbloom exception: " << e.what();
    }
}

template <class F>
void expect_load_error(const std::string& bytes, const std::string& needle) {
    std::stringstream in(bytes);
    try {
        (void)F::load(in);
        ADD_FAILURE() << "loaded a bad file (expected '" << needle << "')";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

/// A fresh directory under the system's temporary directory, removed with its contents.
class TempDir {
public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "batchbloom-test-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    /// The names in the directory, sorted.
    std::vector<std::string> entries() const { return entries_of(path_); }
    static std::vector<std::string> entries_of(const std::filesystem::path& dir) {
        std::vector<std::string> r;
        for (const auto& e : std::filesystem::directory_iterator(dir)) r.push_back(e.path().filename().string());
        std::sort(r.begin(), r.end());
        return r;
    }

private:
    std::filesystem::path path_;
};

/// A path named `name` in a directory of this test process's own: tests that run at the same
/// time (ctest -j, several checkouts on one machine) never share a file.
inline std::filesystem::path process_temp_path(const std::string& name) {
    static const TempDir dir;
    return dir.path() / name;
}

/// The message of the E that fn() throws ("" if it throws none).
template <class E, class Fn>
std::string message_of(Fn&& fn) {
    try {
        fn();
    } catch (const E& e) {
        return e.what();
    }
    return "";
}

inline std::string file_contents(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace batchbloom::testing

#pragma once
// What the loader fuzz targets (fuzz_blocked, fuzz_blocked_layout, fuzz_classic, fuzz_zstd) share. Each
// target is one translation unit that includes this header once and defines
//
//     void fuzz::write_seeds(const std::filesystem::path& dir);   // valid files of its kind
//     void fuzz::fuzz_one(std::string_view input);                // the checks on one input
//
// This header defines libFuzzer's two entry points around them: run with
// BATCHBLOOM_FUZZ_WRITE_SEEDS=<dir>, a target writes its seeds into <dir> and exits
// (tests/fuzz/run_fuzz.sh seeds each corpus that way).
//
// The contract every target checks: a loader either returns a filter or throws
// batchbloom::Error (normally FormatError); any other exception, a crash or a sanitizer report
// is a bug (fail() aborts, so libFuzzer saves the input as a reproducer).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <istream>
#include <optional>
#include <span>
#include <sstream>
#include <streambuf>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "batchbloom/batchbloom.hpp"
#include "format/file_header.hpp"

namespace fuzz {

void write_seeds(const std::filesystem::path& dir);
void fuzz_one(std::string_view input);

using batchbloom::Filter;
using batchbloom::HashKind;
using batchbloom::Params;
using batchbloom::Shape;

[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "fuzz: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

/// Runs f; true if it returned, false if it threw batchbloom::Error; fails on anything else.
template <class F>
bool succeeds(const char* what, F&& f) {
    try {
        f();
        return true;
    } catch (const batchbloom::Error&) {
        return false;
    } catch (const std::exception& e) {
        fail(std::string(what) + " threw a non-batchbloom exception: " + e.what());
    } catch (...) {
        fail(std::string(what) + " threw a non-std exception");
    }
}

inline std::span<const std::byte> as_bytes(std::string_view s) {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

/// An input stream that cannot seek, like a pipe.
class OneWayBuf : public std::streambuf {
public:
    explicit OneWayBuf(std::string_view bytes) : bytes_(bytes) { setg(bytes_.data(), bytes_.data(), bytes_.data() + bytes_.size()); }

private:
    std::string bytes_;
};

/// What one load from a stream over the input gave.
template <class T>
struct Loaded {
    std::optional<T> filter;
    std::size_t consumed = 0;  // stream position after a successful load
};

/// load(stream) over `bytes`, from a seekable istringstream or from an unseekable stream.
template <class T, class Load>
Loaded<T> load_from(std::string_view bytes, bool seekable, const char* what, Load&& load) {
    Loaded<T> r;
    if (seekable) {
        std::istringstream in(std::string(bytes), std::ios::binary);
        if (succeeds(what, [&] { r.filter.emplace(load(in)); })) {
            in.clear();
            r.consumed = static_cast<std::size_t>(in.tellg());
        }
    } else {
        OneWayBuf buf(bytes);
        std::istream in(&buf);
        if (succeeds(what, [&] { r.filter.emplace(load(in)); })) {
            in.clear();
            std::size_t left = 0;
            while (in.get() != std::char_traits<char>::eof()) ++left;
            r.consumed = bytes.size() - left;
        }
    }
    return r;
}

/// Loads `bytes` both ways; the two must agree (accepted or not, the same filter). The
/// consumed byte counts must agree too when `same_consumed` (a zstd frame read from an
/// unseekable stream may swallow what follows it: zstd_stream.hpp).
template <class T, class Load>
Loaded<T> load_both_ways(std::string_view bytes, const char* what, Load&& load, bool same_consumed = true) {
    Loaded<T> a = load_from<T>(bytes, true, what, load);
    Loaded<T> b = load_from<T>(bytes, false, what, load);
    if (a.filter.has_value() != b.filter.has_value())
        fail(std::string(what) + ": seekable and unseekable streams disagree on accepting the input");
    if (a.filter && !(*a.filter == *b.filter))
        fail(std::string(what) + ": seekable and unseekable streams load different filters");
    if (a.filter && same_consumed && a.consumed != b.consumed)
        fail(std::string(what) + ": seekable and unseekable streams consumed different byte counts");
    return a;
}

template <class T>
std::string saved(const T& f) {
    std::ostringstream out(std::ios::binary);
    f.save(out);
    return std::move(out).str();
}

/// A batchbloom file (of any kind) loaded from the start of `input`, using `consumed` bytes:
/// saving it gives back exactly those bytes, and they load back to an equal filter.
template <class T>
void check_round_trip(const T& f, std::string_view input, std::size_t consumed, const char* what) {
    std::string again;
    if (!succeeds("save", [&] { again = saved(f); })) fail(std::string(what) + ": saving a loaded filter failed");
    if (again.size() != consumed || input.substr(0, consumed) != again)
        fail(std::string(what) + ": a loaded filter re-saves to other bytes than it was loaded from");
    std::istringstream in(again, std::ios::binary);
    if (!succeeds(what, [&] {
            if (!(T::load(in) == f)) fail(std::string(what) + ": a re-saved filter loads back different");
        }))
        fail(std::string(what) + ": a re-saved filter does not load");
}

/// What load_any (the CLI's and Python's reader of any filter file) makes of the input.
inline std::optional<batchbloom::AnyFilter> load_any_of(std::string_view input) {
    std::optional<batchbloom::AnyFilter> any;
    succeeds("load_any", [&] { any.emplace(batchbloom::load_any(as_bytes(input))); });
    return any;
}

/// load_any agrees with a type's own loader (which gave `f` after reading `consumed` bytes):
/// it reads the input as a T exactly when that loader accepts all of it, as the same filter.
template <class T>
void check_load_any(const std::optional<batchbloom::AnyFilter>& any, const std::optional<T>& f,
                    std::string_view input, std::size_t consumed) {
    const bool as_t = any && std::holds_alternative<T>(*any);
    if (f && consumed == input.size()) {
        if (!as_t) fail("load_any does not read a whole filter that its type's loader accepts");
        if (!(std::get<T>(*any) == *f)) fail("load_any loads another filter than the type's own loader");
    } else if (as_t) {
        fail("load_any reads as a filter of this type what the type's loader does not accept whole");
    }
}

/// Keys every target probes with and inserts into accepted filters.
inline constexpr std::uint64_t int_keys[] = {0, 1, 42, 0xDEADBEEFCAFEBABEULL, ~std::uint64_t{0}};
inline constexpr std::string_view string_keys[] = {"", "a", "batchbloom", "a somewhat longer key of 39 bytes......"};

/// Probes a loaded filter (bulk and single-key answers agree), then inserts the keys into a
/// copy and finds them all. Only a scalable filter may refuse an insert (with Error: scalable.hpp,
/// a stage beyond the limits its loaded params lead to); the keys before that one must be found.
template <class T>
void check_probes_and_inserts(const T& f) {
    std::uint8_t out[std::size(int_keys)];
    f.contains(std::span<const std::uint64_t>(int_keys), std::span<std::uint8_t>(out));
    for (std::size_t i = 0; i < std::size(int_keys); ++i)
        if (out[i] != (f.contains(int_keys[i]) ? 1 : 0)) fail("bulk and single-key contains disagree");
    for (std::string_view s : string_keys) (void)f.contains(s);
    if constexpr (std::is_same_v<T, batchbloom::ScalableFilter>) {
        // The next stage is whatever the loaded params make it (a file may ask for growth 1e9,
        // or a tightening that leaves it no FPR): insert only where it stays small.
        const auto& p = f.params();
        const auto stages = static_cast<double>(f.stages().size());
        if (static_cast<double>(p.initial_capacity) * std::pow(p.growth, stages) > 65536.0 ||
            p.initial_fpr * std::pow(p.tightening, stages) < 1e-9)
            return;
    }
    T g = f;
    std::size_t ints = 0, strings = 0;
    const bool all = succeeds("insert", [&] {
        for (; ints < std::size(int_keys); ++ints) g.insert(int_keys[ints]);
        for (; strings < std::size(string_keys); ++strings) g.insert(string_keys[strings]);
    });
    if (!all && !std::is_same_v<T, batchbloom::ScalableFilter>) fail("an insert into a loaded filter threw");
    for (std::size_t i = 0; i < ints; ++i)
        if (!g.contains(int_keys[i])) fail("an inserted integer key is not found");
    for (std::size_t i = 0; i < strings; ++i)
        if (!g.contains(string_keys[i])) fail("an inserted string key is not found");
}

/// The input with both checksums of the shared 64-byte batchbloom header recomputed by the
/// codec (io::reseal), or nothing if it is too short or already sealed. Random mutations almost
/// never keep the checksums right; resealing lets the fuzzer reach the field checks, the
/// allocations and the payload reading behind them.
inline std::optional<std::string> resealed(std::string_view input) {
    std::string s(input);
    if (!batchbloom::io::reseal(std::as_writable_bytes(std::span(s)))) return std::nullopt;
    return s;
}

inline void write_seed(const std::filesystem::path& dir, const std::string& name, std::string_view bytes) {
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
        std::fprintf(stderr, "fuzz: cannot write %s\n", (dir / name).c_str());
        std::exit(1);
    }
}

}  // namespace fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* dir = std::getenv("BATCHBLOOM_FUZZ_WRITE_SEEDS")) {
        fuzz::write_seeds(dir);
        std::exit(0);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::fuzz_one(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}

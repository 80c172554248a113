#pragma once
// Shared test helpers: deterministic key sets, temporary directories, whole-file reads.
#include <batchbloom/hash.hpp>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>
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

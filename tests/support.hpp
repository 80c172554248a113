#pragma once
// Shared test helpers: deterministic key sets.
#include <batchbloom/hash.hpp>
#include <cstdint>
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

}  // namespace batchbloom::testing

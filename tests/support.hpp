#pragma once
// Shared test helpers: deterministic key sets and the engines to run every property on.
#include <cstdint>
#include <vector>

namespace batchbloom::testing {

/// splitmix64: a fast deterministic source of well-spread 64-bit keys.
class KeyGen {
public:
    explicit KeyGen(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

private:
    std::uint64_t state_;
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

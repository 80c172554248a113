#pragma once
// SplitMix64 (Steele, Lea, Flood 2014): a tiny, fast 64-bit generator for benchmark keys.
#include <cstdint>

namespace batchbloom::cli {

class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        state_ += 0x9E3779B97F4A7C15ULL;
        std::uint64_t z = state_;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    /// Uniform in [0, bound) for bound >= 1 (Lemire's multiply-shift; bias below 2^-32 for
    /// the bounds a benchmark uses).
    std::uint64_t below(std::uint64_t bound) {
        const std::uint64_t hi = next() >> 32;
        if (bound <= (std::uint64_t(1) << 32)) return (hi * bound) >> 32;
        return next() % bound;
    }

private:
    std::uint64_t state_;
};

}  // namespace batchbloom::cli

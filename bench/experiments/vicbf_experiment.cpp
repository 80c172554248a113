// The variable-increment counting Bloom filter (Rottenstreich, Kanizo, Keslassy 2014) against the
// counting Bloom filter it improves on, at equal memory: m 4-bit counters each. A VI-CBF adds to
// each of a key's k counters an increment drawn (by hash) from D_L = {L, ..., 2L-1} instead of 1; a
// probe rejects a key if some counter c with the key's increment v has c < v or 0 < c - v < L (the
// rest of c cannot be a sum of other increments). Counters saturate at 15 and then always answer
// "may be present". For scale, the table also shows a plain (one-bit) Bloom filter given the same
// memory (4m bits).
//   build/bench/experiments/batchbloom_vicbf [keys]      (default 100000; m = 10 counters per key)
// Scalar and independent of the library's blocked layout: positions and increments come
// from double hashing of the library's 64-bit mixer.
#include <batchbloom/hash.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct Hashes {
    std::uint64_t h1, h2;
    explicit Hashes(std::uint64_t key) : h1(batchbloom::mix64(key, 1)), h2(batchbloom::mix64(key, 2) | 1) {}
    std::uint64_t position(unsigned i, std::uint64_t m) const { return (h1 + i * h2) % m; }
    unsigned increment(unsigned i, unsigned L) const { return L + unsigned(batchbloom::mix64(h1, i) % L); }
};

// L = 1 is the plain counting filter (every increment is 1, a probe needs c >= 1).
struct Counters {
    std::uint64_t m;
    unsigned k, L;
    std::vector<std::uint8_t> c;
    Counters(std::uint64_t m_, unsigned k_, unsigned L_) : m(m_), k(k_), L(L_), c(m_) {}

    void insert(std::uint64_t key) {
        const Hashes h(key);
        for (unsigned i = 0; i < k; ++i) {
            auto& x = c[h.position(i, m)];
            x = static_cast<std::uint8_t>(std::min(15u, x + h.increment(i, L)));
        }
    }
    bool contains(std::uint64_t key) const {
        const Hashes h(key);
        for (unsigned i = 0; i < k; ++i) {
            const unsigned x = c[h.position(i, m)], v = h.increment(i, L);
            if (x == 15) continue;  // saturated: unknown
            if (x < v || (x > v && x - v < L)) return false;
        }
        return true;
    }
};

struct Bits {
    std::uint64_t m;
    unsigned k;
    std::vector<std::uint64_t> b;
    Bits(std::uint64_t m_, unsigned k_) : m(m_), k(k_), b((m_ + 63) / 64) {}
    void insert(std::uint64_t key) {
        const Hashes h(key);
        for (unsigned i = 0; i < k; ++i) b[h.position(i, m) / 64] |= std::uint64_t(1) << (h.position(i, m) % 64);
    }
    bool contains(std::uint64_t key) const {
        const Hashes h(key);
        for (unsigned i = 0; i < k; ++i)
            if (!((b[h.position(i, m) / 64] >> (h.position(i, m) % 64)) & 1)) return false;
        return true;
    }
};

template <class F>
double fpr_of(F&& f, std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) f.insert(batchbloom::mix64(i, 0x5eed) & ~std::uint64_t(1));
    const std::uint64_t probes = 2'000'000;
    std::uint64_t fp = 0;
    for (std::uint64_t i = 0; i < probes; ++i) fp += f.contains(batchbloom::mix64(i, 0x0bad) | 1);
    return double(fp) / double(probes);
}

}  // namespace

int main(int argc, char** argv) {
    const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100'000;
    const std::uint64_t m = 10 * n;  // counters: 40 bits of memory per key
    std::printf("n = %llu keys, m = %llu 4-bit counters (%llu bytes)\n", static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(m), static_cast<unsigned long long>(m / 2));
    std::printf("%3s %14s %14s %14s %22s\n", "k", "CBF FPR", "VI-CBF L=2", "VI-CBF L=4", "Bloom, 4m bits");
    for (unsigned k = 2; k <= 8; ++k) {
        std::printf("%3u %14.5f %14.5f %14.5f %22.7f\n", k, fpr_of(Counters(m, k, 1), n), fpr_of(Counters(m, k, 2), n),
                    fpr_of(Counters(m, k, 4), n), fpr_of(Bits(4 * m, k), n));
    }
    return 0;
}

// The "Floomfilter" experiment: a classic Bloom filter of m bits cut into b
// regions, plus a 2^b-bit table with one bit per region signature — the set of regions a
// key's k bits fell in. A probe first asks the table for the key's signature, then the
// filter. Compared at equal total memory with a standard classic filter (m + 2^b bits, its own
// optimal k), at b = 16 and a 1% FPR target, for several key counts.
//   build/bench/experiments/batchbloom_floom [keys...]      (default: 10000 100000 1000000)
// Classic filters here are scalar and independent of the library's blocked layout: positions
// come from double hashing of the library's 64-bit mixer (h1 + i * h2 mod m).
#include <batchbloom/hash.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Classic {
    std::uint64_t m;
    unsigned k;
    std::vector<std::uint64_t> bits;
    Classic(std::uint64_t m_, unsigned k_) : m(m_), k(k_), bits((m_ + 63) / 64) {}

    template <class F>
    void positions(std::uint64_t key, F&& f) const {
        const std::uint64_t h1 = batchbloom::mix64(key, 1), h2 = batchbloom::mix64(key, 2) | 1;
        for (unsigned i = 0; i < k; ++i) f((h1 + i * h2) % m);
    }
    void insert(std::uint64_t key) {
        positions(key, [&](std::uint64_t p) { bits[p / 64] |= std::uint64_t(1) << (p % 64); });
    }
    bool contains(std::uint64_t key) const {
        bool all = true;
        positions(key, [&](std::uint64_t p) { all &= (bits[p / 64] >> (p % 64)) & 1; });
        return all;
    }
};

struct Floom {
    static constexpr unsigned b = 16;
    Classic filter;
    std::vector<std::uint64_t> table = std::vector<std::uint64_t>((std::size_t(1) << b) / 64);
    Floom(std::uint64_t m, unsigned k) : filter(m, k) {}

    std::uint32_t signature(std::uint64_t key) const {
        std::uint32_t s = 0;
        filter.positions(key, [&](std::uint64_t p) { s |= 1u << (p * b / filter.m); });
        return s;
    }
    void insert(std::uint64_t key) {
        filter.insert(key);
        const auto s = signature(key);
        table[s / 64] |= std::uint64_t(1) << (s % 64);
    }
    bool contains(std::uint64_t key) const {
        const auto s = signature(key);
        return ((table[s / 64] >> (s % 64)) & 1) && filter.contains(key);
    }
};

unsigned optimal_k(std::uint64_t m, std::uint64_t n) {
    return std::max(1u, static_cast<unsigned>(std::lround(double(m) / double(n) * std::log(2.0))));
}

template <class F>
double measured_fpr(const F& f, std::uint64_t probes) {
    std::uint64_t fp = 0;
    for (std::uint64_t i = 0; i < probes; ++i) fp += f.contains(batchbloom::mix64(i, 0x0bad) | 1);  // odd: absent
    return double(fp) / double(probes);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::uint64_t> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
    if (sizes.empty()) sizes = {10'000, 100'000, 1'000'000};
    const double target = 0.01;
    std::printf("%10s %12s %10s %4s %12s %10s %4s %12s %12s %8s\n", "keys", "total bits", "standard", "k",
                "FPR", "floom m", "k", "table fill", "FPR", "ratio");
    for (const std::uint64_t n : sizes) {
        // Memory of a classic filter at the target FPR with optimal k: n * -ln p / ln^2 2.
        const auto total = static_cast<std::uint64_t>(std::ceil(double(n) * -std::log(target) / (std::log(2.0) * std::log(2.0))));
        if (total <= (std::uint64_t(1) << Floom::b) + 64) {
            std::printf("%10llu: the 2^16-bit table alone exceeds the memory budget\n", static_cast<unsigned long long>(n));
            continue;
        }
        const std::uint64_t m = total - (std::uint64_t(1) << Floom::b);
        Classic standard(total, optimal_k(total, n));
        Floom floom(m, optimal_k(m, n));
        for (std::uint64_t i = 0; i < n; ++i) {
            const std::uint64_t key = batchbloom::mix64(i, 0x5eed) & ~std::uint64_t(1);  // even: present
            standard.insert(key);
            floom.insert(key);
        }
        std::uint64_t table_ones = 0;
        for (auto w : floom.table) table_ones += static_cast<std::uint64_t>(__builtin_popcountll(w));
        const std::uint64_t probes = 2'000'000;
        const double fs = measured_fpr(standard, probes), ff = measured_fpr(floom, probes);
        std::printf("%10llu %12llu %10s %4u %12.5f %10llu %4u %11.2f%% %12.5f %8.3f\n", static_cast<unsigned long long>(n),
                    static_cast<unsigned long long>(total), "", standard.k, fs, static_cast<unsigned long long>(m),
                    floom.filter.k, 100.0 * double(table_ones) / double(1 << Floom::b), ff, ff / fs);
    }
    return 0;
}

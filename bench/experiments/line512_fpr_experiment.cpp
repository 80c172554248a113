// How low can a 512-bit-line filter's FPR go at 10 bits/key? The target for the "precise" shape
// (line512: k bits anywhere in the line) is <= 0.96%, the model's optimum. This program measures
// the library's line512 filter at k = 6, 7, 8 and, on the same blocks and keys, the same layout
// with *ideal* bit positions: each drawn independently from a separate 64-bit mix of the key's
// hash. If the ideal positions cannot reach a target, no choice of salts or position hashing can.
//   build/bench/experiments/batchbloom_line512_fpr [keys (default 10M)] [queries (default 20M)]
#include <batchbloom/filter.hpp>
#include <batchbloom/params.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace bb = batchbloom;

namespace {

/// FPR of a line512 filter whose k positions per key are independent uniform draws.
double ideal_positions_fpr(std::uint64_t blocks, unsigned k, std::uint64_t n, std::uint64_t q) {
    std::vector<std::uint64_t> words(blocks * 8, 0);
    auto position = [](std::uint64_t h, unsigned i) { return static_cast<unsigned>(bb::mix64(h, i + 1) >> 55); };
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t h = bb::mix64(2 * i, 0);
        std::uint64_t* line = words.data() + bb::layout::block_index(h, blocks) * 8;
        for (unsigned j = 0; j < k; ++j) {
            const unsigned p = position(h, j);
            line[p / 64] |= std::uint64_t(1) << (p % 64);
        }
    }
    std::uint64_t hits = 0;
    for (std::uint64_t i = 0; i < q; ++i) {
        const std::uint64_t h = bb::mix64(2 * i + 1, 0);
        const std::uint64_t* line = words.data() + bb::layout::block_index(h, blocks) * 8;
        bool all = true;
        for (unsigned j = 0; j < k; ++j) {
            const unsigned p = position(h, j);
            all &= ((line[p / 64] >> (p % 64)) & 1) != 0;
        }
        hits += all;
    }
    return static_cast<double>(hits) / static_cast<double>(q);
}

}  // namespace

int main(int argc, char** argv) {
    const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
    const std::uint64_t q = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20'000'000;
    if (n == 0 || q == 0) {
        std::fprintf(stderr, "usage: %s [keys > 0] [queries > 0]\n", argv[0]);
        return 2;
    }
    std::vector<std::uint64_t> keys(n), absent(q);
    for (std::uint64_t i = 0; i < n; ++i) keys[i] = bb::mix64(i, 1) & ~std::uint64_t(1);
    for (std::uint64_t i = 0; i < q; ++i) absent[i] = bb::mix64(i, 2) | 1;  // odd: never inserted
    const bb::Params sized = bb::Params::for_bits_per_key(n, 10, bb::Shape::line512);
    const double se = std::sqrt(0.01 / static_cast<double>(q));  // standard error near 1%
    std::printf("line512 at %.3f bits/key, %llu keys, %llu absent queries (standard error ~%.4f%%)\n",
                static_cast<double>(sized.bits()) / static_cast<double>(n), static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(q), 100 * se);
    std::printf("%3s  %12s  %12s  %18s\n", "k", "model", "measured", "ideal positions");
    for (unsigned k : {6u, 7u, 8u}) {
        const bb::Params p = bb::Params::make(bb::Shape::line512, sized.blocks, k);
        bb::Filter f(p);
        f.insert(keys);
        const double measured = static_cast<double>(f.count(absent)) / static_cast<double>(q);
        std::printf("%3u  %11.4f%%  %11.4f%%  %17.4f%%%s\n", k, 100 * bb::predicted_fpr(p, n), 100 * measured,
                    100 * ideal_positions_fpr(p.blocks, k, n, q), k == sized.k ? "  (sizing's k)" : "");
    }
}

// Deletability of the deletable Bloom filter: the fraction of n inserted keys
// that erase() removes, measured, beside predicted_deletability() (deletable.hpp), per shape,
// region size and bits per key. k = 8 for the one-bit-per-word shapes, the model's k for line512.
//   build/bench/experiments/batchbloom_deletability [keys]      (default 100000)
#include <batchbloom/deletable.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace bb = batchbloom;

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100'000;
    std::vector<std::uint64_t> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = bb::mix64(i, 0x5eed);
    std::printf("%-9s %7s %12s %4s %10s %10s\n", "shape", "region", "bits/key", "k", "measured", "model");
    for (auto shape : {bb::Shape::split256, bb::Shape::word512, bb::Shape::line512}) {
        for (unsigned region_bits : {4u, 8u, 16u, 32u}) {
            for (double bits_per_key : {10.0, 20.0}) {
                bb::Params p = bb::Params::for_bits_per_key(n, bits_per_key, shape);
                if (shape != bb::Shape::line512) p = bb::Params::make(shape, p.blocks, 8);
                bb::DeletableFilter d(p, region_bits);
                d.insert(keys);
                const double measured = double(d.erase(keys)) / double(n);
                std::printf("%-9s %7u %12.1f %4u %10.4f %10.4f\n", std::string(bb::to_string(shape)).c_str(), region_bits,
                            bits_per_key, p.k, measured, bb::predicted_deletability(p, region_bits, n));
            }
        }
    }
    return 0;
}

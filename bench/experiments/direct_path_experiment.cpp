// Where the direct path's time goes against the random-line limit: the limit loop of
// `batchbloom bench` turned into a probe one step at a time, each step timed in the same
// rounds as the library's own direct probe of a filter of the same size.
//
//   batchbloom_direct_path FILTER_MIB [--rounds R] [--far D] [--keys N]
//
//   lines   the limit: precomputed line indices, line i + D prefetched into L2 and line i + 8
//           into L1 (the direct path's two-level scheme), one word of line i read
//   hashed  the same, each key hashed on the fly (mix64, block_index) into a ring of indices,
//           as the direct path does (there 8 keys per vector)
//   direct  Filter::contains on the direct path, one thread, the best engine: the above plus
//           the test of each line against the key's pattern and one answer byte per key
//
// One filter-sized buffer serves the first two; the filter (word512, k = 8) holds half the
// keys. Prints the median ns per key of each over R rounds (default 7), the steps in between
// and the limit over direct (the ratio the direct path is held to). Single-threaded. Where a
// step costs about what its instructions take, the work per key is not hidden under the line
// reads on this machine.
#include <batchbloom/filter.hpp>
#include <batchbloom/hash.hpp>
#include <batchbloom/layout.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace bb = batchbloom;
namespace layout = bb::layout;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t near = 8, ring = 1024;
constexpr bb::Shape shape = bb::Shape::word512;
using word = layout::shape_traits<shape>::word_type;
constexpr std::size_t words = layout::shape_traits<shape>::words;

[[gnu::noinline]] std::uint64_t lines(const word* buf, const std::uint64_t* idx, std::size_t n, std::size_t far) {
    std::uint64_t sum = 0;
    std::size_t i = 0;
    for (; i < std::min(far, n); ++i) __builtin_prefetch(buf + idx[i] * words, 0, 1);
    for (i = 0; i + far < n; ++i) {
        __builtin_prefetch(buf + idx[i + far] * words, 0, 1);
        __builtin_prefetch(buf + idx[i + near] * words, 0, 3);
        sum += buf[idx[i] * words + (i & (words - 1))];
    }
    for (; i < n; ++i) sum += buf[idx[i] * words + (i & (words - 1))];
    return sum;
}

/// The loop above with each key's line found on the fly: its block goes into a ring, `far`
/// ahead of the read.
[[gnu::noinline]] std::uint64_t hashed(const word* buf, std::uint64_t blocks, const std::uint64_t* keys, std::size_t n,
                                       std::size_t far) {
    std::uint64_t block[ring], sum = 0;
    auto ahead = [&](std::size_t j) {
        block[j % ring] = layout::block_index(bb::mix64(keys[j], 0), blocks);
        __builtin_prefetch(buf + block[j % ring] * words, 0, 1);
    };
    for (std::size_t j = 0; j < std::min(far, n); ++j) ahead(j);
    for (std::size_t i = 0; i < n; ++i) {
        if (i + far < n) ahead(i + far);
        if (i + near < n) __builtin_prefetch(buf + block[(i + near) % ring] * words, 0, 3);
        sum += buf[block[i % ring] * words + (i & (words - 1))];
    }
    return sum;
}

template <class Body>
double ns_per_key(std::size_t n, Body&& body) {
    const auto t0 = Clock::now();
    body();
    return std::chrono::duration<double>(Clock::now() - t0).count() * 1e9 / double(n);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int usage() {
    std::fprintf(stderr, "usage: batchbloom_direct_path FILTER_MIB [--rounds R] [--far D] [--keys N]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage();
    const double mib = std::atof(argv[1]);
    unsigned rounds = 7;
    std::size_t far = 128, n = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string opt = argv[i];
        if (opt == "--rounds") rounds = static_cast<unsigned>(std::atoi(argv[i + 1]));
        else if (opt == "--far") far = std::strtoull(argv[i + 1], nullptr, 10);
        else if (opt == "--keys") n = std::strtoull(argv[i + 1], nullptr, 10);
        else return usage();
    }
    if (!(mib > 0) || rounds == 0 || far < near) return usage();
    const std::uint64_t blocks = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(mib * 1048576.0 / 64));
    if (n == 0) n = static_cast<std::size_t>(std::clamp<std::uint64_t>(blocks, 1 << 20, 1 << 24));

    bb::Filter filter(bb::Params::make(shape, blocks, 8));
    filter.set_threads(1);
    filter.set_batch_path(bb::BatchPath::direct);
    // The line buffer: a filter of the same size, so that it is allocated (huge pages) and
    // touched as the library does; its words are read as plain data.
    bb::Filter buffer(bb::Params::make(shape, blocks, 8));
    const auto* buf = reinterpret_cast<const word*>(buffer.bytes().data());

    std::vector<std::uint64_t> keys(n), idx(n);
    std::uint64_t s = 0x5EED;
    for (std::size_t i = 0; i < n; ++i) {
        keys[i] = bb::mix64(s++, 42);
        idx[i] = layout::block_index(bb::mix64(keys[i], 0), blocks);
    }
    filter.insert(std::span(keys).first(n / 2));  // half the probes find their key
    std::vector<std::uint8_t> out(n);

    std::vector<double> t[3];
    std::uint64_t sink = 0;
    for (unsigned r = 0; r < rounds; ++r) {
        t[0].push_back(ns_per_key(n, [&] { sink += lines(buf, idx.data(), n, far); }));
        t[1].push_back(ns_per_key(n, [&] { sink += hashed(buf, blocks, keys.data(), n, far); }));
        t[2].push_back(ns_per_key(n, [&] { filter.contains(keys, out); }));
    }
    const double m[3] = {median(t[0]), median(t[1]), median(t[2])};
    std::printf("# %.1f MiB (%llu lines), %zu keys, far %zu, median of %u rounds; engine %s (checksum %llu)\n",
                double(blocks) * 64 / 1048576, static_cast<unsigned long long>(blocks), n, far, rounds,
                std::string(bb::to_string(bb::resolve_backend(bb::Backend::automatic))).c_str(),
                static_cast<unsigned long long>(sink % 1000));
    std::printf("lines %.2f  hashed %.2f (+%.2f)  direct %.2f (+%.2f) ns/key;  limit/direct %.2f\n", m[0], m[1],
                m[1] - m[0], m[2], m[2] - m[1], m[0] / m[2]);
    return 0;
}

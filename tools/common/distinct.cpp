#include "common/distinct.hpp"

#include <algorithm>

namespace batchbloom::cli {

void make_distinct(std::vector<std::uint64_t>& values) {
    constexpr unsigned radix_bits = 16;
    constexpr std::size_t buckets = std::size_t(1) << radix_bits;
    if (values.size() < buckets * 4) {
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        return;
    }
    // Counting sort on the top bits into `sorted`, then each bucket on its own, compacted.
    std::vector<std::size_t> start(buckets + 1, 0);
    for (std::uint64_t v : values) ++start[(v >> (64 - radix_bits)) + 1];
    for (std::size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
    std::vector<std::uint64_t> sorted(values.size());
    std::vector<std::size_t> next(start.begin(), start.end() - 1);
    for (std::uint64_t v : values) sorted[next[v >> (64 - radix_bits)]++] = v;
    std::vector<std::uint64_t>().swap(values);

    std::size_t out = 0;
    for (std::size_t b = 0; b < buckets; ++b) {
        const auto first = sorted.begin() + std::ptrdiff_t(start[b]), last = sorted.begin() + std::ptrdiff_t(start[b + 1]);
        std::sort(first, last);
        const auto end = std::unique(first, last);
        if (out != start[b]) std::copy(first, end, sorted.begin() + std::ptrdiff_t(out));  // moves down: out < start[b]
        out += std::size_t(end - first);
    }
    sorted.resize(out);
    values.swap(sorted);
}

}  // namespace batchbloom::cli

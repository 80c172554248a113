#include "common/distinct.hpp"

#include <algorithm>
#include <vector>

namespace batchbloom::cli {

namespace {

std::uint64_t distinct_in_sorted(std::uint64_t* first, std::uint64_t* last) {
    std::sort(first, last);
    return static_cast<std::uint64_t>(std::unique(first, last) - first);
}

}  // namespace

std::uint64_t count_distinct(std::span<const std::uint64_t> values) {
    std::vector<std::uint64_t> copy(values.begin(), values.end());
    constexpr unsigned radix_bits = 16;
    constexpr std::size_t buckets = std::size_t(1) << radix_bits;
    if (copy.size() < buckets * 4) return distinct_in_sorted(copy.data(), copy.data() + copy.size());

    // Counting sort on the top bits into `copy`, then each bucket on its own.
    std::vector<std::size_t> start(buckets + 1, 0);
    for (std::uint64_t v : values) ++start[(v >> (64 - radix_bits)) + 1];
    for (std::size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
    std::vector<std::size_t> next(start.begin(), start.end() - 1);
    for (std::uint64_t v : values) copy[next[v >> (64 - radix_bits)]++] = v;

    std::uint64_t distinct = 0;
    for (std::size_t b = 0; b < buckets; ++b) distinct += distinct_in_sorted(copy.data() + start[b], copy.data() + start[b + 1]);
    return distinct;
}

}  // namespace batchbloom::cli

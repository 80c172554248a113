#pragma once
// The key sets of `batchbloom bench`: keys to insert, keys guaranteed absent, and a probe set
// that is half inserted and half absent keys.
#include <cstdint>
#include <vector>

namespace batchbloom::cli {

struct Workload {
    std::vector<std::uint64_t> inserted;  ///< lowest bit 0
    std::vector<std::uint64_t> absent;    ///< lowest bit 1, so none of them was inserted
    std::vector<std::uint64_t> mixed;     ///< each key drawn from `inserted` or `absent` with probability 1/2
    std::uint64_t mixed_present = 0;      ///< how many keys of `mixed` came from `inserted`

    /// True for a key of `inserted` (the key sets differ in their lowest bit).
    static bool is_inserted(std::uint64_t key) { return (key & 1) == 0; }
};

/// `keys` (>= 1) keys to insert and `queries` absent keys and mixed probes, from `seed`.
Workload make_workload(std::uint64_t keys, std::uint64_t queries, std::uint64_t seed);

}  // namespace batchbloom::cli

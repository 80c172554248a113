#pragma once
// The blocked filter's bulk probes (contains, count) of a Filter's blocks under the settings of
// the object that makes the call: the Filter's own (its KeyForms and HashForms), or those of a
// filter whose bits it is (DeletableFilter's probes, under the deletable filter's engine and
// threads). Each builds the call's context (batch/bulk_call.hpp) once, before its work.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "batch/blocked_paths.hpp"
#include "batch/bulk_call.hpp"
#include "batchbloom/bulk_settings.hpp"
#include "batchbloom/error.hpp"
#include "batchbloom/filter.hpp"
#include "engine/engine.hpp"
#include "filters/key_hashes.hpp"

namespace batchbloom::detail {

/// The context of a bulk call of n keys on f's blocks under `settings` (f's own, or those of the
/// filter whose bits f is): their engine and threads, f's batch path and scratch (blocked.cpp).
BulkCall blocked_call(const Filter& f, const BulkSettings& settings, std::size_t n);

/// out[i] = 1 if keys[i] (with Hashed, the hash keys[i]) may be in f, else 0. Throws Error if
/// out.size() != keys.size(). A moved-from f contains nothing.
template <bool Hashed, class Key>
void blocked_contains(const Filter& f, const BulkSettings& settings, std::span<const Key> keys,
                      std::span<std::uint8_t> out) {
    if (keys.size() != out.size())
        throw Error("output has " + std::to_string(out.size()) + " entries for " + std::to_string(keys.size()) +
                    " keys");
    if (f.params().blocks == 0) {
        std::fill(out.begin(), out.end(), std::uint8_t{0});
        return;
    }
    const BulkCall call = blocked_call(f, settings, keys.size());
    const BlockedKernels& e = blocked_kernels(call.backend);
    const FilterRef ref = filter_ref(f.params(), f.bytes().data());  // probes only read through it
    feed_keys_on<Hashed>(call.threads_for(keys.size()), f.hashing(), keys,
                         [&](const std::uint64_t* v, std::size_t n, KeyMode m, std::size_t at) {
                             bulk_contains_bytes(e, ref, v, n, m, out.data() + at, call);
                         });
}

/// The number of keys (with Hashed, hashes) that may be in f.
template <bool Hashed, class Key>
std::size_t blocked_count(const Filter& f, const BulkSettings& settings, std::span<const Key> keys) {
    if (f.params().blocks == 0) return 0;
    const BulkCall call = blocked_call(f, settings, keys.size());
    const BlockedKernels& e = blocked_kernels(call.backend);
    const FilterRef ref = filter_ref(f.params(), f.bytes().data());
    std::size_t c = 0;
    feed_keys_on<Hashed>(call.threads_for(keys.size()), f.hashing(), keys,
                         [&](const std::uint64_t* v, std::size_t n, KeyMode m, std::size_t) {
                             c += bulk_count(e, ref, v, n, m, call);
                         });
    return c;
}

}  // namespace batchbloom::detail

// hash_keys (hash.hpp): a batch of keys to the hashes a filter of that hashing inserts, on the
// best engine here, so a caller that needs the hashes twice (a sketch that sizes a filter, then
// insert_hashes) hashes at the kernels' speed rather than key by key.
#include <string>

#include "batchbloom/error.hpp"
#include "batchbloom/hash.hpp"
#include "engine/engine.hpp"
#include "filters/key_hashes.hpp"

namespace batchbloom {

namespace {

template <class Key>
void hash_all(const Hashing& h, std::span<const Key> keys, std::span<std::uint64_t> out) {
    if (out.size() != keys.size())
        throw Error("hash_keys: out has " + std::to_string(out.size()) + " entries for " + std::to_string(keys.size()) +
                    " keys");
    if (keys.empty()) return;
    detail::hash_keys(h, detail::blocked_kernels(Backend::automatic), keys, out.data());
}

}  // namespace

void hash_keys(const Hashing& h, std::span<const std::uint64_t> keys, std::span<std::uint64_t> out) { hash_all(h, keys, out); }
void hash_keys(const Hashing& h, std::span<const std::uint32_t> keys, std::span<std::uint64_t> out) { hash_all(h, keys, out); }
void hash_keys(const Hashing& h, std::span<const std::string_view> keys, std::span<std::uint64_t> out) {
    hash_all(h, keys, out);
}
void hash_keys(const Hashing& h, std::span<const std::string> keys, std::span<std::uint64_t> out) { hash_all(h, keys, out); }

}  // namespace batchbloom

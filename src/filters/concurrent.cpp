// ConcurrentFilter: keys to hashes as for Filter (key_hashes.hpp), then the engine's concurrent
// kernels on the viewed filter's blocks, on the calling thread (the callers are the threads).
#include "batchbloom/concurrent.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

#include "engine/engine.hpp"
#include "filters/key_forms_impl.hpp"
#include "filters/key_hashes.hpp"
#include "filters/storage.hpp"
#include "format/file_header.hpp"
#include "format/file_io.hpp"

namespace batchbloom {

namespace {

// Probes only read through the reference; inserts call require_writable first.
detail::FilterRef ref(const Filter& f) {
    const Params& p = f.params();
    return {const_cast<std::byte*>(f.bytes().data()), p.blocks, p.shape, p.k};
}

void require_writable(const Filter& f) {
    if (f.params().blocks == 0) detail::throw_moved_from("insert");
    if (f.mapped()) detail::throw_mapped("insert");
}

constexpr detail::KeyMode hashed{detail::KeyMode::hashed, 0};

void check_out(std::size_t keys, std::size_t out) {
    if (keys != out)
        throw Error("output has " + std::to_string(out) + " entries for " + std::to_string(keys) + " keys");
}

}  // namespace

template <class Key, bool Hashed>
void ConcurrentFilter::insert_keys(std::span<const Key> keys) {
    require_writable(*filter_);
    const auto& k = detail::concurrent_kernels(filter_->backend());
    const auto r = ref(*filter_);
    detail::feed_keys<Hashed>(filter_->hashing(), keys,
                      [&](const std::uint64_t* v, std::size_t n, detail::KeyMode m, std::size_t) { k.insert(r, v, n, m); });
}

template <class Key, bool Hashed>
std::size_t ConcurrentFilter::count_keys(std::span<const Key> keys, std::uint8_t* out) const {
    if (filter_->params().blocks == 0) {  // a moved-from filter contains nothing
        if (out != nullptr) std::fill_n(out, keys.size(), std::uint8_t{0});
        return 0;
    }
    const auto& k = detail::concurrent_kernels(filter_->backend());
    const auto r = ref(*filter_);
    std::size_t hits = 0;
    std::uint8_t scratch[detail::hash_chunk];
    const auto probe = [&](const std::uint64_t* v, std::size_t n, detail::KeyMode m, std::size_t at) {
        for (std::size_t begin = 0; begin < n; begin += detail::hash_chunk) {
            const std::size_t len = n - begin < detail::hash_chunk ? n - begin : detail::hash_chunk;
            std::uint8_t* dst = out != nullptr ? out + at + begin : scratch;
            k.contains_bytes(r, v + begin, len, m, dst);
            for (std::size_t i = 0; i < len; ++i) hits += dst[i];
        }
    };
    detail::feed_keys<Hashed>(filter_->hashing(), keys, probe);
    return hits;
}

template <class Key, bool Hashed>
void ConcurrentFilter::contains_keys(std::span<const Key> keys, std::span<std::uint8_t> out) const {
    check_out(keys.size(), out.size());
    count_keys<Key, Hashed>(keys, out.data());
}

void ConcurrentFilter::insert(std::uint64_t key) { insert_hash(filter_->hash(key)); }
void ConcurrentFilter::insert(std::string_view key) { insert_hash(filter_->hash(key)); }
// Single keys: the reference kernels directly (no engine resolution for one key), as for Filter.
void ConcurrentFilter::insert_one_hash(std::uint64_t hash) {
    require_writable(*filter_);
    detail::scalar_concurrent.insert(ref(*filter_), &hash, 1, hashed);
}

bool ConcurrentFilter::contains(std::uint64_t key) const { return contains_hash(filter_->hash(key)); }
bool ConcurrentFilter::contains(std::string_view key) const { return contains_hash(filter_->hash(key)); }
bool ConcurrentFilter::contains_one_hash(std::uint64_t hash) const {
    if (filter_->params().blocks == 0) return false;  // a moved-from filter contains nothing
    std::uint8_t hit = 0;
    detail::scalar_concurrent.contains_bytes(ref(*filter_), &hash, 1, hashed, &hit);
    return hit == 1;
}

namespace {

/// Copies the filter's words into dst (of the same size) with relaxed atomic loads, as probes
/// read them, calling chunk(piece) for each piece copied: a piece is never read again, so
/// what the checksum covers is what was written.
template <class Chunk>
void copy_words(const Filter& f, std::span<std::byte> dst, Chunk&& chunk) {
    constexpr std::size_t piece_bytes = std::size_t(1) << 20;
    const std::span<const std::byte> src = f.bytes();
    if (dst.size() != src.size()) throw Error("internal error: snapshot of the wrong size");
    auto* words = const_cast<std::uint64_t*>(reinterpret_cast<const std::uint64_t*>(src.data()));
    for (std::size_t begin = 0; begin < src.size(); begin += piece_bytes) {
        const std::size_t len = std::min(piece_bytes, src.size() - begin);
        for (std::size_t w = begin / 8; w < (begin + len) / 8; ++w) {
            const std::uint64_t v = std::atomic_ref<std::uint64_t>(words[w]).load(std::memory_order_relaxed);
            std::memcpy(dst.data() + w * 8, &v, 8);  // dst may be any caller memory: unaligned
        }
        chunk(dst.subspan(begin, len));
    }
}

}  // namespace

std::size_t ConcurrentFilter::saved_size() const { return io::header_size + filter_->bytes().size(); }

void ConcurrentFilter::save(std::span<std::byte> out) const {
    if (filter_->params().blocks == 0) detail::throw_moved_from("save");
    if (out.size() != saved_size())
        throw Error("save needs " + std::to_string(saved_size()) + " bytes of output, got " + std::to_string(out.size()));
    io::PayloadDigest digest;
    copy_words(*filter_, out.subspan(io::header_size), [&](std::span<const std::byte> piece) { digest.update(piece); });
    io::FileHeader h = io::FileHeader::blocked(filter_->params(), filter_->hashing(), filter_->key_kinds());
    h.payload_bytes = filter_->bytes().size();
    h.payload_hash = digest.value();
    const io::HeaderBytes b = io::encode(h);
    std::memcpy(out.data(), b.data(), b.size());
}

Filter ConcurrentFilter::snapshot() const {
    if (filter_->params().blocks == 0) return *filter_;  // an empty filter, as its copy is
    Filter copy(filter_->params(), filter_->hashing(), filter_->backend());
    copy.set_threads(filter_->threads());
    copy.add_key_kinds(filter_->key_kinds());
    copy_words(*filter_, copy.mutable_bytes(), [](std::span<const std::byte>) {});
    return copy;
}

void ConcurrentFilter::save(std::ostream& out, const SaveOptions& options) const {
    if (filter_->params().blocks == 0) detail::throw_moved_from("save");
    snapshot().save(out, options);
}

void ConcurrentFilter::save(const std::filesystem::path& path, const SaveOptions& options) const {
    if (filter_->params().blocks == 0) detail::throw_moved_from("save");  // before the path is touched
    snapshot().save(path, options);
}

template class KeyForms<ConcurrentFilter>;
template class HashForms<ConcurrentFilter>;

}  // namespace batchbloom

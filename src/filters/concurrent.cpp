// ConcurrentFilter: keys to hashes as for Filter (key_hashes.hpp), then the engine's concurrent
// kernels on the viewed filter's blocks, on the calling thread (the callers are the threads).
#include "batchbloom/concurrent.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

#include "batch/bulk_call.hpp"
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

// With Hashed, the keys are hashes already. A bulk call takes the viewed filter's engine
// (bulk_call.hpp) and runs on its calling thread: the callers are the threads.
template <>
struct detail::Forms<ConcurrentFilter> {
    template <class Key, bool Hashed = false>
    static void insert_keys(ConcurrentFilter& c, std::span<const Key> keys) {
        const Filter& f = *c.filter_;
        require_writable(f);
        const auto& k = detail::concurrent_kernels(detail::bulk_call(f, keys.size()).backend);
        const auto r = ref(f);
        detail::feed_keys<Hashed>(f.hashing(), keys,
                                  [&](const std::uint64_t* v, std::size_t n, detail::KeyMode m, std::size_t) { k.insert(r, v, n, m); });
    }

    /// Answers into out if it is not null; returns the number of hits.
    template <class Key, bool Hashed = false>
    static std::size_t count_keys(const ConcurrentFilter& c, std::span<const Key> keys, std::uint8_t* out = nullptr) {
        const Filter& f = *c.filter_;
        if (f.params().blocks == 0) {  // a moved-from filter contains nothing
            if (out != nullptr) std::fill_n(out, keys.size(), std::uint8_t{0});
            return 0;
        }
        const auto& k = detail::concurrent_kernels(detail::bulk_call(f, keys.size()).backend);
        const auto r = ref(f);
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
        detail::feed_keys<Hashed>(f.hashing(), keys, probe);
        return hits;
    }

    template <class Key, bool Hashed = false>
    static void contains_keys(const ConcurrentFilter& c, std::span<const Key> keys, std::span<std::uint8_t> out) {
        check_out(keys.size(), out.size());
        count_keys<Key, Hashed>(c, keys, out.data());
    }

    // Single keys: the reference kernels directly (no engine resolution for one key), as for Filter.
    static void insert_one_hash(ConcurrentFilter& c, std::uint64_t hash) {
        require_writable(*c.filter_);
        detail::scalar_concurrent.insert(ref(*c.filter_), &hash, 1, hashed);
    }
    static bool contains_one_hash(const ConcurrentFilter& c, std::uint64_t hash) {
        if (c.filter_->params().blocks == 0) return false;  // a moved-from filter contains nothing
        std::uint8_t hit = 0;
        detail::scalar_concurrent.contains_bytes(ref(*c.filter_), &hash, 1, hashed, &hit);
        return hit == 1;
    }
};

template class KeyForms<ConcurrentFilter>;
template class HashForms<ConcurrentFilter>;

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

}  // namespace batchbloom

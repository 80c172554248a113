#pragma once
// Key batches borrowed from Python objects. Parsing (with the GIL held) yields spans over the
// objects' own memory, which the bulk operations (run with the GIL released) read in place:
//
//   NumPy / buffer  uint64, int64 (same 64 bits), uint32: the C++ bulk calls directly;
//                   int32: sign-extended, so -1 as int32 is the key -1 as int64; the same
//                   types in the other byte order (">u8", ">i8", ">u4", ">i4") are converted
//                   32K keys at a time inside the GIL-free call (memory O(chunk), no copy)
//   Arrow           integers of every width, string/binary (plain, large and view forms) and
//                   dictionaries of those, through the C Data and C Stream interfaces and
//                   pandas' __arrow_array__; nulls raise or are skipped (Nulls)
//   Python          iterables of bytes/str (str as UTF-8) or of ints in [-2^63, 2^64), converted
//                   iterable_chunk keys at a time (for_each_batch)
//
// Integer keys are their value; a negative value is the key with its 64-bit two's-complement
// bit pattern (as the CLI reads "-1"), so np.int64(-1) and np.uint64(2**64 - 1) are one key.
#include <batchbloom/filter.hpp>

#include <nanobind/nanobind.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "arrow_c.hpp"

namespace batchbloom::python {

namespace nb = nanobind;

/// Calls fn(span of T, at) over `keys` converted to T, `stage` keys at a time. Signed 32-bit
/// values become 64-bit keys by sign extension.
template <class T, class Keys, class Fn>
void stage_chunks(const Keys& keys, std::size_t at, std::size_t stage, Fn& fn) {
    std::vector<T> buf(std::min(stage, keys.size()));
    for (std::size_t b = 0; b < keys.size(); b += stage) {
        const std::size_t n = std::min(stage, keys.size() - b);
        for (std::size_t i = 0; i < n; ++i) {
            if constexpr (std::is_same_v<std::decay_t<decltype(keys[0])>, std::int32_t>)
                buf[i] = static_cast<std::uint64_t>(std::int64_t{keys[b + i]});  // sign-extend
            else
                buf[i] = keys[b + i];
        }
        fn(std::span<const T>(buf.data(), n), at + b);
    }
}

/// Calls run(begin, n) for each maximal run of set bits among bits offset .. offset + size of
/// an Arrow validity bitmap.
template <class Run>
void for_each_valid_run(const unsigned char* bitmap, std::size_t offset, std::size_t size, Run&& run) {
    std::size_t i = 0;
    while (i < size) {
        auto valid = [&](std::size_t j) { return (bitmap[(offset + j) >> 3] >> ((offset + j) & 7)) & 1; };
        while (i < size && !valid(i)) ++i;
        const std::size_t begin = i;
        while (i < size && valid(i)) {
            if (((offset + i) & 7) == 0 && i + 8 <= size && bitmap[(offset + i) >> 3] == 0xff) i += 8;
            else ++i;
        }
        if (i > begin) run(begin, i - begin);
    }
}

/// A buffer-protocol view held for as long as a batch reads it (released with the GIL held,
/// when the batch is destroyed).
struct HeldBuffer {
    Py_buffer view{};
    bool held = false;
    HeldBuffer() = default;
    HeldBuffer(const HeldBuffer&) = delete;
    HeldBuffer& operator=(const HeldBuffer&) = delete;
    ~HeldBuffer() {
        if (held) PyBuffer_Release(&view);
    }
};

/// A batch of keys in one or more chunks (Arrow streams have several), plus whatever keeps
/// their memory alive and unchanged while the GIL is released.
class KeyBatch {
public:
    /// Arrays, buffers and Arrow data (read in place): false if `keys` is none of them (but
    /// may be an iterable of keys). Throws TypeError for a single key or an unusable array.
    bool take_array(nb::handle keys, Nulls nulls = Nulls::never);

    std::size_t size() const;
    const std::vector<KeyChunk>& chunks() const { return chunks_; }
    /// Whether some keys are skipped nulls (their answers stay False).
    bool has_nulls() const;

private:
    friend class IterableKeys;
    void add(KeySpan keys) { chunks_.push_back(KeyChunk{keys}); }

    std::vector<KeyChunk> chunks_;
    std::vector<nb::object> owners_;
    ArrowImport arrow_;
    std::unique_ptr<HeldBuffer> buffer_;
    std::vector<std::uint64_t> ints_;          // from an iterable of Python ints
    std::vector<std::string_view> strings_;    // into the bytes/str objects of owners_
    std::vector<unsigned char> valid_;         // an iterable's skipped Nones, as an Arrow validity bitmap
};

/// Keys from a Python iterable that is not an array, converted `chunk` keys at a time with the
/// GIL held: memory stays O(chunk) however long the iterable is. The first key that is not None
/// decides whether the keys are ints or byte strings. A None is a null: with Nulls::skip it
/// keeps its position in the batch (a placeholder key marked invalid, as an Arrow null is).
class IterableKeys {
public:
    /// Throws TypeError if `keys` is not iterable.
    IterableKeys(nb::handle keys, std::size_t chunk, Nulls nulls = Nulls::never);
    /// Replaces `batch` with the next keys; false (and an empty batch) at the end. Throws
    /// TypeError / ValueError naming the bad key by its position in the whole iterable.
    bool next(KeyBatch& batch);

private:
    nb::object next_item();  // a new reference, or an invalid object at the end

    nb::object source_;    // a list or tuple, read by index; or an iterator
    bool indexed_ = false;
    std::size_t pos_ = 0;  // keys read so far
    std::size_t chunk_;
    int kind_ = 0;         // 0 undecided, 1 ints, 2 byte strings
    nb::object first_;     // the key that decided kind_, for messages
    std::size_t first_pos_ = 0;
    Nulls nulls_;
};

/// Keys of an iterable are converted this many at a time; an iterable up to this size is read
/// whole before the call changes anything.
inline constexpr std::size_t iterable_chunk = std::size_t(1) << 18;

/// Calls fn(batch, at) with the GIL held for the keys of `keys`: arrays, buffers and Arrow
/// data in one batch read in place, other iterables in batches of iterable_chunk keys (at:
/// the position of the batch's first key). A bad key in a later batch raises after the
/// batches before it were handed to fn; its message gives its position.
template <class Fn>
void for_each_batch(nb::handle keys, Fn&& fn, Nulls nulls = Nulls::never) {
    KeyBatch batch;
    if (batch.take_array(keys, nulls)) {
        fn(static_cast<const KeyBatch&>(batch), std::size_t{0});
        return;
    }
    IterableKeys source(keys, iterable_chunk, nulls);
    std::size_t at = 0;
    while (source.next(batch)) {
        fn(static_cast<const KeyBatch&>(batch), at);
        at += batch.size();
    }
}

/// One Python key (int, bytes or str), valid while the Python object lives.
using Key = std::variant<std::uint64_t, std::string_view>;
Key key_from_python(nb::handle key);

/// Calls fn(keys, at) with spans of uint64, uint32 or string_view keys — the types every
/// filter's bulk calls take — covering the batch's non-null keys in order; `at` is the position
/// of keys[0] in the batch (skipped nulls are left out: the spans then cover the runs of keys
/// between them). int32 keys are sign-extended, byte-swapped integers put in this machine's
/// order and the other layouts listed as uint64s or string_views in chunks small enough to stay
/// in L2 and big enough for the engines' threads.
template <class Fn>
void for_each_span(const KeyBatch& keys, Fn&& fn) {
    constexpr std::size_t stage = std::size_t(1) << 15;
    std::size_t at = 0;
    for (const auto& chunk : keys.chunks()) {
        std::visit(
            [&](const auto& all) {
                using K = std::decay_t<decltype(all)>;
                auto run = [&](const K& k, std::size_t pos) {
                    if constexpr (std::is_same_v<K, std::span<const std::uint64_t>> ||
                                  std::is_same_v<K, std::span<const std::uint32_t>> ||
                                  std::is_same_v<K, std::span<const std::string_view>>) {
                        fn(k, pos);
                    } else if constexpr (std::is_same_v<K, Swapped<std::uint32_t>>) {
                        stage_chunks<std::uint32_t>(k, pos, stage, fn);
                    } else if constexpr (std::is_same_v<std::decay_t<decltype(k[0])>, std::string_view>) {
                        stage_chunks<std::string_view>(k, pos, stage, fn);
                    } else {
                        stage_chunks<std::uint64_t>(k, pos, stage, fn);
                    }
                };
                if (chunk.valid == nullptr) {
                    run(all, at);
                } else {
                    for_each_valid_run(chunk.valid, chunk.valid_offset, all.size(), [&](std::size_t b, std::size_t n) {
                        run(slice(all, b, n), at + b);
                    });
                }
                at += all.size();
            },
            chunk.keys);
    }
}

template <class F>
void insert(F& f, const KeyBatch& keys) {
    for_each_span(keys, [&](const auto& k, std::size_t) { f.insert(k); });
}

/// out must hold keys.size() bytes; those of skipped nulls are set to 0.
template <class F>
void contains(const F& f, const KeyBatch& keys, std::uint8_t* out) {
    if (keys.has_nulls()) std::memset(out, 0, keys.size());
    for_each_span(keys, [&](const auto& k, std::size_t at) { f.contains(k, std::span(out + at, k.size())); });
}

template <class F>
std::size_t count(const F& f, const KeyBatch& keys) {
    std::size_t c = 0;
    for_each_span(keys, [&](const auto& k, std::size_t) { c += f.count(k); });
    return c;
}

}  // namespace batchbloom::python

#pragma once
// Key batches borrowed from Python objects. Parsing (with the GIL held) yields spans over the
// objects' own memory, which the bulk operations (run with the GIL released) read in place:
//
//   NumPy / buffer  uint64, int64 (same 64 bits), uint32: the C++ bulk calls directly;
//                   int32: sign-extended, so -1 as int32 is the key -1 as int64
//   Arrow           int64/uint64/uint32/int32 values, and string/binary/large_* offsets + data
//   Python          sequences of bytes/str (str as UTF-8) or of ints in [-2^63, 2^64)
//
// Integer keys are their value; a negative value is the key with its 64-bit two's-complement
// bit pattern (as the CLI reads "-1"), so np.int64(-1) and np.uint64(2**64 - 1) are one key.
#include <batchbloom/filter.hpp>

#include <nanobind/nanobind.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "arrow_c.hpp"

namespace batchbloom::python {

namespace nb = nanobind;

/// Byte strings as Arrow stores them: string i is data[offsets[i], offsets[i + 1]).
template <class Offset>
struct PackedStrings {
    const Offset* offsets;
    const unsigned char* data;
    std::size_t n;
    std::size_t size() const { return n; }
    std::string_view operator[](std::size_t i) const {
        return {reinterpret_cast<const char*>(data) + offsets[i], std::size_t(offsets[i + 1] - offsets[i])};
    }
};

/// Calls fn(span of T, at) over `keys` converted to T, `stage` keys at a time.
template <class T, class Keys, class Fn>
void stage_chunks(const Keys& keys, std::size_t at, std::size_t stage, Fn& fn) {
    std::vector<T> buf(std::min(stage, keys.size()));
    for (std::size_t b = 0; b < keys.size(); b += stage) {
        const std::size_t n = std::min(stage, keys.size() - b);
        for (std::size_t i = 0; i < n; ++i) {
            if constexpr (std::is_same_v<T, std::uint64_t>)
                buf[i] = static_cast<std::uint64_t>(std::int64_t{keys[b + i]});  // sign-extend
            else
                buf[i] = keys[b + i];
        }
        fn(std::span<const T>(buf.data(), n), at + b);
    }
}

using KeySpan = std::variant<std::span<const std::uint64_t>, std::span<const std::uint32_t>,
                             std::span<const std::int32_t>, std::span<const std::string_view>,
                             PackedStrings<std::int32_t>, PackedStrings<std::int64_t>>;

/// A batch of keys in one or more chunks (Arrow streams have several), plus whatever keeps
/// their memory alive and unchanged while the GIL is released.
class KeyBatch {
public:
    /// Throws TypeError (unsupported type, non-contiguous array, single key) or ValueError.
    static KeyBatch from_python(nb::handle keys);

    std::size_t size() const;
    const std::vector<KeySpan>& chunks() const { return chunks_; }

private:
    std::vector<KeySpan> chunks_;
    std::vector<nb::object> owners_;
    ArrowImport arrow_;
    std::vector<std::uint64_t> ints_;          // from a sequence of Python ints
    std::vector<std::string_view> strings_;    // into the bytes/str objects of owners_
};

/// One Python key (int, bytes or str), valid while the Python object lives.
using Key = std::variant<std::uint64_t, std::string_view>;
Key key_from_python(nb::handle key);

/// Calls fn(keys, at) with spans of uint64, uint32 or string_view keys — the types every
/// filter's bulk calls take — covering the batch in order; `at` is the position of keys[0] in
/// the batch. int32 keys are sign-extended and Arrow strings listed as string_views in chunks
/// small enough to stay in L2 and big enough for the engines' threads.
template <class Fn>
void for_each_span(const KeyBatch& keys, Fn&& fn) {
    constexpr std::size_t stage = std::size_t(1) << 15;
    std::size_t at = 0;
    for (const auto& chunk : keys.chunks()) {
        std::visit(
            [&](const auto& k) {
                using K = std::decay_t<decltype(k)>;
                if constexpr (std::is_same_v<K, std::span<const std::int32_t>>) {
                    stage_chunks<std::uint64_t>(k, at, stage, fn);
                } else if constexpr (std::is_same_v<K, PackedStrings<std::int32_t>> ||
                                     std::is_same_v<K, PackedStrings<std::int64_t>>) {
                    stage_chunks<std::string_view>(k, at, stage, fn);
                } else {
                    fn(k, at);
                }
                at += k.size();
            },
            chunk);
    }
}

template <class F>
void insert(F& f, const KeyBatch& keys) {
    for_each_span(keys, [&](const auto& k, std::size_t) { f.insert(k); });
}

/// out must hold keys.size() bytes.
template <class F>
void contains(const F& f, const KeyBatch& keys, std::uint8_t* out) {
    for_each_span(keys, [&](const auto& k, std::size_t at) { f.contains(k, std::span(out + at, k.size())); });
}

template <class F>
std::size_t count(const F& f, const KeyBatch& keys) {
    std::size_t c = 0;
    std::vector<std::uint8_t> hits;
    for_each_span(keys, [&](const auto& k, std::size_t) {
        if constexpr (requires { f.count(k); }) {
            c += f.count(k);
        } else {  // filter types without a count for this key type
            hits.resize(k.size());
            f.contains(k, std::span(hits));
            c += std::size_t(std::count(hits.begin(), hits.end(), std::uint8_t{1}));
        }
    });
    return c;
}

}  // namespace batchbloom::python

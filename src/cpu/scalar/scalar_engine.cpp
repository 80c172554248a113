// The reference engine: one key at a time, straight from layout.hpp. It is deliberately
// plain — every other engine is tested bit for bit against it. Its kernels for the other
// filter types are in the files beside this one.
#include "batchbloom/hash.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail {
namespace {

std::uint64_t to_hash(std::uint64_t key, KeyMode mode) {
    return mode.kind == KeyMode::mix64 ? mix64(key, mode.seed) : key;
}

template <Shape S>
auto* block_of(const FilterRef& f, std::uint64_t h) {
    using T = layout::shape_traits<S>;
    auto* words = reinterpret_cast<typename T::word_type*>(f.data);
    return words + layout::block_index(h, f.blocks) * T::words;
}

template <Shape S>
bool probe_one(const FilterRef& f, std::uint64_t h) {
    return layout::test_pattern<S>(block_of<S>(f, h), layout::make_pattern<S>(static_cast<std::uint32_t>(h), f.k));
}

void insert(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
    layout::visit_shape(f.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t h = to_hash(keys[i], mode);
            layout::set_pattern<S>(block_of<S>(f, h), layout::make_pattern<S>(static_cast<std::uint32_t>(h), f.k));
        }
    });
}

void contains_bytes(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint8_t* out) {
    layout::visit_shape(f.shape, [&](auto tag) {
        for (std::size_t i = 0; i < n; ++i) out[i] = probe_one<decltype(tag)::value>(f, to_hash(keys[i], mode));
    });
}

void contains_bits(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint64_t* out) {
    layout::visit_shape(f.shape, [&](auto tag) {
        for (std::size_t w = 0; w * 64 < n; ++w) {
            std::uint64_t bits = 0;
            for (std::size_t b = 0; b < 64 && w * 64 + b < n; ++b)
                bits |= std::uint64_t(probe_one<decltype(tag)::value>(f, to_hash(keys[w * 64 + b], mode))) << b;
            out[w] = bits;
        }
    });
}

std::size_t count(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
    return layout::visit_shape(f.shape, [&](auto tag) {
        std::size_t c = 0;
        for (std::size_t i = 0; i < n; ++i) c += probe_one<decltype(tag)::value>(f, to_hash(keys[i], mode));
        return c;
    });
}

void hash(const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint64_t* out) {
    for (std::size_t i = 0; i < n; ++i) out[i] = to_hash(keys[i], mode);
}

bool always() { return true; }

}  // namespace

constinit const BlockedKernels scalar_blocked{Backend::scalar, insert, contains_bytes, contains_bits, count, hash};

// Every kernel of every filter type: the oracle, and the end of every fallback chain.
constinit const Engine scalar_engine{Backend::scalar,   "scalar",         always,           true,
                                     &scalar_blocked,   &scalar_concurrent, &scalar_counting, &scalar_deletable,
                                     &scalar_classic};

}  // namespace batchbloom::detail

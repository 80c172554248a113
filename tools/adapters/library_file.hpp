#pragma once
// What the adapters share: a FilterFile over one library filter class, probing and inserting
// through the class's overloads for integer and string_view spans.
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/filter_adapter.hpp"

namespace batchbloom::cli {

template <class F>
class LibraryFile : public FilterFile {
public:
    explicit LibraryFile(F f) : f_(std::move(f)) {}

    KeyKinds key_kinds() const override { return f_.key_kinds(); }
    void add_key_kinds(const KeyKinds& kinds) override { f_.add_key_kinds(kinds); }

    /// Probes the integer and then the string keys, each answer ORed into out at its key's
    /// position (under KeyType::both a decimal line is probed as either).
    void contains(const TypedKeys& keys, std::span<std::uint8_t> out) const override {
        std::vector<std::uint8_t> hits(keys.ints.size());
        f_.contains(std::span<const std::uint64_t>(keys.ints), std::span<std::uint8_t>(hits));
        for (std::size_t j = 0; j < hits.size(); ++j) out[keys.int_at[j]] |= hits[j];
        hits.assign(keys.strings.size(), 0);
        f_.contains(std::span<const std::string_view>(keys.strings), std::span<std::uint8_t>(hits));
        for (std::size_t j = 0; j < hits.size(); ++j) out[keys.str_at[j]] |= hits[j];
    }
    void insert(const TypedKeys& keys) override {
        f_.insert(std::span<const std::uint64_t>(keys.ints));
        f_.insert(std::span<const std::string_view>(keys.strings));
    }
    void set_threads(unsigned threads) override {
        if constexpr (requires { f_.set_threads(threads); }) f_.set_threads(threads);
        // otherwise the class's bulk calls run on one thread
    }
    void write(std::ostream& out) const override { f_.save(out); }

protected:
    /// combine for the types with set algebra: `other` must be of this type (else the base
    /// class's combine throws, naming both); the library checks the parameters.
    void combine_filters(SetOp op, const FilterFile& other) {
        const auto* o = dynamic_cast<const LibraryFile*>(&other);
        if (o == nullptr || o->type_name() != type_name()) FilterFile::combine(op, other);
        if (op == SetOp::union_)
            f_ |= o->f_;
        else
            f_ &= o->f_;
    }

    F f_;
};

/// A LibraryFile over a class addressed by one 64-bit hash per key (the blocked layout's
/// types), which build can feed with hashes.
template <class F>
class HashedFile : public LibraryFile<F> {
public:
    using LibraryFile<F>::LibraryFile;

    std::optional<Hashing> key_hashing() const override { return this->f_.hashing(); }
    void insert_hashes(std::span<const std::uint64_t> hashes) override {
        if constexpr (requires { this->f_.insert_hashes(hashes); })
            this->f_.insert_hashes(hashes);
        else
            for (const auto h : hashes) this->f_.insert_hash(h);
    }
};

}  // namespace batchbloom::cli

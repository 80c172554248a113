#pragma once
// The bulk key forms every filter class takes, declared once: spans of 64-bit and of 32-bit
// integers (a 32-bit key is its 64-bit value) and spans of string_view and of std::string (a
// key is its bytes, the same key either way), for insert, contains and count, and for erase
// where keys can be erased. Every form sets the same bits and gets the same answers.
//
// A filter class derives from KeyForms<Itself> (and from EraseForms<Itself, Outcome> if it
// erases) and gets these members, the single-key insert and contains among them: a single key
// is the class's single-hash member (HashForms) on the key's hash, its kind recorded where the
// class records kinds. A class that erases declares its single-key erase itself (what it
// returns is the class's) and brings the bulk erase forms in beside it (`using
// EraseForms<Itself, Outcome>::erase;`). The members are ordinary functions, so a
// std::vector or an array converts to the span as it is passed. They are defined in the library,
// for the library's filter classes: each forwards to the class's access struct,
// detail::Forms<Itself>, whose static member templates over the key type (insert_keys,
// contains_keys, count_keys, erase_keys) implement the operation once for every key type. The
// class's one hook for them is a private `friend detail::Forms<Itself>;`: the struct is defined
// in the class's source file, not in a header, and the forms are instantiated there (declared
// `extern template` in the class's header), so a user's code never needs its definition.
//
// HashForms are the same for keys hashed already: each class declares the forms once by
// deriving from HashForms<Itself>, and the bulk forms reach the same member templates with
// Hashed = true (insert_keys<std::uint64_t, true>, ...), so a hash takes the path its key would
// after hashing. The single-hash forms reach Forms' insert_one_hash and contains_one_hash, which
// may skip what a bulk call sets up (engine resolution, threads) for one hash.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace batchbloom {

namespace detail {
/// A filter class's implementation of the forms (above): defined in its source file.
template <class FilterClass>
struct Forms;
}  // namespace detail

template <class Derived>
class KeyForms {
public:
    void insert(std::uint64_t key);
    void insert(std::string_view key);
    /// True if the key may be present.
    bool contains(std::uint64_t key) const;
    bool contains(std::string_view key) const;

    void insert(std::span<const std::uint64_t> keys);
    void insert(std::span<const std::uint32_t> keys);
    void insert(std::span<const std::string_view> keys);
    void insert(std::span<const std::string> keys);
    /// out[i] = 1 if keys[i] may be present, else 0. out.size() must equal keys.size() (throws
    /// Error otherwise).
    void contains(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const;
    void contains(std::span<const std::uint32_t> keys, std::span<std::uint8_t> out) const;
    void contains(std::span<const std::string_view> keys, std::span<std::uint8_t> out) const;
    void contains(std::span<const std::string> keys, std::span<std::uint8_t> out) const;
    /// Number of keys that may be present.
    std::size_t count(std::span<const std::uint64_t> keys) const;
    std::size_t count(std::span<const std::uint32_t> keys) const;
    std::size_t count(std::span<const std::string_view> keys) const;
    std::size_t count(std::span<const std::string> keys) const;
};

/// Hashes computed already, by the class's hash() (hash_value() for SplitBlockFilter). They
/// set the bits and get the answers their keys would; the inserts record no key kinds (a hash
/// does not tell its key's kind: add_key_kinds() records them).
template <class Derived>
class HashForms {
public:
    void insert_hash(std::uint64_t hash);
    bool contains_hash(std::uint64_t hash) const;
    void insert_hashes(std::span<const std::uint64_t> hashes);
    /// out[i] = 1 if hashes[i] may be present, else 0. out.size() must equal hashes.size().
    void contains_hashes(std::span<const std::uint64_t> hashes, std::span<std::uint8_t> out) const;
    /// Number of hashes that may be present.
    std::size_t count_hashes(std::span<const std::uint64_t> hashes) const;
};

/// Erases the keys in order and returns how many were erased. If `outcomes` is not empty it must
/// have keys.size() entries and gets each key's Outcome (what the class's single-key erase
/// returns, as the class documents it).
template <class Derived, class Outcome>
class EraseForms {
public:
    std::size_t erase(std::span<const std::uint64_t> keys, std::span<Outcome> outcomes = {});
    std::size_t erase(std::span<const std::uint32_t> keys, std::span<Outcome> outcomes = {});
    std::size_t erase(std::span<const std::string_view> keys, std::span<Outcome> outcomes = {});
    std::size_t erase(std::span<const std::string> keys, std::span<Outcome> outcomes = {});
};

}  // namespace batchbloom

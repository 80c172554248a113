#pragma once
// The bulk key forms every filter class takes, declared once: spans of 64-bit and of 32-bit
// integers (a 32-bit key is its 64-bit value) and spans of string_view and of std::string (a
// key is its bytes, the same key either way), for insert, contains and count, and for erase
// where keys can be erased. Every form sets the same bits and gets the same answers.
//
// A filter class derives from KeyForms<Itself> (and from EraseForms<Itself, Outcome> if it
// erases) and gets these members; it declares its single-key members itself and brings these
// in beside them (`using KeyForms<Itself>::insert;`). The members are ordinary functions, so a
// std::vector or an array converts to the span as it is passed. They are defined in the library,
// for the library's filter classes: each forwards to the class's own implementation of the
// operation, one member template over the key type (insert_keys, contains_keys, count_keys,
// erase_keys).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace batchbloom {

template <class Derived>
class KeyForms {
public:
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

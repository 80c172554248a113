#pragma once
// Which kinds of keys went into a filter. An integer and a byte string with the same digits
// hash differently ("123" is not 123), so a program that queries a filter built elsewhere
// needs to know which kind to make of its keys; every filter records it as keys are
// inserted, and saves it in its file.
//
// Inserting integers (64- or 32-bit) records `integers`, byte strings record `bytes`; inserting
// pre-computed hashes records nothing (a hash does not say what it was computed from): a
// caller that inserts hashes says what it hashed with add_key_kinds(). Files written before
// the record existed, and Spark's serialized form, load as `not_recorded()`.
#include <string>

namespace batchbloom {

struct KeyKinds {
    bool recorded = true;   ///< false: unknown (an old file, Spark's form, or added as unknown)
    bool integers = false;  ///< integer keys were inserted (only meaningful when recorded)
    bool bytes = false;     ///< byte-string keys were inserted (only meaningful when recorded)

    static constexpr KeyKinds none() noexcept { return {true, false, false}; }
    static constexpr KeyKinds only_integers() noexcept { return {true, true, false}; }
    static constexpr KeyKinds only_bytes() noexcept { return {true, false, true}; }
    static constexpr KeyKinds not_recorded() noexcept { return {false, false, false}; }

    friend bool operator==(const KeyKinds&, const KeyKinds&) = default;
};

/// The kinds of a union of two filters (and of adding keys to a filter): unknown if either is
/// unknown, else the kinds of both.
constexpr KeyKinds operator|(KeyKinds a, KeyKinds b) noexcept {
    if (!a.recorded || !b.recorded) return KeyKinds::not_recorded();
    return {true, a.integers || b.integers, a.bytes || b.bytes};
}

/// The kinds of an intersection: a key in both filters has a kind both recorded; when only
/// one side is recorded, that side's kinds.
constexpr KeyKinds operator&(KeyKinds a, KeyKinds b) noexcept {
    if (!a.recorded) return b;
    if (!b.recorded) return a;
    return {true, a.integers && b.integers, a.bytes && b.bytes};
}

/// "integers", "byte strings", "integers and byte strings", "none" or "not recorded".
std::string to_string(const KeyKinds& kinds);

}  // namespace batchbloom

#pragma once
// The definitions of KeyForms, HashForms and EraseForms (include/batchbloom/key_forms.hpp):
// each member forwards to the filter class's implementation of its operation for that key type
// (or, for HashForms, for hashes). A filter's source file defines those implementations, then
// instantiates the forms for its class (`template class KeyForms<Filter>;`), which it names a
// friend.
#include <batchbloom/key_forms.hpp>

namespace batchbloom {

template <class D>
void KeyForms<D>::insert(std::span<const std::uint64_t> keys) { static_cast<D&>(*this).insert_keys(keys); }
template <class D>
void KeyForms<D>::insert(std::span<const std::uint32_t> keys) { static_cast<D&>(*this).insert_keys(keys); }
template <class D>
void KeyForms<D>::insert(std::span<const std::string_view> keys) { static_cast<D&>(*this).insert_keys(keys); }
template <class D>
void KeyForms<D>::insert(std::span<const std::string> keys) { static_cast<D&>(*this).insert_keys(keys); }

template <class D>
void KeyForms<D>::contains(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    static_cast<const D&>(*this).contains_keys(keys, out);
}
template <class D>
void KeyForms<D>::contains(std::span<const std::uint32_t> keys, std::span<std::uint8_t> out) const {
    static_cast<const D&>(*this).contains_keys(keys, out);
}
template <class D>
void KeyForms<D>::contains(std::span<const std::string_view> keys, std::span<std::uint8_t> out) const {
    static_cast<const D&>(*this).contains_keys(keys, out);
}
template <class D>
void KeyForms<D>::contains(std::span<const std::string> keys, std::span<std::uint8_t> out) const {
    static_cast<const D&>(*this).contains_keys(keys, out);
}

template <class D>
std::size_t KeyForms<D>::count(std::span<const std::uint64_t> keys) const { return static_cast<const D&>(*this).count_keys(keys); }
template <class D>
std::size_t KeyForms<D>::count(std::span<const std::uint32_t> keys) const { return static_cast<const D&>(*this).count_keys(keys); }
template <class D>
std::size_t KeyForms<D>::count(std::span<const std::string_view> keys) const { return static_cast<const D&>(*this).count_keys(keys); }
template <class D>
std::size_t KeyForms<D>::count(std::span<const std::string> keys) const { return static_cast<const D&>(*this).count_keys(keys); }

template <class D>
void HashForms<D>::insert_hash(std::uint64_t hash) { static_cast<D&>(*this).insert_one_hash(hash); }
template <class D>
bool HashForms<D>::contains_hash(std::uint64_t hash) const { return static_cast<const D&>(*this).contains_one_hash(hash); }
template <class D>
void HashForms<D>::insert_hashes(std::span<const std::uint64_t> hashes) {
    static_cast<D&>(*this).template insert_keys<std::uint64_t, true>(hashes);
}
template <class D>
void HashForms<D>::contains_hashes(std::span<const std::uint64_t> hashes, std::span<std::uint8_t> out) const {
    static_cast<const D&>(*this).template contains_keys<std::uint64_t, true>(hashes, out);
}
template <class D>
std::size_t HashForms<D>::count_hashes(std::span<const std::uint64_t> hashes) const {
    return static_cast<const D&>(*this).template count_keys<std::uint64_t, true>(hashes);
}

template <class D, class Outcome>
std::size_t EraseForms<D, Outcome>::erase(std::span<const std::uint64_t> keys, std::span<Outcome> outcomes) {
    return static_cast<D&>(*this).erase_keys(keys, outcomes);
}
template <class D, class Outcome>
std::size_t EraseForms<D, Outcome>::erase(std::span<const std::uint32_t> keys, std::span<Outcome> outcomes) {
    return static_cast<D&>(*this).erase_keys(keys, outcomes);
}
template <class D, class Outcome>
std::size_t EraseForms<D, Outcome>::erase(std::span<const std::string_view> keys, std::span<Outcome> outcomes) {
    return static_cast<D&>(*this).erase_keys(keys, outcomes);
}
template <class D, class Outcome>
std::size_t EraseForms<D, Outcome>::erase(std::span<const std::string> keys, std::span<Outcome> outcomes) {
    return static_cast<D&>(*this).erase_keys(keys, outcomes);
}

}  // namespace batchbloom

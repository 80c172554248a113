#pragma once
// The definitions of KeyForms, HashForms and EraseForms (include/batchbloom/key_forms.hpp):
// each member calls the filter class's access struct, detail::Forms<D>, for its operation and
// key type (or, for HashForms, for hashes). A filter's source file defines Forms<D> (the class
// names it its friend), then instantiates the forms for its class (`template class
// KeyForms<Filter>;`).
#include <batchbloom/key_forms.hpp>
#include <batchbloom/key_kinds.hpp>

namespace batchbloom {

namespace detail {
// A class without add_key_kinds records nothing: ConcurrentFilter, whose inserts come from many
// threads at once, and its filter's record is a plain value they would race on.
template <class D>
void record_kinds(D& f, const KeyKinds& kinds) noexcept {
    if constexpr (requires { f.add_key_kinds(kinds); }) f.add_key_kinds(kinds);
}
}  // namespace detail

template <class D>
void KeyForms<D>::insert(std::uint64_t key) {
    auto& f = static_cast<D&>(*this);
    f.insert_hash(f.hash(key));  // first: it throws for a moved-from or mapped filter
    detail::record_kinds(f, KeyKinds::only_integers());
}
template <class D>
void KeyForms<D>::insert(std::string_view key) {
    auto& f = static_cast<D&>(*this);
    f.insert_hash(f.hash(key));  // first: it throws for a moved-from or mapped filter
    detail::record_kinds(f, KeyKinds::only_bytes());
}
template <class D>
bool KeyForms<D>::contains(std::uint64_t key) const {
    const auto& f = static_cast<const D&>(*this);
    return f.contains_hash(f.hash(key));
}
template <class D>
bool KeyForms<D>::contains(std::string_view key) const {
    const auto& f = static_cast<const D&>(*this);
    return f.contains_hash(f.hash(key));
}

template <class D>
void KeyForms<D>::insert(std::span<const std::uint64_t> keys) { detail::Forms<D>::insert_keys(static_cast<D&>(*this), keys); }
template <class D>
void KeyForms<D>::insert(std::span<const std::uint32_t> keys) { detail::Forms<D>::insert_keys(static_cast<D&>(*this), keys); }
template <class D>
void KeyForms<D>::insert(std::span<const std::string_view> keys) { detail::Forms<D>::insert_keys(static_cast<D&>(*this), keys); }
template <class D>
void KeyForms<D>::insert(std::span<const std::string> keys) { detail::Forms<D>::insert_keys(static_cast<D&>(*this), keys); }

template <class D>
void KeyForms<D>::contains(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    detail::Forms<D>::contains_keys(static_cast<const D&>(*this), keys, out);
}
template <class D>
void KeyForms<D>::contains(std::span<const std::uint32_t> keys, std::span<std::uint8_t> out) const {
    detail::Forms<D>::contains_keys(static_cast<const D&>(*this), keys, out);
}
template <class D>
void KeyForms<D>::contains(std::span<const std::string_view> keys, std::span<std::uint8_t> out) const {
    detail::Forms<D>::contains_keys(static_cast<const D&>(*this), keys, out);
}
template <class D>
void KeyForms<D>::contains(std::span<const std::string> keys, std::span<std::uint8_t> out) const {
    detail::Forms<D>::contains_keys(static_cast<const D&>(*this), keys, out);
}

template <class D>
std::size_t KeyForms<D>::count(std::span<const std::uint64_t> keys) const {
    return detail::Forms<D>::count_keys(static_cast<const D&>(*this), keys);
}
template <class D>
std::size_t KeyForms<D>::count(std::span<const std::uint32_t> keys) const {
    return detail::Forms<D>::count_keys(static_cast<const D&>(*this), keys);
}
template <class D>
std::size_t KeyForms<D>::count(std::span<const std::string_view> keys) const {
    return detail::Forms<D>::count_keys(static_cast<const D&>(*this), keys);
}
template <class D>
std::size_t KeyForms<D>::count(std::span<const std::string> keys) const {
    return detail::Forms<D>::count_keys(static_cast<const D&>(*this), keys);
}

template <class D>
void HashForms<D>::insert_hash(std::uint64_t hash) { detail::Forms<D>::insert_one_hash(static_cast<D&>(*this), hash); }
template <class D>
bool HashForms<D>::contains_hash(std::uint64_t hash) const {
    return detail::Forms<D>::contains_one_hash(static_cast<const D&>(*this), hash);
}
template <class D>
void HashForms<D>::insert_hashes(std::span<const std::uint64_t> hashes) {
    detail::Forms<D>::template insert_keys<std::uint64_t, true>(static_cast<D&>(*this), hashes);
}
template <class D>
void HashForms<D>::contains_hashes(std::span<const std::uint64_t> hashes, std::span<std::uint8_t> out) const {
    detail::Forms<D>::template contains_keys<std::uint64_t, true>(static_cast<const D&>(*this), hashes, out);
}
template <class D>
std::size_t HashForms<D>::count_hashes(std::span<const std::uint64_t> hashes) const {
    return detail::Forms<D>::template count_keys<std::uint64_t, true>(static_cast<const D&>(*this), hashes);
}

template <class D, class Outcome>
std::size_t EraseForms<D, Outcome>::erase(std::span<const std::uint64_t> keys, std::span<Outcome> outcomes) {
    return detail::Forms<D>::erase_keys(static_cast<D&>(*this), keys, outcomes);
}
template <class D, class Outcome>
std::size_t EraseForms<D, Outcome>::erase(std::span<const std::uint32_t> keys, std::span<Outcome> outcomes) {
    return detail::Forms<D>::erase_keys(static_cast<D&>(*this), keys, outcomes);
}
template <class D, class Outcome>
std::size_t EraseForms<D, Outcome>::erase(std::span<const std::string_view> keys, std::span<Outcome> outcomes) {
    return detail::Forms<D>::erase_keys(static_cast<D&>(*this), keys, outcomes);
}
template <class D, class Outcome>
std::size_t EraseForms<D, Outcome>::erase(std::span<const std::string> keys, std::span<Outcome> outcomes) {
    return detail::Forms<D>::erase_keys(static_cast<D&>(*this), keys, outcomes);
}

}  // namespace batchbloom

#pragma once
// An enum's names, written once per enum as a table of (value, name) pairs: to_string looks a
// value up in it, parse looks a name up and, for a name it does not hold, throws the one error
// every parse gives ("unknown <what> '<name>' (expected a, b or c)", the names in table order).
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "batchbloom/error.hpp"

namespace batchbloom::detail {

template <class E>
using EnumName = std::pair<E, std::string_view>;

/// The value's name in `names`; "unknown" for a value the table does not hold.
template <class E, std::size_t N>
constexpr std::string_view name_of(const EnumName<E> (&names)[N], E value) noexcept {
    for (const auto& entry : names)
        if (entry.first == value) return entry.second;
    return "unknown";
}

/// The value named `name` in `names`; throws Error naming `what` and the names otherwise.
template <class E, std::size_t N>
E value_named(const EnumName<E> (&names)[N], std::string_view name, std::string_view what) {
    for (const auto& entry : names)
        if (entry.second == name) return entry.first;
    std::string expected;
    for (std::size_t i = 0; i < N; ++i) {
        if (i > 0) expected += i + 1 == N ? " or " : ", ";
        expected += names[i].second;
    }
    throw Error("unknown " + std::string(what) + " '" + std::string(name) + "' (expected " + expected + ")");
}

}  // namespace batchbloom::detail

#pragma once
// Checked conversion of Python arguments. Bindings take numeric and option arguments as
// nb::handle and convert them here, so a wrong argument raises TypeError (wrong type) or
// batchbloom.Error, a ValueError (out of range), naming the argument and what it accepts,
// instead of nanobind's "incompatible function arguments" listing.
#include <batchbloom/params.hpp>

#include "arrow_c.hpp"
#include <nanobind/nanobind.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace batchbloom::python {

namespace nb = nanobind;

/// An argument taken as a handle (checked by the functions below, so a wrong one raises a
/// message naming it) that signatures and stubs show as a T.
template <class T>
using Typed = nb::typed<nb::handle, T>;

/// An int (or an object with __index__, e.g. a NumPy integer; not a bool) in [lo, hi].
std::uint64_t int_arg(nb::handle value, const char* name, std::uint64_t lo = 0,
                      std::uint64_t hi = std::numeric_limits<std::uint64_t>::max());
/// int_arg, or nullopt for None.
std::optional<std::uint64_t> optional_int_arg(nb::handle value, const char* name, std::uint64_t lo = 0,
                                              std::uint64_t hi = std::numeric_limits<std::uint64_t>::max());
/// Thread counts: an int in [0, 2**32).
unsigned threads_arg(nb::handle value);

/// A real number (int or float, not a bool); the range is the library's to check, so its
/// message says what the value means.
double real_arg(nb::handle value, const char* name);
std::optional<double> optional_real_arg(nb::handle value, const char* name);

/// A str; `accepted` lists the values for the TypeError message (the library checks them).
std::string_view str_arg(nb::handle value, const char* name, const char* accepted);

inline constexpr const char* shape_names = "'word512', 'split256' or 'line512'";
inline constexpr const char* hash_names = "'xxh3' or 'murmur3'";
inline constexpr const char* backend_names = "'auto' or one of available_backends()";

/// A nulls= argument: 'error' (a null key raises ValueError) or 'skip' (nulls are never
/// inserted and never match).
Nulls nulls_arg(nb::handle value);

/// A shape= argument: a str naming a Shape.
inline Shape shape_arg(nb::handle value) { return parse_shape(str_arg(value, "shape", shape_names)); }

}  // namespace batchbloom::python

#include "args.hpp"

#include <batchbloom/bulk_settings.hpp>
#include <batchbloom/error.hpp>

#include <nanobind/stl/string.h>

#include <string>

namespace batchbloom::python {

namespace {

std::string type_of(nb::handle obj) { return nb::cast<std::string>(nb::str(obj.type().attr("__name__"))); }

std::string repr_of(nb::handle obj) { return nb::cast<std::string>(nb::repr(obj)); }

std::string bound(std::uint64_t v) {
    if (v == std::numeric_limits<std::uint64_t>::max()) return "2**64";
    if (v == std::numeric_limits<std::uint32_t>::max()) return "2**32";
    return std::to_string(v);
}

std::string range(std::uint64_t lo, std::uint64_t hi) {
    const bool open = hi == std::numeric_limits<std::uint64_t>::max() || hi == std::numeric_limits<std::uint32_t>::max();
    return "[" + std::to_string(lo) + ", " + bound(hi) + (open ? ")" : "]");
}

[[noreturn]] void type_error(const char* name, const std::string& expected, nb::handle value) {
    throw nb::type_error((std::string(name) + " must be " + expected + ", not " + type_of(value) + " (" +
                          repr_of(value) + ")")
                             .c_str());
}

}  // namespace

std::uint64_t int_arg(nb::handle value, const char* name, std::uint64_t lo, std::uint64_t hi) {
    if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) type_error(name, "an int in " + range(lo, hi), value);
    nb::object index = nb::steal(PyNumber_Index(value.ptr()));
    if (!index.is_valid()) throw nb::python_error();
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    std::uint64_t u = 0;
    bool in_range = false;
    if (overflow == 0) {
        in_range = v >= 0 && std::uint64_t(v) >= lo && std::uint64_t(v) <= hi;
        u = std::uint64_t(v);
    } else if (overflow > 0) {
        const unsigned long long big = PyLong_AsUnsignedLongLong(index.ptr());
        if (big == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
            PyErr_Clear();  // beyond 2**64: out of range below
        } else {
            u = big;
            in_range = u >= lo && u <= hi;
        }
    }
    if (!in_range)
        throw Error(std::string(name) + " must be an int in " + range(lo, hi) + ", got " + repr_of(index));
    return u;
}

std::optional<std::uint64_t> optional_int_arg(nb::handle value, const char* name, std::uint64_t lo, std::uint64_t hi) {
    if (value.is_none()) return std::nullopt;
    return int_arg(value, name, lo, hi);
}

unsigned threads_arg(nb::handle value) {
    return static_cast<unsigned>(int_arg(value, "threads", 0, batchbloom::max_threads));
}

double real_arg(nb::handle value, const char* name) {
    if (PyBool_Check(value.ptr()) || !(PyFloat_Check(value.ptr()) || PyIndex_Check(value.ptr()) ||
                                       PyObject_HasAttrString(value.ptr(), "__float__")))
        type_error(name, "a real number", value);
    const double v = PyFloat_AsDouble(value.ptr());
    if (v == -1.0 && PyErr_Occurred()) throw nb::python_error();
    return v;
}

std::optional<double> optional_real_arg(nb::handle value, const char* name) {
    if (value.is_none()) return std::nullopt;
    return real_arg(value, name);
}

std::string_view str_arg(nb::handle value, const char* name, const char* accepted) {
    if (!PyUnicode_Check(value.ptr())) type_error(name, std::string("a str: ") + accepted, value);
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (utf8 == nullptr) throw nb::python_error();
    return {utf8, std::size_t(size)};
}

Nulls nulls_arg(nb::handle value) {
    const std::string_view s = str_arg(value, "nulls", "'error' or 'skip'");
    if (s == "error") return Nulls::error;
    if (s == "skip") return Nulls::skip;
    throw nb::value_error(("nulls must be 'error' or 'skip', not '" + std::string(s) + "'").c_str());
}

}  // namespace batchbloom::python

#include "keys.hpp"

#include <nanobind/ndarray.h>

#include <algorithm>
#include <string>

namespace batchbloom::python {

namespace {

using Array = nb::ndarray<nb::ro>;

// str(obj) as a C++ string, for error messages.
std::string text(nb::handle obj) {
    nb::object s = nb::steal(PyObject_Str(obj.ptr()));
    if (!s.is_valid()) throw nb::python_error();
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(s.ptr(), &size);
    if (utf8 == nullptr) throw nb::python_error();
    return {utf8, std::size_t(size)};
}

std::string key_type_name(nb::handle obj) { return text(obj.type().attr("__name__")); }

bool is_single_key(nb::handle obj) {
    return PyLong_Check(obj.ptr()) || PyBytes_Check(obj.ptr()) || PyUnicode_Check(obj.ptr()) ||
           PyByteArray_Check(obj.ptr());
}

std::string dkey_type_name(nb::handle obj, const Array& a) {
    if (nb::hasattr(obj, "dtype")) return text(obj.attr("dtype"));
    return "of " + std::to_string(a.itemsize() * 8) + "-bit items (DLPack type code " +
           std::to_string(int(a.dtype().code)) + ")";
}

template <class T>
std::span<const T> typed_span(const Array& a) {
    const auto* p = static_cast<const T*>(a.data());
    if (reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0)
        throw nb::type_error("keys array is not aligned to its item size; pass a copy (numpy.array(keys))");
    return {p, a.shape(0)};
}

// Two's complement, as the CLI reads negative decimal keys.
std::uint64_t int_key(nb::handle obj) {
    nb::object index = nb::steal(PyNumber_Index(obj.ptr()));
    if (!index.is_valid()) throw nb::python_error();
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow == 0) {
        if (v == -1 && PyErr_Occurred()) throw nb::python_error();
        return static_cast<std::uint64_t>(v);
    }
    if (overflow > 0) {
        const unsigned long long u = PyLong_AsUnsignedLongLong(index.ptr());
        if (u != static_cast<unsigned long long>(-1) || !PyErr_Occurred()) return u;
        PyErr_Clear();
    }
    throw nb::value_error(("integer key " + text(index) +
                           " is outside [-2**63, 2**64): keys are 64-bit")
                              .c_str());
}

// Byte strings of a bytes (or bytes subclass) or str (UTF-8) object, valid while it lives.
bool string_key(nb::handle obj, std::string_view& out) {
    if (PyBytes_Check(obj.ptr())) {
        out = {PyBytes_AS_STRING(obj.ptr()), std::size_t(PyBytes_GET_SIZE(obj.ptr()))};
        return true;
    }
    if (PyUnicode_Check(obj.ptr())) {
        Py_ssize_t size = 0;
        const char* utf8 = PyUnicode_AsUTF8AndSize(obj.ptr(), &size);
        if (utf8 == nullptr) throw nb::python_error();
        out = {utf8, std::size_t(size)};
        return true;
    }
    return false;
}

bool int_like(nb::handle obj) { return PyLong_Check(obj.ptr()) || PyIndex_Check(obj.ptr()); }

}  // namespace

KeyBatch KeyBatch::from_python(nb::handle keys) {
    if (is_single_key(keys))
        throw nb::type_error(("keys must be a batch (array or sequence), not a single " + key_type_name(keys) +
                              "; use `key in f` or f.add(key) for one key")
                                 .c_str());
    KeyBatch b;
    if (is_arrow(keys)) {
        b.arrow_ = import_arrow(keys);
        for (const ArrowChunk& c : b.arrow_.chunks) {
            const auto n = std::size_t(c.length);
            switch (c.type) {
                case 'l': case 'L': b.chunks_.emplace_back(std::span(static_cast<const std::uint64_t*>(c.values), n)); break;
                case 'I': b.chunks_.emplace_back(std::span(static_cast<const std::uint32_t*>(c.values), n)); break;
                case 'i': b.chunks_.emplace_back(std::span(static_cast<const std::int32_t*>(c.values), n)); break;
                case 'u': case 'z':
                    b.chunks_.emplace_back(PackedStrings<std::int32_t>{static_cast<const std::int32_t*>(c.values), c.data, n});
                    break;
                default:
                    b.chunks_.emplace_back(PackedStrings<std::int64_t>{static_cast<const std::int64_t*>(c.values), c.data, n});
                    break;
            }
        }
        return b;
    }

    nb::object source = nb::borrow(keys);
    Array a;
    bool is_array = nb::try_cast(source, a, /*convert=*/false);
    if (!is_array && nb::hasattr(source, "__array__")) {
        // pandas Series and other array-likes without the buffer protocol: numpy.asarray is a
        // view for numeric data; object arrays (strings) fail the cast and are read as a sequence.
        nb::object converted = nb::module_::import_("numpy").attr("asarray")(source);
        if (nb::try_cast(converted, a, false)) {
            source = std::move(converted);
            is_array = true;
        }
    }
    if (is_array) {
        if (a.device_type() != nb::device::cpu::value) throw nb::type_error("keys must be in host (CPU) memory");
        if (a.ndim() != 1)
            throw nb::type_error(("keys must be a 1-D array, not " + std::to_string(a.ndim()) + "-D").c_str());
        if (a.shape(0) > 1 && a.stride(0) != 1)
            throw nb::type_error(
                "keys array is not contiguous; batchbloom reads arrays in place: pass "
                "numpy.ascontiguousarray(keys) (a copy)");
        const auto dt = a.dtype();
        if (dt == nb::dtype<std::uint64_t>() || dt == nb::dtype<std::int64_t>())
            b.chunks_.emplace_back(typed_span<std::uint64_t>(a));
        else if (dt == nb::dtype<std::uint32_t>())
            b.chunks_.emplace_back(typed_span<std::uint32_t>(a));
        else if (dt == nb::dtype<std::int32_t>())
            b.chunks_.emplace_back(typed_span<std::int32_t>(a));
        else
            throw nb::type_error(("keys array has dtype " + dkey_type_name(source, a) +
                                  "; batchbloom takes uint64, int64, uint32 or int32 keys (convert with .astype)")
                                     .c_str());
        b.owners_.push_back(std::move(source));
        return b;
    }

    // A Python sequence: a tuple holds references to the items, so another thread cannot free
    // them while the bulk call runs without the GIL.
    nb::object items = nb::steal(PySequence_Tuple(source.ptr()));
    if (!items.is_valid()) {
        PyErr_Clear();
        throw nb::type_error(("keys must be a NumPy integer array, an Arrow array, or a sequence of bytes, str or "
                              "int, not " + key_type_name(keys))
                                 .c_str());
    }
    const auto n = std::size_t(PyTuple_GET_SIZE(items.ptr()));
    const bool strings = n > 0 && !int_like(PyTuple_GET_ITEM(items.ptr(), 0));
    if (strings) b.strings_.resize(n);
    else b.ints_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        nb::handle item = PyTuple_GET_ITEM(items.ptr(), Py_ssize_t(i));
        if (strings ? string_key(item, b.strings_[i]) : int_like(item)) {
            if (!strings) b.ints_[i] = int_key(item);
            continue;
        }
        throw nb::type_error(("key " + std::to_string(i) + " is a " + key_type_name(item) + "; a sequence of keys holds " +
                              (strings ? "only bytes and str" : "only ints") + " (key 0 is a " +
                              key_type_name(PyTuple_GET_ITEM(items.ptr(), 0)) + ")")
                                 .c_str());
    }
    if (strings) b.chunks_.emplace_back(std::span<const std::string_view>(b.strings_));
    else b.chunks_.emplace_back(std::span<const std::uint64_t>(b.ints_));
    b.owners_.push_back(std::move(items));
    return b;
}

std::size_t KeyBatch::size() const {
    std::size_t n = 0;
    for (const auto& c : chunks_) n += std::visit([](const auto& k) { return k.size(); }, c);
    return n;
}

Key key_from_python(nb::handle key) {
    std::string_view s;
    if (string_key(key, s)) return s;
    if (int_like(key)) return int_key(key);
    throw nb::type_error(("a key is an int, bytes or str, not " + key_type_name(key)).c_str());
}

}  // namespace batchbloom::python

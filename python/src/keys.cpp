#include "keys.hpp"

#include <nanobind/ndarray.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <limits>
#include <optional>
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

constexpr const char* accepted_dtypes =
    "batchbloom takes uint64, int64, uint32 or int32 keys, in either byte order (convert with .astype)";

// Integer arrays the buffer protocol describes but DLPack cannot (the other byte order), as
// (signed, item size, swapped); nullopt if the format is not a 4- or 8-byte integer.
struct IntFormat {
    bool is_signed;
    std::size_t size;
    bool swapped;
};
std::optional<IntFormat> int_format(const char* format, Py_ssize_t itemsize) {
    if (format == nullptr || (itemsize != 4 && itemsize != 8)) return std::nullopt;
    constexpr bool little = std::endian::native == std::endian::little;
    bool swapped = false;
    if (*format == '<' || *format == '>' || *format == '!' || *format == '=' || *format == '@') {
        swapped = (*format == '<') ? !little : (*format == '>' || *format == '!') ? little : false;
        ++format;
    }
    if (format[0] == '\0' || format[1] != '\0' || std::strchr("iIlLqQ", format[0]) == nullptr) return std::nullopt;
    return IntFormat{std::islower(static_cast<unsigned char>(format[0])) != 0, std::size_t(itemsize), swapped};
}

[[noreturn]] void not_contiguous() {
    throw nb::type_error(
        "keys array is not contiguous; batchbloom reads arrays in place: pass "
        "numpy.ascontiguousarray(keys) (a copy)");
}

// The pyarrow array behind a pandas Series or array backed by Arrow, or of a nullable integer
// type (Int64, UInt32, ...: NumPy values and a mask, which Arrow takes as values and nulls), or
// an invalid object. NumPy would turn the latter into float64 with NaN for NA.
nb::object pandas_arrow(nb::handle obj) {
    if (!nb::hasattr(obj, "dtype")) return {};
    nb::object dtype = obj.attr("dtype");
    if (!nb::hasattr(dtype, "storage") && !nb::hasattr(dtype, "pyarrow_dtype") && !nb::hasattr(dtype, "numpy_dtype"))
        return {};
    nb::object array = nb::hasattr(obj, "__arrow_array__") ? nb::borrow(obj) : nb::getattr(obj, "array", nb::none());
    if (!nb::hasattr(array, "__arrow_array__")) return {};
    return array.attr("__arrow_array__")();
}

}  // namespace

bool KeyBatch::take_array(nb::handle keys, Nulls nulls) {
    if (is_single_key(keys))
        throw nb::type_error(("keys must be a batch (array or sequence), not a single " + key_type_name(keys) +
                              "; use `key in f` or f.add(key) for one key")
                                 .c_str());
    if (is_arrow(keys)) {
        arrow_ = import_arrow(keys, nulls);
        chunks_ = arrow_.chunks;
        owners_.push_back(nb::borrow(keys));
        return true;
    }
    // pandas' Arrow-backed and nullable integer columns: their pyarrow data (in place for the former).
    if (nb::object arrow_array = pandas_arrow(keys); arrow_array.is_valid()) return take_array(arrow_array, nulls);

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
        } else if (PyObject_CheckBuffer(converted.ptr())) {
            source = std::move(converted);
        }
    }
    if (is_array) {
        if (a.device_type() != nb::device::cpu::value) throw nb::type_error("keys must be in host (CPU) memory");
        if (a.ndim() != 1)
            throw nb::type_error(("keys must be a 1-D array, not " + std::to_string(a.ndim()) + "-D").c_str());
        if (a.shape(0) > 1 && a.stride(0) != 1) not_contiguous();
        const auto dt = a.dtype();
        if (dt == nb::dtype<std::uint64_t>() || dt == nb::dtype<std::int64_t>())
            add(typed_span<std::uint64_t>(a));
        else if (dt == nb::dtype<std::uint32_t>())
            add(typed_span<std::uint32_t>(a));
        else if (dt == nb::dtype<std::int32_t>())
            add(typed_span<std::int32_t>(a));
        else
            throw nb::type_error(("keys array has dtype " + dkey_type_name(source, a) + "; " + accepted_dtypes).c_str());
        owners_.push_back(std::move(source));
        return true;
    }
    // The other byte order, which DLPack (nanobind's ndarray) cannot describe.
    if (!PyObject_CheckBuffer(source.ptr())) return false;
    auto view = std::make_unique<HeldBuffer>();
    if (PyObject_GetBuffer(source.ptr(), &view->view, PyBUF_RECORDS_RO) != 0) {
        PyErr_Clear();
        return false;
    }
    view->held = true;
    const Py_buffer& v = view->view;
    const auto format = int_format(v.format, v.itemsize);
    if (!format) {
        if (nb::hasattr(source, "dtype") && text(source.attr("dtype").attr("kind")) == "O") return false;  // objects
        throw nb::type_error(("keys array has " +
                              (nb::hasattr(source, "dtype") ? "dtype " + text(source.attr("dtype"))
                                                            : "format '" + std::string(v.format ? v.format : "B") + "'") +
                              "; " + accepted_dtypes)
                                 .c_str());
    }
    if (v.ndim != 1)
        throw nb::type_error(("keys must be a 1-D array, not " + std::to_string(v.ndim) + "-D").c_str());
    if (v.shape[0] > 1 && v.strides != nullptr && v.strides[0] != v.itemsize) not_contiguous();
    const auto* data = static_cast<const unsigned char*>(v.buf);
    const auto n = std::size_t(v.shape[0]);
    if (!format->swapped) {
        // Native order that DLPack did not take (e.g. array.array): read in place like an array.
        if (reinterpret_cast<std::uintptr_t>(data) % format->size != 0)
            throw nb::type_error("keys array is not aligned to its item size; pass a copy (numpy.array(keys))");
        if (format->size == 8) add(std::span(reinterpret_cast<const std::uint64_t*>(data), n));
        else if (format->is_signed) add(std::span(reinterpret_cast<const std::int32_t*>(data), n));
        else add(std::span(reinterpret_cast<const std::uint32_t*>(data), n));
    } else if (format->size == 8) {
        add(Swapped<std::uint64_t>{data, n});  // signed: the same 64 bits
    } else if (format->is_signed) {
        add(Swapped<std::int32_t>{data, n});
    } else {
        add(Swapped<std::uint32_t>{data, n});
    }
    buffer_ = std::move(view);
    owners_.push_back(std::move(source));
    return true;
}

IterableKeys::IterableKeys(nb::handle keys, std::size_t chunk, Nulls nulls) : chunk_(chunk), nulls_(nulls) {
    // Lists and tuples are read by index (no copy, no iterator calls); the GIL is held while
    // a batch is read, and a list changed between batches is read like its iterator would.
    indexed_ = PyList_Check(keys.ptr()) || PyTuple_Check(keys.ptr());
    source_ = indexed_ ? nb::borrow(keys) : nb::steal(PyObject_GetIter(keys.ptr()));
    if (!source_.is_valid()) {
        PyErr_Clear();
        throw nb::type_error(("keys must be a NumPy integer array, an Arrow array, or an iterable of bytes, str or "
                              "int, not " + key_type_name(keys))
                                 .c_str());
    }
}

nb::object IterableKeys::next_item() {
    if (indexed_) {
        PyObject* s = source_.ptr();
        const auto size = std::size_t(PyList_Check(s) ? PyList_GET_SIZE(s) : PyTuple_GET_SIZE(s));
        if (pos_ >= size) return {};
        return nb::borrow(PyList_Check(s) ? PyList_GET_ITEM(s, Py_ssize_t(pos_)) : PyTuple_GET_ITEM(s, Py_ssize_t(pos_)));
    }
    nb::object item = nb::steal(PyIter_Next(source_.ptr()));
    if (!item.is_valid() && PyErr_Occurred()) throw nb::python_error();
    return item;
}

bool IterableKeys::next(KeyBatch& batch) {
    batch.chunks_.clear();
    batch.owners_.clear();
    batch.ints_.clear();
    batch.strings_.clear();
    batch.valid_.clear();
    std::vector<std::size_t> nones;  // positions in this batch
    const std::size_t first = pos_;
    while (pos_ - first < chunk_) {
        nb::object item = next_item();
        if (!item.is_valid()) break;
        if (item.is_none()) {
            if (nulls_ != Nulls::skip)
                throw nb::value_error(("key " + std::to_string(pos_) + " is None; a None is no key: " +
                                       (nulls_ == Nulls::error ? "pass nulls=\"skip\" (None never matches) or " : "") +
                                       "leave it out")
                                          .c_str());
            nones.push_back(pos_ - first);
            // Until a key decides the kind, placeholders are ints (moved below if the kind is bytes).
            if (kind_ == 2) batch.strings_.emplace_back();
            else batch.ints_.push_back(0);
            ++pos_;
            continue;
        }
        if (kind_ == 0) {
            kind_ = int_like(item) ? 1 : 2;
            first_ = item;
            first_pos_ = pos_;
            if (kind_ == 2) {
                batch.strings_.assign(batch.ints_.size(), std::string_view());
                batch.ints_.clear();
            }
        }
        std::string_view s;
        if (kind_ == 1 && int_like(item)) {
            batch.ints_.push_back(int_key(item));
        } else if (kind_ == 2 && string_key(item, s)) {
            batch.strings_.push_back(s);
            batch.owners_.push_back(std::move(item));  // keeps the bytes alive without the GIL
        } else if (!int_like(item) && !PyBytes_Check(item.ptr()) && !PyUnicode_Check(item.ptr())) {
            throw nb::type_error(
                ("keys must be int, str or bytes; got " + key_type_name(item) + " at index " + std::to_string(pos_)).c_str());
        } else {
            throw nb::type_error(("key " + std::to_string(pos_) + " is a " + key_type_name(item) +
                                  "; a sequence of keys holds " + (kind_ == 2 ? "only bytes and str" : "only ints") +
                                  " (key " + std::to_string(first_pos_) + " is a " + key_type_name(first_) + ")")
                                     .c_str());
        }
        ++pos_;
    }
    if (kind_ == 2) batch.add(std::span<const std::string_view>(batch.strings_));
    else batch.add(std::span<const std::uint64_t>(batch.ints_));
    if (!nones.empty()) {
        batch.valid_.assign((pos_ - first + 7) / 8, 0xff);
        for (const std::size_t i : nones) batch.valid_[i / 8] &= static_cast<unsigned char>(~(1u << (i % 8)));
        batch.chunks_.back().valid = batch.valid_.data();
    }
    return pos_ > first;
}

std::size_t KeyBatch::size() const {
    std::size_t n = 0;
    for (const auto& c : chunks_) n += std::visit([](const auto& k) { return k.size(); }, c.keys);
    return n;
}

bool KeyBatch::has_nulls() const {
    return std::any_of(chunks_.begin(), chunks_.end(), [](const KeyChunk& c) { return c.valid != nullptr; });
}

Key key_from_python(nb::handle key) {
    std::string_view s;
    if (string_key(key, s)) return s;
    if (int_like(key)) return int_key(key);
    throw nb::type_error(("a key is an int, bytes or str, not " + key_type_name(key)).c_str());
}

}  // namespace batchbloom::python

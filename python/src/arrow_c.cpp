#include "arrow_c.hpp"

#include <cstring>
#include <string>

namespace batchbloom::python {

namespace {

// Releases a C-interface struct the consumer owns (from a stream), then frees it.
template <class T>
std::shared_ptr<T> owned(T* raw) {
    return std::shared_ptr<T>(raw, [](T* p) {
        if (p->release != nullptr) p->release(p);
        delete p;
    });
}

template <class T>
T* capsule_pointer(nb::handle capsule, const char* name) {
    void* p = PyCapsule_GetPointer(capsule.ptr(), name);
    if (p == nullptr) throw nb::python_error();
    return static_cast<T*>(p);
}

bool bit(const unsigned char* bitmap, std::size_t i) { return (bitmap[i >> 3] >> (i & 7)) & 1; }

[[noreturn]] void malformed(const std::string& what) { throw nb::value_error(("malformed Arrow array: " + what).c_str()); }

template <class Offset>
void check_offsets(const Offset* offsets, std::size_t n) {
    if (offsets[0] < 0) malformed("a string array has a negative first offset");
    for (std::size_t i = 0; i < n; ++i)
        if (offsets[i + 1] < offsets[i]) malformed("a string array has decreasing offsets at entry " + std::to_string(i));
}

// The integer formats: width in bytes, 0 if `format` is not one.
unsigned int_width(std::string_view format) {
    if (format.size() != 1) return 0;
    switch (format[0]) {
        case 'c': case 'C': return 1;
        case 's': case 'S': return 2;
        case 'i': case 'I': return 4;
        case 'l': case 'L': return 8;
        default: return 0;
    }
}

class Importer {
public:
    Importer(ArrowImport& out, Nulls nulls) : out_(out), nulls_(nulls) {}

    KeyChunk chunk(const ArrowSchema& schema, const ArrowArray& a, bool nulls_allowed = false) {
        const std::string_view format = schema.format == nullptr ? "" : schema.format;
        // A one-column table (a record batch of a polars DataFrame, a DuckDB relation) is its
        // column; the batch itself has no nulls and no offset, as streams of tables hand over.
        if (format == "+s" && schema.n_children == 1 && a.n_children == 1 && a.offset == 0 && a.null_count == 0 &&
            a.length >= 0 && schema.children != nullptr && schema.children[0] != nullptr && a.children != nullptr &&
            a.children[0] != nullptr && a.children[0]->length >= a.length) {
            KeyChunk c = chunk(*schema.children[0], *a.children[0], nulls_allowed);
            c.keys = std::visit([&](const auto& k) { return KeySpan(slice(k, 0, std::size_t(a.length))); }, c.keys);
            return c;
        }
        const unsigned width = int_width(format);
        const bool strings = format == "u" || format == "z" || format == "U" || format == "Z";
        const bool views = format == "vu" || format == "vz";
        if (format == "+s")
            throw nb::type_error(("Arrow keys are one column; got a table of " + std::to_string(schema.n_children) +
                                  " columns (select the key column first)")
                                     .c_str());
        if (width == 0 && ((!strings && !views) || schema.dictionary != nullptr))
            throw nb::type_error(("Arrow keys must be integers, string, binary, large_string, large_binary, "
                                  "string_view, binary_view, or a dictionary of those, not Arrow format '" +
                                  std::string(format) + "' (cast it first, e.g. pyarrow.compute.cast)")
                                     .c_str());
        if (a.length < 0 || a.offset < 0 || a.n_buffers < 2 || a.buffers == nullptr)
            malformed("negative length or offset, or missing buffers");
        const auto n = std::size_t(a.length);
        const auto offset = std::size_t(a.offset);
        KeyChunk c;
        if (a.null_count != 0 && a.buffers[0] != nullptr) {
            c.valid = static_cast<const unsigned char*>(a.buffers[0]);
            c.valid_offset = offset;
        }
        const auto* values = static_cast<const unsigned char*>(a.buffers[1]);
        if (n > 0 && values == nullptr) malformed("no values buffer");
        if (values != nullptr) values += offset * (width != 0 ? width : views ? 16 : format == "u" || format == "z" ? 4 : 8);
        if (schema.dictionary != nullptr) {
            dictionary(c, schema, a, IntColumn{values, n, width, format[0] >= 'a'});
        } else if (width == 8) {
            aligned(values, 8);
            c.keys = std::span(reinterpret_cast<const std::uint64_t*>(values), n);
        } else if (format == "i") {
            aligned(values, 4);
            c.keys = std::span(reinterpret_cast<const std::int32_t*>(values), n);
        } else if (format == "I") {
            aligned(values, 4);
            c.keys = std::span(reinterpret_cast<const std::uint32_t*>(values), n);
        } else if (width != 0) {
            c.keys = IntColumn{values, n, width, format[0] >= 'a'};
        } else if (views) {
            c.keys = string_views(c, a, values, n);
        } else if (format == "u" || format == "z") {
            c.keys = packed<std::int32_t>(a, values, n);
        } else {
            c.keys = packed<std::int64_t>(a, values, n);
        }
        const std::size_t null_count = count_nulls(c, n);
        if (null_count == 0) {
            c.valid = nullptr;
        } else if (nulls_ != Nulls::skip && !nulls_allowed) {
            const std::string option = nulls_ == Nulls::error ? "pass nulls=\"skip\" (nulls never match) or " : "";
            throw nb::value_error(("Arrow keys contain " + std::to_string(null_count) + " nulls; a null is no key: " +
                                   option + "drop them first (pyarrow.compute.drop_null)")
                                      .c_str());
        }
        return c;
    }

private:
    static void aligned(const unsigned char* p, std::size_t width) {
        if (reinterpret_cast<std::uintptr_t>(p) % width != 0) malformed("a buffer is not aligned to its value size");
    }

    static std::size_t count_nulls(const KeyChunk& c, std::size_t n) {
        if (c.valid == nullptr) return 0;
        std::size_t nulls = 0;
        for (std::size_t i = 0; i < n; ++i) nulls += !bit(c.valid, c.valid_offset + i);
        return nulls;
    }

    template <class Offset>
    static PackedStrings<Offset> packed(const ArrowArray& a, const unsigned char* values, std::size_t n) {
        if (a.n_buffers < 3) malformed("a string array without a data buffer");
        aligned(values, sizeof(Offset));
        const auto* offsets = reinterpret_cast<const Offset*>(values);
        const auto* data = static_cast<const unsigned char*>(a.buffers[2]);
        if (n > 0) {
            check_offsets(offsets, n);
            if (offsets[n] > 0 && data == nullptr) malformed("a string array without a data buffer");
        }
        return {offsets, data, n};
    }

    // Views of valid entries are checked against their buffers; a null's view may be anything.
    StringViews string_views(const KeyChunk& c, const ArrowArray& a, const unsigned char* values, std::size_t n) {
        if (a.n_buffers < 3) malformed("a view array without its buffer sizes");
        const auto data_buffers = std::size_t(a.n_buffers - 3);
        const auto* sizes = static_cast<const std::int64_t*>(a.buffers[a.n_buffers - 1]);
        if (data_buffers > 0 && sizes == nullptr) malformed("a view array without its buffer sizes");
        auto& table = out_.buffer_tables.emplace_back(data_buffers);
        for (std::size_t b = 0; b < data_buffers; ++b) table[b] = static_cast<const unsigned char*>(a.buffers[2 + b]);
        for (std::size_t i = 0; i < n; ++i) {
            if (c.valid != nullptr && !bit(c.valid, c.valid_offset + i)) continue;
            const unsigned char* v = values + 16 * i;
            std::int32_t length, buffer, offset;
            std::memcpy(&length, v, 4);
            std::memcpy(&buffer, v + 8, 4);
            std::memcpy(&offset, v + 12, 4);
            if (length < 0) malformed("a view with a negative length at entry " + std::to_string(i));
            if (length <= 12) continue;
            if (buffer < 0 || std::size_t(buffer) >= data_buffers || offset < 0 || table[std::size_t(buffer)] == nullptr ||
                std::int64_t{offset} + length > sizes[buffer])
                malformed("a view outside its data buffers at entry " + std::to_string(i));
        }
        return {values, table.data(), n};
    }

    // The dictionary's values are listed once (any key layout, nulls allowed); a key whose
    // value is null is a null key.
    void dictionary(KeyChunk& c, const ArrowSchema& schema, const ArrowArray& a, IntColumn indices) {
        if (a.dictionary == nullptr) malformed("a dictionary array without its dictionary");
        if (schema.dictionary->dictionary != nullptr) throw nb::type_error("Arrow keys cannot be a dictionary of dictionaries");
        const KeyChunk dict = chunk(*schema.dictionary, *a.dictionary, true);
        const auto dict_size = std::size_t(a.dictionary->length);
        std::vector<unsigned char> dict_valid(dict_size, 1);
        if (dict.valid != nullptr)
            for (std::size_t j = 0; j < dict_size; ++j) dict_valid[j] = bit(dict.valid, dict.valid_offset + j);
        bool null_values = false;
        for (std::size_t i = 0; i < indices.size(); ++i) {
            if (c.valid != nullptr && !bit(c.valid, c.valid_offset + i)) continue;
            const std::uint64_t j = indices[i];  // a negative index wraps to a huge one
            if (j >= dict_size) malformed("dictionary index out of range at entry " + std::to_string(i));
            null_values |= dict_valid[j] == 0;
        }
        if (null_values) {
            auto& valid = out_.bitmaps.emplace_back((indices.size() + 7) / 8, 0);
            for (std::size_t i = 0; i < indices.size(); ++i)
                if ((c.valid == nullptr || bit(c.valid, c.valid_offset + i)) && dict_valid[indices[i]] != 0)
                    valid[i >> 3] = static_cast<unsigned char>(valid[i >> 3] | (1u << (i & 7)));
            c.valid = valid.data();
            c.valid_offset = 0;
        }
        std::visit(
            [&](const auto& values) {
                using V = std::decay_t<decltype(values[0])>;
                if constexpr (std::is_same_v<V, std::string_view>) {
                    auto& list = out_.string_values.emplace_back(dict_size);
                    for (std::size_t j = 0; j < dict_size; ++j)
                        if (dict_valid[j]) list[j] = values[j];
                    c.keys = Dictionary<std::string_view>{indices, list.data()};
                } else {
                    auto& list = out_.int_values.emplace_back(dict_size);
                    for (std::size_t j = 0; j < dict_size; ++j)
                        if (dict_valid[j]) list[j] = as_key(values[j]);
                    c.keys = Dictionary<std::uint64_t>{indices, list.data()};
                }
            },
            dict.keys);
    }

    // A 64-bit key: int32 sign-extended, as everywhere else.
    static std::uint64_t as_key(std::int32_t v) { return static_cast<std::uint64_t>(std::int64_t{v}); }
    static std::uint64_t as_key(std::uint64_t v) { return v; }
    static std::uint64_t as_key(std::uint32_t v) { return v; }

    ArrowImport& out_;
    Nulls nulls_;
};

[[noreturn]] void stream_error(ArrowArrayStream& s, int code) {
    const char* msg = s.get_last_error != nullptr ? s.get_last_error(&s) : nullptr;
    throw nb::value_error(("reading the Arrow stream failed (error " + std::to_string(code) +
                           (msg != nullptr ? "): " + std::string(msg) : ")"))
                              .c_str());
}

}  // namespace

bool is_arrow(nb::handle obj) {
    return nb::hasattr(obj, "__arrow_c_array__") || nb::hasattr(obj, "__arrow_c_stream__");
}

ArrowImport import_arrow(nb::handle obj, Nulls nulls) {
    ArrowImport out;
    Importer importer(out, nulls);
    if (nb::hasattr(obj, "__arrow_c_array__")) {
        nb::tuple pair = nb::cast<nb::tuple>(obj.attr("__arrow_c_array__")());
        if (pair.size() != 2) throw nb::type_error("__arrow_c_array__ did not return (schema, array) capsules");
        const auto* schema = capsule_pointer<ArrowSchema>(pair[0], "arrow_schema");
        const auto* array = capsule_pointer<ArrowArray>(pair[1], "arrow_array");
        out.chunks.push_back(importer.chunk(*schema, *array));
        out.capsules.emplace_back(pair[0]);  // the capsules release the structs when they die
        out.capsules.emplace_back(pair[1]);
        return out;
    }
    nb::object capsule = obj.attr("__arrow_c_stream__")();
    auto* stream = capsule_pointer<ArrowArrayStream>(capsule, "arrow_array_stream");
    auto schema = owned(new ArrowSchema{});
    if (const int rc = stream->get_schema(stream, schema.get()); rc != 0) stream_error(*stream, rc);
    for (;;) {
        auto array = owned(new ArrowArray{});
        if (const int rc = stream->get_next(stream, array.get()); rc != 0) stream_error(*stream, rc);
        if (array->release == nullptr) break;  // end of stream
        out.chunks.push_back(importer.chunk(*schema, *array));
        out.arrays.push_back(std::move(array));
    }
    out.capsules.push_back(std::move(capsule));
    return out;
}

}  // namespace batchbloom::python

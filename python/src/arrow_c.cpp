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

bool valid_bit(const unsigned char* bitmap, std::int64_t i) { return (bitmap[i >> 3] >> (i & 7)) & 1; }

std::int64_t count_nulls(const ArrowArray& a) {
    if (a.null_count >= 0 || a.buffers[0] == nullptr) return a.null_count > 0 ? a.null_count : 0;
    const auto* bitmap = static_cast<const unsigned char*>(a.buffers[0]);
    std::int64_t nulls = 0;
    for (std::int64_t i = 0; i < a.length; ++i) nulls += !valid_bit(bitmap, a.offset + i);
    return nulls;
}

template <class Offset>
void check_offsets(const Offset* offsets, std::int64_t n) {
    if (offsets[0] < 0) throw nb::value_error("Arrow string array has a negative first offset");
    for (std::int64_t i = 0; i < n; ++i)
        if (offsets[i + 1] < offsets[i])
            throw nb::value_error(("Arrow string array has decreasing offsets at entry " + std::to_string(i)).c_str());
}

std::size_t value_size(char type) {
    switch (type) {
        case 'l': case 'L': return 8;
        case 'i': case 'I': case 'u': case 'z': return 4;
        case 'U': case 'Z': return 8;  // offsets
        default: return 0;
    }
}

ArrowChunk to_chunk(const ArrowSchema& schema, const ArrowArray& a) {
    const char* format = schema.format == nullptr ? "" : schema.format;
    const std::size_t width = std::strlen(format) == 1 ? value_size(format[0]) : 0;
    if (width == 0 || schema.dictionary != nullptr)
        throw nb::type_error(("Arrow keys must be int64, uint64, int32, uint32, string, binary, large_string or "
                              "large_binary arrays, not Arrow format '" + std::string(format) +
                              "' (cast it first, e.g. pyarrow.compute.cast)").c_str());
    if (a.length < 0 || a.offset < 0 || a.n_buffers < 2)
        throw nb::value_error("malformed Arrow array (negative length or offset, or missing buffers)");
    if (const std::int64_t nulls = count_nulls(a); nulls > 0)
        throw nb::value_error(("Arrow keys contain " + std::to_string(nulls) +
                               " nulls; a null is no key: drop them first (pyarrow.compute.drop_null)").c_str());
    ArrowChunk c{.length = a.length, .type = format[0]};
    if (a.length == 0) return c;
    const auto* values = static_cast<const unsigned char*>(a.buffers[1]);
    if (values == nullptr) throw nb::value_error("malformed Arrow array: no values buffer");
    c.values = values + std::size_t(a.offset) * width;
    if (reinterpret_cast<std::uintptr_t>(c.values) % width != 0)
        throw nb::value_error("Arrow buffer is not aligned to its value size");
    if (c.type == 'u' || c.type == 'z' || c.type == 'U' || c.type == 'Z') {
        if (a.n_buffers < 3) throw nb::value_error("malformed Arrow string array: no data buffer");
        c.data = static_cast<const unsigned char*>(a.buffers[2]);
        if (width == 4)
            check_offsets(static_cast<const std::int32_t*>(c.values), a.length);
        else
            check_offsets(static_cast<const std::int64_t*>(c.values), a.length);
        const bool has_bytes = width == 4 ? static_cast<const std::int32_t*>(c.values)[a.length] > 0
                                          : static_cast<const std::int64_t*>(c.values)[a.length] > 0;
        if (has_bytes && c.data == nullptr) throw nb::value_error("malformed Arrow string array: no data buffer");
    }
    return c;
}

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

ArrowImport import_arrow(nb::handle obj) {
    ArrowImport out;
    if (nb::hasattr(obj, "__arrow_c_array__")) {
        nb::tuple pair = nb::cast<nb::tuple>(obj.attr("__arrow_c_array__")());
        if (pair.size() != 2) throw nb::type_error("__arrow_c_array__ did not return (schema, array) capsules");
        const auto* schema = capsule_pointer<ArrowSchema>(pair[0], "arrow_schema");
        const auto* array = capsule_pointer<ArrowArray>(pair[1], "arrow_array");
        out.chunks.push_back(to_chunk(*schema, *array));
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
        out.chunks.push_back(to_chunk(*schema, *array));
        out.arrays.push_back(std::move(array));
    }
    out.capsules.push_back(std::move(capsule));
    return out;
}

}  // namespace batchbloom::python

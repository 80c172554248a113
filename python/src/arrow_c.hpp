#pragma once
// Key batches from Arrow arrays through the Arrow C Data Interface and its Python PyCapsule
// protocol (__arrow_c_array__, __arrow_c_stream__), so PyArrow, Polars, DuckDB or nanoarrow
// arrays are read in place, without linking any Arrow library. The structs below are the
// ABI the specification fixes (arrow.apache.org/docs/format/CDataInterface.html).
#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "key_spans.hpp"

extern "C" {
struct ArrowSchema {
    const char* format;
    const char* name;
    const char* metadata;
    std::int64_t flags;
    std::int64_t n_children;
    ArrowSchema** children;
    ArrowSchema* dictionary;
    void (*release)(ArrowSchema*);
    void* private_data;
};

struct ArrowArray {
    std::int64_t length;
    std::int64_t null_count;
    std::int64_t offset;
    std::int64_t n_buffers;
    std::int64_t n_children;
    const void** buffers;
    ArrowArray** children;
    ArrowArray* dictionary;
    void (*release)(ArrowArray*);
    void* private_data;
};

struct ArrowArrayStream {
    int (*get_schema)(ArrowArrayStream*, ArrowSchema* out);
    int (*get_next)(ArrowArrayStream*, ArrowArray* out);
    const char* (*get_last_error)(ArrowArrayStream*);
    void (*release)(ArrowArrayStream*);
    void* private_data;
};
}

namespace batchbloom::python {

namespace nb = nanobind;

/// What a batch does with null keys: raise ValueError, or skip them (never inserted, never
/// matched: a probe answers False).
/// What a null key does: error and skip are the nulls= choices of the entry points that offer
/// one; never is for those that offer none (their error names no option).
enum class Nulls { error, skip, never };

/// The chunks of an Arrow import and whatever keeps their memory alive: the producer's
/// capsules or released-on-destruction arrays, plus what the import built beside them (a
/// dictionary's values, view buffer tables, validity bitmaps combined with a dictionary's).
struct ArrowImport {
    std::vector<KeyChunk> chunks;
    std::vector<nb::object> capsules;
    std::vector<std::shared_ptr<ArrowArray>> arrays;
    std::vector<std::vector<std::uint64_t>> int_values;
    std::vector<std::vector<std::string_view>> string_values;
    std::vector<std::vector<const unsigned char*>> buffer_tables;
    std::vector<std::vector<unsigned char>> bitmaps;
};

/// Whether `obj` speaks the Arrow PyCapsule protocol.
bool is_arrow(nb::handle obj);

/// Imports `obj` (an array or a stream of arrays): integers of every width, string, binary,
/// their large and view forms, and dictionaries of those, read in place. Throws TypeError for
/// types that are not keys, ValueError for corrupt arrays and, with Nulls::error, for nulls.
ArrowImport import_arrow(nb::handle obj, Nulls nulls);

}  // namespace batchbloom::python

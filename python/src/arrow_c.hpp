#pragma once
// Key batches from Arrow arrays through the Arrow C Data Interface and its Python PyCapsule
// protocol (__arrow_c_array__, __arrow_c_stream__), so PyArrow, Polars, DuckDB or nanoarrow
// arrays are read in place, without linking any Arrow library. The structs below are the
// ABI the specification fixes (arrow.apache.org/docs/format/CDataInterface.html).
#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

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

/// One Arrow array whose buffers stay valid while this object lives.
struct ArrowChunk {
    std::int64_t length = 0;
    char type = 0;  ///< the format character: l L i I (integers), u z (32-bit offsets), U Z (64-bit)
    const void* values = nullptr;       ///< integers: first value (offset applied); strings: offsets
    const unsigned char* data = nullptr;  ///< strings: the character data
};

/// Holds whatever keeps the chunks' buffers alive: capsules or released-on-destruction arrays.
struct ArrowImport {
    std::vector<ArrowChunk> chunks;
    std::vector<nb::object> capsules;
    std::vector<std::shared_ptr<ArrowArray>> arrays;
};

/// Whether `obj` speaks the Arrow PyCapsule protocol.
bool is_arrow(nb::handle obj);

/// Imports `obj` (an array or a stream of arrays). Throws TypeError for types that are not
/// keys and ValueError for arrays with nulls or corrupt offsets.
ArrowImport import_arrow(nb::handle obj);

}  // namespace batchbloom::python

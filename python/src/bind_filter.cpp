// batchbloom.Filter: the blocked Bloom filter, with bulk calls that release the GIL.
#include <batchbloom/backend.hpp>

#include <string>

#include "bind_common.hpp"

namespace batchbloom::python {

namespace {

using namespace nb::literals;

std::string repr(const PyFilter& self) {
    const Filter& f = self.filter;
    return "batchbloom.Filter(" + blocked_fields(f.params(), f.hashing()) + ", backend='" +
           std::string(to_string(f.backend())) + "')";
}

}  // namespace

void bind_filter(nb::module_& m) {
    auto cls = nb::class_<PyFilter>(m, "Filter",
                                    "A blocked Bloom filter, built and probed in batches.\n\n"
                                    "Bulk calls (insert, contains, count) release the GIL and run on every\n"
                                    "core unless threads= says otherwise; one filter may be shared by Python\n"
                                    "threads (writers exclude readers). Results never depend on the engine or\n"
                                    "thread count.");
    def_sized_constructors(cls, "Filter",
                           "An empty filter sized for n distinct keys at false-positive rate fpr (or bits_per_key\n"
                           "bits per key). shape: 'word512' (default), 'split256' or 'line512'; hash: 'xxh3' or\n"
                           "'murmur3' with seed; backend: 'auto' or one of available_backends(); threads: 0 = all cores.",
                           "An empty filter with explicit Params.");
    def_clear(cls, "Sets every bit to zero.");
    def_read(cls, "fill_ratio", [](const Filter& f) { return f.fill_ratio(); }, "Fraction of bits set.");
    def_read(cls, "current_fpr", [](const Filter& f) { return f.current_fpr(); },
             "False-positive rate of a random absent key against the bits as they are now.");
    def_read(cls, "estimated_cardinality", [](const Filter& f) { return f.estimated_cardinality(); },
             "Number of distinct keys inserted, estimated from the fill (Swamidass & Baldi).");
    def_read(cls, "fold", [](const Filter& f) { return PyFilter(f.fold()); },
             "A filter of half the blocks holding the same keys (needs an even block count).");
    cls.def_prop_ro("params", [](const PyFilter& self) { return self.filter.params(); }, "The filter's Params.")
        .def_prop_ro("shape", [](const PyFilter& self) { return std::string(to_string(self.filter.params().shape)); })
        .def_prop_ro("blocks", [](const PyFilter& self) { return self.filter.params().blocks; })
        .def_prop_ro("k", [](const PyFilter& self) { return self.filter.params().k; })
        .def_prop_ro("bits", [](const PyFilter& self) { return self.filter.params().bits(); })
        .def_prop_ro("nbytes", [](const PyFilter& self) { return self.filter.params().bytes(); },
                     "Size of the bit array in bytes.")
        .def("compatible", [](const PyFilter& self, const PyFilter& other) { return self.filter.compatible(other.filter); },
             "other"_a, "Whether |, & and the Jaccard estimate are defined for the two filters.")
        .def("__repr__", &repr)
        .def_static(
            "map",
            [](const std::filesystem::path& path, bool verify) {
                return file_op([&] {
                    nb::gil_scoped_release release;
                    return PyFilter(Filter::map(path, verify));
                });
            },
            "path"_a, "verify"_a = true,
            "Opens a filter saved uncompressed at path read-only over a memory mapping: nothing is\n"
            "copied, probes read the file's pages in place, shared with every process that maps the\n"
            "file. The header is checked as load() checks it; verify=True (the default) also checks\n"
            "the payload checksum, reading the file once; verify=False skips that, for trusted files\n"
            "only. Inserts, clear, |= and &= raise Error (copy() or load() give a writable filter).\n"
            "FormatError for a compressed, truncated or corrupt file or another kind; OSError if it\n"
            "cannot be opened. Replace a mapped file by rename (as save() does), never in place.")
        .def_prop_ro("mapped", [](const PyFilter& self) { return self.filter.mapped(); },
                     "Whether the filter is a read-only mapping of a file (Filter.map).");
    def_hashing(cls);
    def_engine(cls,
               "Engine of the bulk calls as set: 'auto' (resolved on each call) or an engine name. Not\n"
               "part of the filter's value: not saved, pickled or compared. `engine` names the one that runs.");
    cls.def_prop_ro(
        "engine", [](const PyFilter& self) { return std::string(to_string(resolve_backend(self.filter.backend()))); },
        "The engine the bulk calls run on now, e.g. 'avx512': `backend` resolved (for 'auto',\n"
        "BATCHBLOOM_BACKEND as last read, else the best engine of this machine; see resolve_backend).");
    def_scratch(cls,
                "Bytes the partitioned batch path (large batches on filters beyond the cache) may keep\n"
                "between calls, all threads together; default: the filter's size, at least 256 MiB.\n"
                "Smaller means more rounds per batch; too small for a useful round (or 0) means the\n"
                "direct path. Lowering it below what is held gives the excess back.");
    def_set_algebra(cls, "The union: bit for bit the filter of both key sets.",
                    "Bitwise AND: holds the common keys, with a higher FPR than a filter of them.");
    def_keys(cls);
    def_value(cls);

    m.def(
        "estimated_jaccard",
        [](const PyFilter& a, const PyFilter& b) {
            return pair_locked<std::shared_lock>(a, b, [](const Filter& x, const Filter& y) { return estimated_jaccard(x, y); });
        },
        "a"_a, "b"_a, "Jaccard similarity of the key sets behind two compatible filters, estimated from their fills; "
        "1.0 for two empty filters (two empty sets are the same set).");
}

}  // namespace batchbloom::python

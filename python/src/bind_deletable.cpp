// batchbloom.DeletableFilter: a blocked filter plus one collision bit per region, so some keys
// can be erased without counters (include/batchbloom/deletable.hpp).
#include <batchbloom/deletable.hpp>

#include <string>

#include "bind_common.hpp"

namespace batchbloom::python {

namespace {

using namespace nb::literals;
using PyDeletable = Locked<DeletableFilter>;
using OutcomeArray = nb::ndarray<nb::numpy, std::uint8_t, nb::ndim<1>>;

unsigned region_bits_arg(Typed<int> bits) { return static_cast<unsigned>(int_arg(bits, "region_bits", 1, 512)); }

PyDeletable make(const Params& params, Typed<int> region_bits, Typed<nb::str> hash, Typed<int> seed, Typed<nb::str> backend) {
    return PyDeletable(DeletableFilter(params, region_bits_arg(region_bits), hashing(hash, seed), backend_arg(backend)));
}

std::string repr(const PyDeletable& self) {
    const DeletableFilter& f = self.filter;
    return "batchbloom.DeletableFilter(" + blocked_fields(f.params(), f.hashing()) +
           ", region_bits=" + std::to_string(f.region_bits()) + ")";
}

// Erases the keys in order; `results`, when not null, gets one EraseResult per key.
std::size_t erase_keys(PyDeletable& self, nb::handle keys, std::vector<EraseResult>* results) {
    std::size_t erased = 0;
    for_each_batch(keys, [&](const KeyBatch& batch, std::size_t at) {
        if (results != nullptr) results->resize(at + batch.size());
        write_locked(self, batch.size() <= short_batch, [&](DeletableFilter& f) {
            for_each_span(batch, [&](const auto& k, std::size_t pos) {
                erased += f.erase(
                    k, results == nullptr ? std::span<EraseResult>() : std::span(results->data() + at + pos, k.size()));
            });
        });
    });
    return erased;
}

}  // namespace

void bind_deletable(nb::module_& m) {
    auto cls = nb::class_<PyDeletable>(
        m, "DeletableFilter",
        "A deletable Bloom filter (Rothenberg et al. 2010): a blocked filter plus one collision bit\n"
        "per region of region_bits bits. A key whose bits include one in a collision-free region\n"
        "can be erased with no false negatives for the other keys; deletability falls as keys are\n"
        "added. Erase only keys you inserted. Bulk calls release the GIL.");
    cls.def(
           "__init__",
           [](PyDeletable* self, Typed<int> n, Typed<float> fpr, Typed<float> bpk, Typed<int> region_bits, Typed<nb::str> shape,
              Typed<nb::str> hash, Typed<int> seed, Typed<nb::str> backend) {
               new (self)
                   PyDeletable(make(sizing("DeletableFilter", n, fpr, bpk, shape), region_bits, hash, seed, backend));
           },
           "n"_a.none() = nb::none(), "fpr"_a.none() = nb::none(), nb::kw_only(), "bits_per_key"_a.none() = nb::none(),
           "region_bits"_a.none() = DeletableFilter::default_region_bits, "shape"_a.none() = "word512",
           "hash"_a.none() = "xxh3", "seed"_a.none() = 0, "backend"_a.none() = "auto",
           "An empty filter sized like Filter(n, fpr, ...), plus bits / region_bits collision bits\n"
           "(region_bits: a power of two from 1 to the block's bits).")
        .def_static(
            "from_params",
            [](Typed<Params> p, Typed<int> region_bits, Typed<nb::str> hash, Typed<int> seed, Typed<nb::str> backend) {
                return make(params_arg(p), region_bits, hash, seed, backend);
            },
            "params"_a.none(), nb::kw_only(), "region_bits"_a.none() = DeletableFilter::default_region_bits,
            "hash"_a.none() = "xxh3", "seed"_a.none() = 0, "backend"_a.none() = "auto",
            "An empty filter with explicit Params.")
        .def(
            "erase", [](PyDeletable& self, nb::handle keys) { return erase_keys(self, keys, nullptr); }, "keys"_a.none(),
            BATCHBLOOM_SIG_KEYS_ONLY("erase", "int"),
            "Erases a batch of keys, in order; returns how many were erased (the others tested\n"
            "negative or had every bit in a collided region, and nothing changed for them).")
        .def(
            "erase_outcomes",
            [](PyDeletable& self, nb::handle keys) {
                static_assert(sizeof(EraseResult) == 1);
                auto out = std::make_unique<std::vector<EraseResult>>();
                out->reserve(1);  // a valid data pointer for an empty array
                erase_keys(self, keys, out.get());
                auto* data = reinterpret_cast<std::uint8_t*>(out->data());
                const std::size_t n = out->size();
                nb::capsule owner(out.get(), [](void* p) noexcept { delete static_cast<std::vector<EraseResult>*>(p); });
                out.release();
                return OutcomeArray(data, {n}, owner);
            },
            "keys"_a.none(), BATCHBLOOM_SIG_KEYS_ONLY("erase_outcomes", "numpy.typing.NDArray[numpy.uint8]"),
            "Erases like erase() and returns each key's outcome as a NumPy uint8 array: 0 absent\n"
            "(tested negative), 1 erased, 2 not deletable (every bit in a collided region).")
        .def(
            "discard",
            [](PyDeletable& self, nb::handle key) {
                return write_key(self, key, [](DeletableFilter& f, auto k) { return f.erase(k) == EraseResult::erased; });
            },
            "key"_a.none(), BATCHBLOOM_SIG_KEY("discard", "bool"),
            "Erases one key; False if it tested negative or could not be erased.")
        .def_static(
            "predicted_deletability",
            [](Typed<Params> p, Typed<int> region_bits, Typed<int> n) {
                return predicted_deletability(params_arg(p), region_bits_arg(region_bits), int_arg(n, "n", 1));
            },
            "params"_a.none(), "region_bits"_a.none(), "n"_a.none(),
            "Expected fraction of n inserted distinct keys that erase() can remove.")
        .def_prop_ro("params", [](const PyDeletable& self) { return self.filter.params(); })
        .def_prop_ro("region_bits", [](const PyDeletable& self) { return self.filter.region_bits(); })
        .def_prop_ro("regions", [](const PyDeletable& self) { return self.filter.regions(); })
        .def_prop_ro(
            "nbytes",
            [](const PyDeletable& self) { return self.filter.params().bytes() + self.filter.collisions().size_bytes(); },
            "Bytes of the bit array and the collision bitmap.")
        .def("__repr__", &repr);
    def_read(cls, "to_filter", [](const DeletableFilter& f) { return PyFilter(f.filter()); },
             "A copy of the bits as a blocked Filter (byte for byte a Filter of the keys present, as\n"
             "long as nothing was erased).");
    def_read(cls, "collided_regions", [](const DeletableFilter& f) { return f.collided_regions(); },
             "Number of regions marked as collided (their bits can no longer be cleared).");
    def_clear(cls, "Sets every bit and every collision bit to zero.");
    def_hashing(cls);
    def_engine(cls,
               "Engine of the bulk probes ('auto' or an engine name; inserts and erases are scalar); not\n"
               "part of the value.");
    def_keys(cls);
    def_value(cls);
}

}  // namespace batchbloom::python

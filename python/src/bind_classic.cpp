// batchbloom.ClassicFilter and ClassicParams: the classic Bloom filter, with batchbloom's own
// double hashing or Apache Spark's BloomFilter schemes (include/batchbloom/classic.hpp).
#include <batchbloom/classic.hpp>

#include <span>
#include <string>

#include "bind_common.hpp"

namespace batchbloom::python {

namespace {

using namespace nb::literals;
using PyClassic = Locked<ClassicFilter>;

bool is_spark(ClassicScheme s) { return s != ClassicScheme::double_hashing; }

ClassicScheme scheme_arg(nb::handle name) {
    return parse_classic_scheme(str_arg(name, "scheme", "'double_hashing', 'spark_v1' or 'spark_v2'"));
}

// Spark's seeds are Java ints.
std::int32_t java_int_arg(nb::handle value, const char* name) {
    if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr()))
        throw nb::type_error((std::string(name) + " must be an int in [-2**31, 2**31), not " +
                              nb::cast<std::string>(nb::str(value.type().attr("__name__"))))
                                 .c_str());
    int overflow = 0;
    nb::object index = nb::steal(PyNumber_Index(value.ptr()));
    if (!index.is_valid()) throw nb::python_error();
    const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    if (overflow != 0 || v < INT32_MIN || v > INT32_MAX)
        throw Error(std::string(name) + " must be an int in [-2**31, 2**31), got " +
                    nb::cast<std::string>(nb::repr(index)));
    return static_cast<std::int32_t>(v);
}

PyClassic make(const ClassicParams& params, Typed<nb::str> scheme, Typed<nb::str> hash, Typed<int> seed, Typed<nb::str> backend,
               Typed<int> threads) {
    const Hashing h = hashing(hash, seed);
    ClassicFilter f(params, ClassicHashing{scheme_arg(scheme), h.kind, h.seed}, backend_arg(backend));
    f.set_threads(threads_arg(threads));
    return PyClassic(std::move(f));
}

// Spark schemes store whole 64-bit words; (n, fpr) sizes them exactly as Spark's
// BloomFilter.create(n, fpp) does, so Spark can merge them with its own filters.
ClassicParams sizing(nb::handle n_arg, nb::handle fpr_arg, nb::handle bpk_arg, ClassicScheme scheme) {
    const auto n = optional_int_arg(n_arg, "n", 1);
    const auto fpr = optional_real_arg(fpr_arg, "fpr");
    const auto bpk = optional_real_arg(bpk_arg, "bits_per_key");
    if (!n || fpr.has_value() == bpk.has_value())
        throw nb::type_error(
            "ClassicFilter() takes n= and one of fpr= or bits_per_key=; ClassicFilter.from_params() takes "
            "explicit parameters");
    if (fpr) return is_spark(scheme) ? ClassicParams::spark(*n, *fpr) : ClassicParams::for_fpr(*n, *fpr);
    ClassicParams p = ClassicParams::for_bits_per_key(*n, *bpk);
    if (is_spark(scheme)) p.bits = (p.bits + 63) / 64 * 64;
    return p;
}

ClassicParams explicit_params(nb::handle bits, nb::handle k) {
    ClassicParams p{int_arg(bits, "bits", 1, ClassicParams::max_bits),
                    static_cast<unsigned>(int_arg(k, "k", 1, ClassicParams::max_k))};
    p.validate();
    return p;
}

std::string repr(const PyClassic& self) {
    const ClassicFilter& f = self.filter;
    std::string s = "batchbloom.ClassicFilter(scheme='" + std::string(to_string(f.hashing().scheme)) +
                    "', bits=" + std::to_string(f.params().bits) + ", k=" + std::to_string(f.params().k);
    if (!is_spark(f.hashing().scheme)) s += ", hash='" + std::string(to_string(f.hashing().kind)) + "'";
    return s + ", seed=" + std::to_string(f.hashing().seed) + ")";
}

void bind_classic_params(nb::module_& m) {
    nb::class_<ClassicParams>(m, "ClassicParams",
                              "Bits (m) and bits set per key (k) of a classic Bloom filter. Immutable.")
        .def(
            "__init__",
            [](ClassicParams* self, Typed<int> bits, Typed<int> k) {
                new (self) ClassicParams(explicit_params(bits, k));
            },
            "bits"_a.none(), "k"_a.none(), "Explicit parameters, validated (ValueError names the invalid one).")
        .def_static(
            "for_fpr",
            [](Typed<int> n, Typed<float> fpr) { return ClassicParams::for_fpr(int_arg(n, "n", 1), real_arg(fpr, "fpr")); },
            "n"_a.none(), "fpr"_a.none(),
            "Fewest bits whose FPR (1 - e^(-kn/m))^k for n keys is <= fpr, with the best k.")
        .def_static(
            "for_bits_per_key",
            [](Typed<int> n, Typed<float> bpk) {
                return ClassicParams::for_bits_per_key(int_arg(n, "n", 1), real_arg(bpk, "bits_per_key"));
            },
            "n"_a.none(), "bits_per_key"_a.none(), "ceil(n * bits_per_key) bits, k = round(bits_per_key * ln 2).")
        .def_static(
            "spark",
            [](Typed<int> n, Typed<float> fpp) { return ClassicParams::spark(int_arg(n, "n", 1), real_arg(fpp, "fpp")); },
            "n"_a.none(), "fpp"_a.none(),
            "What Spark's BloomFilter.create(n, fpp) chooses (bits rounded up to whole words).")
        .def_ro("bits", &ClassicParams::bits, "m, the number of bits.")
        .def_ro("k", &ClassicParams::k, "Bits set per key.")
        .def_prop_ro("nbytes", &ClassicParams::bytes, "Size of the bit array in bytes (whole 64-bit words).")
        .def(
            "predicted_fpr",
            [](const ClassicParams& p, Typed<int> n) { return ClassicFilter::classic_fpr_of(p, int_arg(n, "n")); },
            "n"_a.none(), "(1 - e^(-kn/m))^k: the predicted false-positive rate after n distinct keys.")
        .def(
            "__eq__", [](const ClassicParams& a, const ClassicParams& b) { return a == b; }, nb::is_operator())
        .def("__hash__", [](const ClassicParams& p) { return nb::hash(nb::make_tuple(p.bits, p.k)); })
        .def("__repr__",
             [](const ClassicParams& p) {
                 return "batchbloom.ClassicParams(bits=" + std::to_string(p.bits) + ", k=" + std::to_string(p.k) + ")";
             })
        .def("__getstate__", [](const ClassicParams& p) { return nb::make_tuple(p.bits, p.k); })
        .def("__setstate__", [](ClassicParams* self, const nb::tuple& s) {
            if (s.size() != 2) throw nb::value_error("ClassicParams state is (bits, k)");
            new (self) ClassicParams(explicit_params(s[0], s[1]));
        });
}

}  // namespace

void bind_classic(nb::module_& m) {
    bind_classic_params(m);
    auto cls = nb::class_<PyClassic>(
        m, "ClassicFilter",
        "A classic Bloom filter: k bit positions anywhere in m bits, by double hashing.\n\n"
        "scheme 'double_hashing' is batchbloom's own (xxh3 or murmur3 with seed); 'spark_v1' and\n"
        "'spark_v2' are Apache Spark's BloomFilter (org.apache.spark.util.sketch), bit for bit:\n"
        "to_spark_bytes() is what Spark's writeTo writes and BloomFilter.readFrom reads. Integer keys\n"
        "are Spark's putLong, str keys putString (UTF-8), bytes keys putBinary. Bulk calls release the\n"
        "GIL; one filter may be shared by Python threads (writers exclude readers).");
    cls.def(
           "__init__",
           [](PyClassic* self, Typed<int> n, Typed<float> fpr, Typed<float> bpk, Typed<nb::str> scheme, Typed<nb::str> hash,
              Typed<int> seed, Typed<nb::str> backend, Typed<int> threads) {
               new (self) PyClassic(make(sizing(n, fpr, bpk, scheme_arg(scheme)), scheme, hash, seed, backend, threads));
           },
           "n"_a.none() = nb::none(), "fpr"_a.none() = nb::none(), nb::kw_only(), "bits_per_key"_a.none() = nb::none(),
           "scheme"_a.none() = "double_hashing", "hash"_a.none() = "xxh3", "seed"_a.none() = 0,
           "backend"_a.none() = "auto", "threads"_a.none() = 0,
           "An empty filter for n distinct keys at false-positive rate fpr (or bits_per_key bits per\n"
           "key). With a Spark scheme, (n, fpr) is sized as Spark's BloomFilter.create(n, fpr) and\n"
           "bits_per_key rounded up to whole 64-bit words; seed is then Spark's 32-bit seed as an\n"
           "unsigned value (spark_v1: 0 only) and hash is ignored.")
        .def_static(
            "spark",
            [](Typed<int> n, Typed<float> fpp, Typed<nb::str> scheme, Typed<int> seed) {
                return PyClassic(ClassicFilter::spark(int_arg(n, "n", 1), real_arg(fpp, "fpp"), scheme_arg(scheme),
                                                      java_int_arg(seed, "seed")));
            },
            "n"_a.none(), "fpp"_a.none(), nb::kw_only(), "scheme"_a.none() = "spark_v2", "seed"_a.none() = 0,
            "An empty filter exactly as Spark's BloomFilter.create(n, fpp) makes it (version 2, or\n"
            "version 1 with scheme='spark_v1'; seed: Spark's int seed, version 2 only).")
        .def_static(
            "from_params",
            [](Typed<ClassicParams> p, Typed<nb::str> scheme, Typed<nb::str> hash, Typed<int> seed, Typed<nb::str> backend,
               Typed<int> threads) {
                return make(params_arg<ClassicParams>(p, "batchbloom.ClassicParams"), scheme, hash, seed, backend,
                            threads);
            },
            "params"_a.none(), nb::kw_only(), "scheme"_a.none() = "double_hashing", "hash"_a.none() = "xxh3",
            "seed"_a.none() = 0, "backend"_a.none() = "auto", "threads"_a.none() = 0,
            "An empty filter with explicit ClassicParams.")
        .def(
            "predicted_fpr",
            [](const PyClassic& self, Typed<int> n) { return self.filter.predicted_fpr(int_arg(n, "n")); },
            "n"_a.none(), "(1 - e^(-kn/m))^k: the predicted false-positive rate after n distinct keys.")
        .def_prop_ro(
            "params", [](const PyClassic& self) { return self.filter.params(); }, "The filter's ClassicParams.")
        .def_prop_ro("bits", [](const PyClassic& self) { return self.filter.params().bits; })
        .def_prop_ro("k", [](const PyClassic& self) { return self.filter.params().k; })
        .def_prop_ro(
            "nbytes", [](const PyClassic& self) { return self.filter.params().bytes(); },
            "Size of the bit array in bytes.")
        .def_prop_ro(
            "scheme", [](const PyClassic& self) { return std::string(to_string(self.filter.hashing().scheme)); },
            "'double_hashing', 'spark_v1' or 'spark_v2'.")
        .def(
            "compatible",
            [](const PyClassic& self, const PyClassic& other) { return self.filter.compatible(other.filter); },
            "other"_a, "Whether | and & are defined for the two filters (same params and hashing).")
        .def(
            "to_spark_bytes",
            [](const PyClassic& self) {
                const auto bytes = read_locked(self, false, [](const ClassicFilter& f) { return f.to_spark_bytes(); });
                return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
            },
            "Spark's serialized form (BloomFilter.writeTo): what BloomFilter.readFrom reads. Error for\n"
            "the double_hashing scheme.")
        .def_static(
            "from_spark_bytes",
            [](Typed<nb::bytes> data, nb::handle key_kinds) {
                KeyKinds kinds = KeyKinds::not_recorded();
                if (!key_kinds.is_none()) {
                    kinds = KeyKinds::none();
                    for (nb::handle item : nb::iter(key_kinds)) {
                        const std::string kind = nb::isinstance<nb::str>(item) ? nb::cast<std::string>(item) : "";
                        if (kind == "integers") kinds.integers = true;
                        else if (kind == "bytes") kinds.bytes = true;
                        else throw nb::value_error("key_kinds holds 'integers' and 'bytes' only");
                    }
                }
                BufferView view(data);
                nb::gil_scoped_release release;
                return PyClassic(ClassicFilter::from_spark_bytes(
                    std::span(reinterpret_cast<const std::byte*>(view.data()), view.size()), kinds));
            },
            "data"_a, nb::kw_only(), "key_kinds"_a.none() = nb::none(),
            nb::sig("def from_spark_bytes(data: bytes, *, key_kinds: collections.abc.Iterable[typing.Literal['integers', "
                    "'bytes']] | None = None) -> ClassicFilter"),
            "A filter from Spark's serialized form (BloomFilter.writeTo, versions 1 and 2; any\n"
            "bytes-like object). FormatError if it is not exactly one valid Spark filter. Spark's form\n"
            "does not say what kinds of keys went in: key_kinds ('integers', 'bytes') says so where\n"
            "the caller knows, else key_kinds is None.")
        .def("__repr__", &repr);
    def_clear(cls, "Sets every bit to zero.");
    def_read(cls, "fill_ratio", [](const ClassicFilter& f) { return f.fill_ratio(); }, "Fraction of bits set.");
    def_hashing(cls, "'xxh3' or 'murmur3' (double_hashing only; Spark schemes hash with Spark's Murmur3).",
                "The hash seed (spark_v2: Spark's int seed as an unsigned 32-bit value).");
    def_engine(cls, "Engine of the bulk probes ('auto' or an engine name); not part of the value.");
    def_set_algebra(cls, "The union (Spark: mergeInPlace): bit for bit the filter of both key sets.",
                    "Bitwise AND (Spark: intersectInPlace).");
    def_keys(cls);
    def_value(cls);
}

}  // namespace batchbloom::python

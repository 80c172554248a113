// batchbloom.JoinFilter: the semi-join pre-filter of a hash join, built over the build side's
// keys and probed with whole columns (include/batchbloom/join.hpp).
#include <batchbloom/join.hpp>

#include <type_traits>
#include <vector>

#include "bind_common.hpp"

namespace batchbloom::python {

namespace {

using namespace nb::literals;
using PyJoin = Locked<JoinFilter>;
using U64Array = nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<1>>;

template <class T>
U64Array to_numpy(std::vector<T> v) {
    auto* heap = new std::vector<T>(std::move(v));
    heap->reserve(1);  // a valid data pointer for an empty array
    nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    return U64Array(heap->data(), {heap->size()}, owner);
}

// Build keys gathered from several chunks or batches into one span's worth.
struct Gathered {
    std::vector<std::uint64_t> ints;
    std::vector<std::uint32_t> narrow;
    std::vector<std::string_view> views;  // into Arrow buffers, which outlive the build
    std::vector<std::string> copies;      // an iterable's strings die with its batch

    void add(const KeyBatch& batch, bool copy_strings) {
        for_each_span(batch, [&](const auto& k, std::size_t) {
            using T = typename std::decay_t<decltype(k)>::value_type;
            if constexpr (std::is_same_v<T, std::uint64_t>)
                ints.insert(ints.end(), k.begin(), k.end());
            else if constexpr (std::is_same_v<T, std::uint32_t>)
                narrow.insert(narrow.end(), k.begin(), k.end());
            else if (copy_strings)
                copies.insert(copies.end(), k.begin(), k.end());
            else
                views.insert(views.end(), k.begin(), k.end());
        });
    }

    JoinFilter build(const JoinFilterOptions& o) {
        views.insert(views.end(), copies.begin(), copies.end());
        if (!views.empty()) return JoinFilter(std::span<const std::string_view>(views), o);
        if (!narrow.empty()) return JoinFilter(std::span<const std::uint32_t>(narrow), o);
        return JoinFilter(std::span<const std::uint64_t>(ints), o);
    }
};

// An array of one chunk that is a span the join filter takes is read in place; Arrow streams
// and other encodings are gathered first, iterables batch by batch.
JoinFilter build(nb::handle keys, const JoinFilterOptions& o) {
    KeyBatch batch;
    Gathered all;
    if (batch.take_array(keys)) {
        nb::gil_scoped_release release;
        if (batch.chunks().size() == 1 && batch.chunks().front().valid == nullptr) {
            std::optional<JoinFilter> direct;
            std::visit(
                [&](const auto& k) {
                    using K = std::decay_t<decltype(k)>;
                    if constexpr (std::is_same_v<K, std::span<const std::uint64_t>> ||
                                  std::is_same_v<K, std::span<const std::uint32_t>> ||
                                  std::is_same_v<K, std::span<const std::string_view>>)
                        direct.emplace(k, o);
                },
                batch.chunks().front().keys);
            if (direct) return std::move(*direct);
        }
        all.add(batch, false);
        return all.build(o);
    }
    for_each_batch(keys, [&](const KeyBatch& b, std::size_t) { all.add(b, true); });
    nb::gil_scoped_release release;
    return all.build(o);
}

JoinFilterOptions options(Typed<float> fpr, nb::handle bpk_arg, Typed<int> expected_keys, Typed<nb::str> shape, Typed<nb::str> hash,
                          Typed<int> seed, Typed<nb::str> backend, Typed<int> threads, Typed<int> chunk_rows) {
    JoinFilterOptions o;
    o.fpr = real_arg(fpr, "fpr");
    const auto bpk = optional_real_arg(bpk_arg, "bits_per_key");
    if (bpk && !(*bpk > 0.0)) throw Error("join filter: bits_per_key must be positive, got " + std::to_string(*bpk));
    o.bits_per_key = bpk.value_or(0.0);
    o.expected_keys = int_arg(expected_keys, "expected_keys");
    o.shape = shape_arg(shape);
    o.hashing = hashing(hash, seed);
    o.backend = backend_arg(backend);
    o.threads = threads_arg(threads);
    o.chunk_rows = int_arg(chunk_rows, "chunk_rows", 1, std::uint64_t(1) << 32);
    return o;
}

// ORs the bitmap of n keys into `out` from bit `at` on.
void append_bits(std::span<std::uint64_t> out, std::size_t at, std::span<const std::uint64_t> bits, std::size_t n) {
    for (std::size_t i = 0; i < n; i += 64) {
        std::uint64_t w = bits[i / 64];
        if (n - i < 64) w &= (std::uint64_t(1) << (n - i)) - 1;
        const std::size_t pos = at + i, word = pos / 64, shift = pos % 64;
        out[word] |= w << shift;
        if (shift != 0 && word + 1 < out.size()) out[word + 1] |= w >> (64 - shift);
    }
}

std::string repr(const PyJoin& self) {
    const Filter& f = self.filter.filter();
    return "batchbloom.JoinFilter(sized_for=" + std::to_string(self.filter.sized_for()) + ", " +
           blocked_fields(f.params(), f.hashing()) + ")";
}

PyJoin from_filter(Filter f, nb::handle sized_for, nb::handle backend, nb::handle threads, nb::handle chunk_rows) {
    JoinFilterOptions o;
    o.backend = backend_arg(backend);
    o.threads = threads_arg(threads);
    o.chunk_rows = int_arg(chunk_rows, "chunk_rows", 1, std::uint64_t(1) << 32);
    return PyJoin(JoinFilter(std::move(f), int_arg(sized_for, "sized_for"), o));
}

// A Filter of the join filter's bits, with the join filter's thread count (its own
// filter runs on one thread per chunk).
PyFilter filter_copy(const JoinFilter& j) {
    Filter f = j.filter();
    f.set_threads(j.options().threads);
    return PyFilter(std::move(f));
}

}  // namespace

void bind_join(nb::module_& m) {
    auto cls = nb::class_<PyJoin>(
        m, "JoinFilter",
        "The Bloom join's pre-filter: a blocked filter over a hash join's build-side keys, probed\n"
        "with whole probe columns. select() gives the rows that may match (a superset of the\n"
        "matches: every matching row, and about fpr of the others), bitmap() the same as a packed\n"
        "bitmap (bit i = row i, the layout of an Arrow boolean array), count() their number. Nulls\n"
        "are the caller's: drop them before (a null never matches). Immutable; calls release the GIL.");
    cls.def(
           "__init__",
           [](PyJoin* self, nb::handle keys, Typed<float> fpr, Typed<float> bpk, Typed<int> expected_keys, Typed<nb::str> shape,
              Typed<nb::str> hash, Typed<int> seed, Typed<nb::str> backend, Typed<int> threads, Typed<int> chunk_rows) {
               const JoinFilterOptions o =
                   options(fpr, bpk, expected_keys, shape, hash, seed, backend, threads, chunk_rows);
               new (self) PyJoin(build(keys, o));
           },
           "build_keys"_a.none(), nb::kw_only(), "fpr"_a.none() = 0.01, "bits_per_key"_a.none() = nb::none(),
           "expected_keys"_a.none() = 0, "shape"_a.none() = "word512", "hash"_a.none() = "xxh3", "seed"_a.none() = 0,
           "backend"_a.none() = "auto", "threads"_a.none() = 0, "chunk_rows"_a.none() = std::size_t(1) << 16,
           nb::sig("def __init__(self, build_keys: numpy.typing.ArrayLike | collections.abc.Iterable[int | bytes | str], "
                   "*, fpr: float | None = 0.01, bits_per_key: float | None = None, expected_keys: int = 0, "
                   "shape: str = 'word512', hash: str = 'xxh3', seed: int = 0, backend: str = 'auto', threads: int = 0, "
                   "chunk_rows: int = 65536) -> None"),
           "Builds the filter over the build side's keys (any key batch; an Arrow stream or an\n"
           "iterable is gathered first), sized for their distinct count at fpr (or bits_per_key bits\n"
           "per key), or for expected_keys keys when given (skips the count). threads: build and\n"
           "probe threads, 0 = every core; chunk_rows: rows per chunk of a probe.")
        .def_static(
            "from_filter",
            [](const PyFilter& f, Typed<int> sized_for, Typed<nb::str> backend, Typed<int> threads, Typed<int> chunk_rows) {
                return from_filter(copy_of(f).filter, sized_for, backend, threads, chunk_rows);
            },
            "filter"_a, "sized_for"_a.none(), nb::kw_only(), "backend"_a.none() = "auto", "threads"_a.none() = 0,
            "chunk_rows"_a.none() = std::size_t(1) << 16,
            "A join filter over a Filter that holds the build keys (loaded, received, or OR-ed from\n"
            "partitions); sized_for: the number of build keys it was sized for.")
        .def(
            "select",
            [](const PyJoin& self, nb::handle keys, nb::handle nulls) {
                std::vector<std::uint64_t> rows;
                for_each_batch(
                    keys,
                    [&](const KeyBatch& batch, std::size_t at) {
                        nb::gil_scoped_release release;
                        for_each_span(batch, [&](const auto& k, std::size_t pos) {
                            const std::vector<std::uint64_t> part = self.filter.select(k);
                            for (const auto r : part) rows.push_back(r + at + pos);
                        });
                    },
                    nulls_arg(nulls));
                return to_numpy(std::move(rows));
            },
            "keys"_a.none(), nb::kw_only(), "nulls"_a.none() = "error",
            BATCHBLOOM_SIG_BATCH("select", "numpy.typing.NDArray[numpy.uint64]"), "The 0-based positions of the keys that may match, ascending (NumPy uint64).")
        .def(
            "bitmap",
            [](const PyJoin& self, nb::handle keys, nb::handle nulls) {
                std::vector<std::uint64_t> words, part;
                for_each_batch(keys, [&](const KeyBatch& batch, std::size_t at) {
                    words.resize((at + batch.size() + 63) / 64);
                    nb::gil_scoped_release release;
                    for_each_span(batch, [&](const auto& k, std::size_t pos) {
                        if (at + pos == 0 && k.size() == batch.size()) {  // the whole input: in place
                            self.filter.bitmap(k, words);
                            return;
                        }
                        part.assign((k.size() + 63) / 64, 0);
                        self.filter.bitmap(k, part);
                        append_bits(words, at + pos, part, k.size());
                    });
                }, nulls_arg(nulls));
                return to_numpy(std::move(words));
            },
            "keys"_a.none(), nb::kw_only(), "nulls"_a.none() = "error",
            BATCHBLOOM_SIG_BATCH("bitmap", "numpy.typing.NDArray[numpy.uint64]"),
            "A packed bitmap (NumPy uint64 words): bit i % 64 of word i // 64 is set where key i may\n"
            "match; bits past the last key are zero. Its bytes are an Arrow boolean array's values\n"
            "(pyarrow.BooleanArray.from_buffers).")
        .def(
            "count",
            [](const PyJoin& self, nb::handle keys, nb::handle nulls) {
                return count_batches(
                    keys,
                    [&](const KeyBatch& batch) {
                        nb::gil_scoped_release release;
                        return count(self.filter, batch);
                    },
                    nulls_arg(nulls));
            },
            "keys"_a.none(), nb::kw_only(), "nulls"_a.none() = "error",
            BATCHBLOOM_SIG_BATCH("count", "int"), "Number of keys that may match.")
        .def(
            "contains",
            [](const PyJoin& self, nb::handle keys, nb::handle nulls) {
                return answers_array(
                    keys,
                    [&](const KeyBatch& batch, std::uint8_t* out) {
                        nb::gil_scoped_release release;
                        contains(self.filter.filter(), batch, out);
                    },
                    nulls_arg(nulls));
            },
            "keys"_a.none(), nb::kw_only(), "nulls"_a.none() = "error",
            BATCHBLOOM_SIG_BATCH("contains", "numpy.typing.NDArray[numpy.bool_]"), "A NumPy bool array: True where the key may match.")
        .def(
            "__contains__",
            [](const PyJoin& self, nb::handle key) {
                const Key k = key_from_python(key);
                return std::visit([&](auto v) { return self.filter.filter().contains(v); }, k);
            },
            "key"_a.none(), BATCHBLOOM_SIG_KEY("__contains__", "bool"))
        .def(
            "to_filter", [](const PyJoin& self) { return filter_copy(self.filter); },
            "A copy of the filter (a blocked Filter: save it, OR it, probe it).")
        .def_prop_ro(
            "sized_for", [](const PyJoin& self) { return self.filter.sized_for(); },
            "Build keys the filter was sized for (distinct keys unless expected_keys was given).")
        .def(
            "predicted_fpr", [](const PyJoin& self) { return self.filter.predicted_fpr(); },
            "The FPR the sizing model predicts for a probe key that is not a build key.")
        .def_prop_ro("params", [](const PyJoin& self) { return self.filter.filter().params(); })
        .def_prop_ro("nbytes", [](const PyJoin& self) { return self.filter.filter().params().bytes(); })
        .def_prop_ro("hash_kind",
                     [](const PyJoin& self) { return std::string(to_string(self.filter.filter().hashing().kind)); })
        .def_prop_ro("seed", [](const PyJoin& self) { return self.filter.filter().hashing().seed; })
        .def_prop_ro("backend", [](const PyJoin& self) { return std::string(to_string(self.filter.options().backend)); })
        .def_prop_ro("threads", [](const PyJoin& self) { return self.filter.options().threads; })
        .def_prop_ro("chunk_rows", [](const PyJoin& self) { return self.filter.options().chunk_rows; })
        .def(
            "__eq__",
            [](const PyJoin& a, const PyJoin& b) {
                return a.filter.sized_for() == b.filter.sized_for() && a.filter.filter() == b.filter.filter();
            },
            nb::is_operator(), "Same filter bits, params and hashing, sized for the same count.")
        .def(
            "__ne__",
            [](const PyJoin& a, const PyJoin& b) {
                return a.filter.sized_for() != b.filter.sized_for() || !(a.filter.filter() == b.filter.filter());
            },
            nb::is_operator())
        .def(
            "copy",
            [](const PyJoin& self) {
                const JoinFilterOptions& o = self.filter.options();
                return PyJoin(JoinFilter(self.filter.filter(), self.filter.sized_for(), o));
            },
            "An independent copy.")
        .def("__getstate__",
             [](const PyJoin& self) {
                 const JoinFilterOptions& o = self.filter.options();
                 return nb::make_tuple(to_bytes(self.filter.filter()), self.filter.sized_for(),
                                       std::string(to_string(o.backend)), o.threads, o.chunk_rows);
             })
        .def("__setstate__", [](PyJoin* self, const nb::tuple& s) {
            if (s.size() != 5)
                throw nb::value_error("JoinFilter state is (filter bytes, sized_for, backend, threads, chunk_rows)");
            new (self) PyJoin(from_filter(from_bytes<Filter>(s[0]), s[1], s[2], s[3], s[4]));
        });
    cls.def("__copy__", [](nb::handle self) { return self.attr("copy")(); }, nb::sig("def __copy__(self) -> JoinFilter"))
        .def(
            "__deepcopy__", [](nb::handle self, nb::handle) { return self.attr("copy")(); }, "memo"_a,
            nb::sig("def __deepcopy__(self, memo: typing.Any) -> JoinFilter"))
        .def("__repr__", &repr);
    cls.attr("__hash__") = nb::none();
}

}  // namespace batchbloom::python

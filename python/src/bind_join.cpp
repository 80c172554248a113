// batchbloom.JoinFilter: the semi-join pre-filter of a hash join, built over the build side's
// keys and probed with whole columns (include/batchbloom/join.hpp); batchbloom.JoinPlan: whether
// it pays, per probe batch (include/batchbloom/join_plan.hpp).
#include <batchbloom/join.hpp>
#include <batchbloom/join_plan.hpp>

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


// A join plan and the JoinFilter it refers to, kept alive by it.
struct PyPlan {
    nb::object owner;
    JoinPlan plan;
};

JoinPlanMode mode_arg(Typed<nb::str> mode) {
    if (!nb::isinstance<nb::str>(mode)) throw nb::type_error("mode must be a str: 'auto', 'always' or 'never'");
    const std::string m = nb::cast<std::string>(mode);
    if (m == "auto") return JoinPlanMode::automatic;
    if (m == "always") return JoinPlanMode::always;
    if (m == "never") return JoinPlanMode::never;
    throw Error("join plan: mode must be 'auto', 'always' or 'never', got '" + m + "'");
}

const char* mode_name(JoinPlanMode m) {
    return m == JoinPlanMode::always ? "always" : m == JoinPlanMode::never ? "never" : "auto";
}

nb::dict costs_dict(const JoinCosts& c) {
    nb::dict d;
    d["filter_ns"] = c.filter_ns;
    d["table_miss_ns"] = c.table_miss_ns;
    d["insert_ns"] = c.insert_ns;
    return d;
}

JoinCosts costs_from(nb::handle costs) {
    if (!nb::isinstance<nb::dict>(costs))
        throw nb::type_error("costs must be a dict with the keys filter_ns, table_miss_ns and insert_ns");
    const nb::dict d = nb::borrow<nb::dict>(costs);
    if (d.size() != 3 || !d.contains("filter_ns") || !d.contains("table_miss_ns") || !d.contains("insert_ns"))
        throw Error("join plan: costs must have exactly the keys filter_ns, table_miss_ns and insert_ns");
    return {real_arg(d["filter_ns"], "costs['filter_ns']"), real_arg(d["table_miss_ns"], "costs['table_miss_ns']"),
            real_arg(d["insert_ns"], "costs['insert_ns']")};
}

JoinPlanOptions plan_options(Typed<nb::str> mode, Typed<float> min_gain, nb::handle table_miss_ns, nb::handle costs,
                             nb::handle table_compute_ns, nb::handle filter_compute_ns, nb::handle repeated_rows,
                             nb::handle table_row_ns, nb::handle probe_rows = nb::none()) {
    JoinPlanOptions o;
    if (!probe_rows.is_none()) o.probe_rows = int_arg(probe_rows, "probe_rows");
    o.mode = mode_arg(mode);
    o.min_gain = real_arg(min_gain, "min_gain");
    o.table_miss_ns = optional_real_arg(table_miss_ns, "table_miss_ns").value_or(0.0);
    o.table_compute_ns = optional_real_arg(table_compute_ns, "table_compute_ns").value_or(0.0);
    o.filter_compute_ns = optional_real_arg(filter_compute_ns, "filter_compute_ns").value_or(0.0);
    o.table_row_ns = optional_real_arg(table_row_ns, "table_row_ns").value_or(0.0);
    if (!costs.is_none()) o.costs = costs_from(costs);
    if (!repeated_rows.is_none()) o.repeated_rows = real_arg(repeated_rows, "repeated_rows");
    return o;
}

// The sample gathered into one span of its key kind (none: an empty one, for a forced mode).
JoinPlan make_plan(const JoinFilter& filter, nb::handle sample, const JoinPlanOptions& o) {
    Gathered all;
    if (!sample.is_none()) for_each_batch(sample, [&](const KeyBatch& b, std::size_t) { all.add(b, true); });
    nb::gil_scoped_release release;
    all.views.insert(all.views.end(), all.copies.begin(), all.copies.end());
    if (!all.views.empty()) return JoinPlan(filter, std::span<const std::string_view>(all.views), o);
    if (!all.narrow.empty()) return JoinPlan(filter, std::span<const std::uint32_t>(all.narrow), o);
    return JoinPlan(filter, std::span<const std::uint64_t>(all.ints), o);
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
            "plan",
            [](nb::handle self, nb::handle sample, Typed<nb::str> mode, Typed<float> min_gain, nb::handle table_miss_ns,
               nb::handle costs, nb::handle table_compute_ns, nb::handle filter_compute_ns, nb::handle repeated_rows,
               nb::handle table_row_ns, nb::handle probe_rows) {
                const JoinPlanOptions o = plan_options(mode, min_gain, table_miss_ns, costs, table_compute_ns,
                                                       filter_compute_ns, repeated_rows, table_row_ns, probe_rows);
                const PyJoin& join = nb::cast<const PyJoin&>(self);
                return PyPlan{nb::borrow(self), make_plan(join.filter, sample, o)};
            },
            "sample"_a.none() = nb::none(), nb::kw_only(), "mode"_a.none() = "auto", "min_gain"_a.none() = 1.25,
            "table_miss_ns"_a.none() = nb::none(), "costs"_a.none() = nb::none(), "table_compute_ns"_a.none() = nb::none(),
            "filter_compute_ns"_a.none() = nb::none(), "repeated_rows"_a.none() = nb::none(),
            "table_row_ns"_a.none() = nb::none(), "probe_rows"_a.none() = nb::none(),
            nb::sig("def plan(self, sample: numpy.typing.ArrayLike | collections.abc.Iterable[int | bytes | str] | None = None, "
                    "*, mode: typing.Literal['auto', 'always', 'never'] = 'auto', min_gain: float = 1.25, "
                    "table_miss_ns: float | None = None, costs: dict[str, float] | None = None, "
                    "table_compute_ns: float | None = None, filter_compute_ns: float | None = None, repeated_rows: float | None = None, "
                    "table_row_ns: float | None = None, probe_rows: int | None = None) -> JoinPlan"),
            "Decides whether this filter pays in front of a hash join (a JoinPlan; call its\n"
            "probe_batch for every probe batch). sample: probe-side keys (the first batch, a few\n"
            "thousand rows; None only with a forced mode); the filter pays where the fraction p of the\n"
            "sample it passes gives (1 - p) * saved / filter_ns >= min_gain, a dropped row saving a\n"
            "table miss (table_miss_ns) or, where its key repeats the row before's, only the table's\n"
            "compute (repeated_rows below). The costs are this\n"
            "machine's, measured per process (measured_join_costs, string keys at the sample's mean\n"
            "length), unless given: table_miss_ns, the host's own time per probe row that misses its hash\n"
            "table, or costs, the whole model (the keys of measured_join_costs). table_compute_ns and\n"
            "filter_compute_ns: the host's table work and the filter's per missing row with every line\n"
            "in cache, timed side by side on the same keys, probe rows in their order (a key's repeats\n"
            "cost the table less); each cost is then the larger of the model's and the work, and given\n"
            "table_compute_ns the plan no longer hopes that dropped repeats miss. repeated_rows: the fraction of probe rows whose key is the row before's (they\n"
            "find the table's line in cache, and dropping one saves only the table's compute); None\n"
            "counts it on the sample's adjacent rows. table_row_ns: the host's own time per probe row\n"
            "through its table, every row in the join's order (e.g. its first batches sent straight to\n"
            "the table, timed): what the table really costs the join, which the model can miss by up to\n"
            "3x. probe_rows: the probe side's rows, where known: a filter whose build cost at most 3% of\n"
            "their probe work is tried on the join's batches wherever its best case (every dropped row a\n"
            "table miss, or where table_row_ns is given, saving half of it) is a clear win, whatever the estimate (as\n"
            "filter_may_pay does), and a trial gives at most an eighth of the join's batches to the way\n"
            "behind. mode: 'always' / 'never' force the answer.")
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

    nb::class_<PyPlan>(m, "JoinPlan",
                       "Whether a JoinFilter pays in front of a hash join, decided once (JoinFilter.plan) from\n"
                       "a probe-side sample and this machine's costs; probe_batch applies it to each probe\n"
                       "batch. Deterministic given the same sample, options and costs; no threads of its own.")
        .def(
            "__init__",
            [](PyPlan* self, nb::handle join, nb::handle sample, Typed<nb::str> mode, Typed<float> min_gain,
               nb::handle table_miss_ns, nb::handle costs, nb::handle table_compute_ns, nb::handle filter_compute_ns, nb::handle repeated_rows,
               nb::handle table_row_ns, nb::handle probe_rows) {
                if (!nb::isinstance<PyJoin>(join)) throw nb::type_error("join_filter must be a batchbloom.JoinFilter");
                const JoinPlanOptions o = plan_options(mode, min_gain, table_miss_ns, costs, table_compute_ns,
                                                       filter_compute_ns, repeated_rows, table_row_ns, probe_rows);
                const PyJoin& filter = nb::cast<const PyJoin&>(join);
                new (self) PyPlan{nb::borrow(join), make_plan(filter.filter, sample, o)};
            },
            "join_filter"_a, "sample"_a.none() = nb::none(), nb::kw_only(), "mode"_a.none() = "auto",
            "min_gain"_a.none() = 1.25, "table_miss_ns"_a.none() = nb::none(), "costs"_a.none() = nb::none(),
            "table_compute_ns"_a.none() = nb::none(), "filter_compute_ns"_a.none() = nb::none(), "repeated_rows"_a.none() = nb::none(),
            "table_row_ns"_a.none() = nb::none(), "probe_rows"_a.none() = nb::none(),
            nb::sig("def __init__(self, join_filter: JoinFilter, sample: numpy.typing.ArrayLike | "
                    "collections.abc.Iterable[int | bytes | str] | None = None, *, "
                    "mode: typing.Literal['auto', 'always', 'never'] = 'auto', min_gain: float = 1.25, "
                    "table_miss_ns: float | None = None, costs: dict[str, float] | None = None, "
                    "table_compute_ns: float | None = None, filter_compute_ns: float | None = None, repeated_rows: float | None = None, "
                    "table_row_ns: float | None = None, probe_rows: int | None = None) -> None"),
            "The same as join_filter.plan(sample, ...).")
        .def(
            "probe_batch",
            [](const PyPlan& self, nb::handle keys, nb::handle nulls) -> nb::object {
                std::vector<std::uint64_t> rows;
                const bool filters = self.plan.route_batch();
                // A batch passed through is read too, so that bad keys raise whatever the decision.
                for_each_batch(
                    keys,
                    [&](const KeyBatch& batch, std::size_t at) {
                        if (!filters) return;
                        nb::gil_scoped_release release;
                        for_each_span(batch, [&](const auto& k, std::size_t pos) {
                            for (const auto r : self.plan.filter().select(k)) rows.push_back(r + at + pos);
                        });
                    },
                    nulls_arg(nulls));
                if (!filters) return nb::none();
                return nb::cast(to_numpy(std::move(rows)));
            },
            "keys"_a.none(), nb::kw_only(), "nulls"_a.none() = "error",
            BATCHBLOOM_SIG_BATCH("probe_batch", "numpy.typing.NDArray[numpy.uint64] | None"),
            "One probe batch: the 0-based positions of the rows that may match, ascending (NumPy\n"
            "uint64; exactly JoinFilter.select's) where the plan filters, or None where it passes the\n"
            "batch through (every row goes on to the hash table).")
        .def(
            "report",
            [](const PyPlan& self, Typed<int> rows, bool filtered, Typed<float> ns) {
                const double t = real_arg(ns, "ns");
                const std::uint64_t n = int_arg(rows, "rows");
                self.plan.report(JoinBatch{filtered, 0, static_cast<std::size_t>(n)}, t);
            },
            "rows"_a, "filtered"_a, "ns"_a,
            nb::sig("def report(self, rows: int, filtered: bool, ns: float) -> None"),
            "The time (ns) the host spent on a batch of `rows` rows that probe_batch answered (filtered:\n"
            "it returned positions, not None), the plan's call and the host's table probes together.\n"
            "Where the estimate was borderline the plan compares both ways over the join (the first\n"
            "batches alternate, then the way behind gets one now and then) and leads with the faster\n"
            "by these reports; ignored where it does not compare.")
        .def_prop_ro(
            "filters", [](const PyPlan& self) { return self.plan.filters(); },
            "Whether probe batches go through the filter (the way ahead while the plan compares).")
        .def_prop_ro(
            "trying", [](const PyPlan& self) { return self.plan.trying(); },
            "Whether the plan compares both ways (it wants report()s).")
        .def_prop_ro(
            "mode", [](const PyPlan& self) { return std::string(mode_name(self.plan.options().mode)); },
            nb::sig("def mode(self) -> typing.Literal['auto', 'always', 'never']"), "'auto', 'always' or 'never'.")
        .def_prop_ro(
            "gain", [](const PyPlan& self) { return self.plan.gain(); },
            "Estimated table work saved over filter probes paid (0 with a forced mode and no sample).")
        .def_prop_ro(
            "sample_pass_fraction", [](const PyPlan& self) { return self.plan.sample_pass_fraction(); },
            "The fraction of the sample that the filter passes (matches and false positives).")
        .def_prop_ro(
            "repeated_rows", [](const PyPlan& self) { return self.plan.repeated_rows(); },
            "The fraction of probe rows taken to repeat the row before's key (given, or the sample's).")
        .def_prop_ro(
            "costs", [](const PyPlan& self) { return costs_dict(self.plan.costs()); },
            nb::sig("def costs(self) -> dict[str, float]"),
            "The costs the decision used, ns per row on one thread (zeros with a forced mode and no sample).")
        .def_prop_ro(
            "join_filter", [](const PyPlan& self) { return self.owner; },
            nb::sig("def join_filter(self) -> JoinFilter"), "The JoinFilter the plan applies.")
        .def_static(
            "filter_may_pay",
            [](Typed<int> build_keys, Typed<int> filter_bytes, bool string_keys, Typed<int> probe_rows,
               Typed<float> matched_fraction, Typed<nb::str> mode, Typed<float> min_gain, nb::handle table_miss_ns,
               nb::handle costs, nb::handle table_compute_ns, nb::handle filter_compute_ns, nb::handle repeated_rows,
               nb::handle table_row_ns, Typed<nb::str> backend) {
                const JoinPlanOptions o = plan_options(mode, min_gain, table_miss_ns, costs, table_compute_ns,
                                                       filter_compute_ns, repeated_rows, table_row_ns);
                return JoinPlan::filter_may_pay(int_arg(build_keys, "build_keys"), int_arg(filter_bytes, "filter_bytes"),
                                                string_keys, int_arg(probe_rows, "probe_rows"),
                                                real_arg(matched_fraction, "matched_fraction"), o, backend_arg(backend));
            },
            "build_keys"_a, "filter_bytes"_a, "string_keys"_a, "probe_rows"_a, "matched_fraction"_a, nb::kw_only(),
            "mode"_a.none() = "auto", "min_gain"_a.none() = 1.25, "table_miss_ns"_a.none() = nb::none(),
            "costs"_a.none() = nb::none(), "table_compute_ns"_a.none() = nb::none(),
            "filter_compute_ns"_a.none() = nb::none(), "repeated_rows"_a.none() = nb::none(),
            "table_row_ns"_a.none() = nb::none(), "backend"_a = "auto",
            nb::sig("def filter_may_pay(build_keys: int, filter_bytes: int, string_keys: bool, probe_rows: int, "
                    "matched_fraction: float, *, mode: typing.Literal['auto', 'always', 'never'] = 'auto', "
                    "min_gain: float = 1.25, table_miss_ns: float | None = None, "
                    "costs: dict[str, float] | None = None, table_compute_ns: float | None = None, "
                    "filter_compute_ns: float | None = None, repeated_rows: float | None = None, "
                    "table_row_ns: float | None = None, backend: str = 'auto') -> bool"),
            "Before building a JoinFilter: whether one of filter_bytes over build_keys keys may pay in\n"
            "front of a join of probe_rows rows of which matched_fraction (the host's estimate, from\n"
            "its own hash table) have a match, its build counted. Options as JoinFilter.plan's; backend\n"
            "the engine the JoinFilter will run on.");
    m.def(
        "measured_join_costs",
        [](Typed<int> build_keys, Typed<int> filter_bytes, bool string_keys, Typed<int> string_bytes,
           Typed<nb::str> backend) {
            const Backend engine = backend_arg(backend);
            const std::uint64_t keys = int_arg(build_keys, "build_keys"), bytes = int_arg(filter_bytes, "filter_bytes");
            const std::uint64_t length = int_arg(string_bytes, "string_bytes");
            JoinCosts c;
            {
                nb::gil_scoped_release release;
                c = measured_join_costs(keys, bytes, string_keys, static_cast<std::size_t>(length), engine);
            }
            return costs_dict(c);
        },
        "build_keys"_a, "filter_bytes"_a, "string_keys"_a = false, "string_bytes"_a = 24, "backend"_a = "auto",
        nb::sig("def measured_join_costs(build_keys: int, filter_bytes: int, string_keys: bool = False, "
                "string_bytes: int = 24, backend: str = 'auto') -> dict[str, float]"),
        "This machine's costs for a join plan, ns per row on one thread: filter_ns (a probe row\n"
        "through a join filter of filter_bytes), table_miss_ns (a probe row that misses a hash table\n"
        "of build_keys keys), insert_ns (a build key into the filter), for integer keys or strings of\n"
        "string_bytes on average, the filter on backend (CUDA weighed as the best CPU engine). Measured\n"
        "per engine at the first call for a size class (powers of two) and key\n"
        "class (integers; strings in steps of 16 bytes), a few milliseconds, at up to three moments of the\n"
        "process at least 50 ms apart (each cost the median of them), then cached for the process.");
}

}  // namespace batchbloom::python

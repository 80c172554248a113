#pragma once
// The parts of the Python API every filter type shares: batches and single keys, equality,
// copies, bytes, files and pickling. Each def_* adds methods to a nb::class_<Locked<F>>.
#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <filesystem>
#include <type_traits>
#include <limits>
#include <memory>
#include <vector>
#include <optional>
#include <string>
#include <variant>

#include <batchbloom/concurrent.hpp>

#include "args.hpp"
#include "keys.hpp"
#include "py_filter.hpp"
#include "serialize.hpp"

namespace batchbloom::python {

// The signatures help() and the stubs show for the batch calls (their arguments are taken as
// handles and checked in args.hpp / keys.hpp, which nanobind would show as `object | None`).
#define BATCHBLOOM_SIG_KEYS "keys: numpy.typing.ArrayLike | collections.abc.Iterable[int | bytes | str]"
#define BATCHBLOOM_SIG_NULLS "nulls: typing.Literal['error', 'skip'] = 'error'"
#define BATCHBLOOM_SIG_BATCH(name, result) \
    nb::sig("def " name "(self, " BATCHBLOOM_SIG_KEYS ", *, " BATCHBLOOM_SIG_NULLS ") -> " result)
#define BATCHBLOOM_SIG_KEYS_ONLY(name, result) nb::sig("def " name "(self, " BATCHBLOOM_SIG_KEYS ") -> " result)
#define BATCHBLOOM_SIG_KEY(name, result) nb::sig("def " name "(self, key: int | bytes | str) -> " result)

// Batches up to this size run with the GIL held when the lock is free: releasing it costs
// more than the work.
inline constexpr std::size_t short_batch = 256;

/// Params for n keys from exactly one of fpr and bits_per_key (`what` names the caller).
inline Params sizing(const char* what, nb::handle n_arg, nb::handle fpr_arg, nb::handle bits_per_key_arg,
                     nb::handle shape_arg) {
    const auto n = optional_int_arg(n_arg, "n", 1);
    const auto fpr = optional_real_arg(fpr_arg, "fpr");
    const auto bits_per_key = optional_real_arg(bits_per_key_arg, "bits_per_key");
    const auto shape = str_arg(shape_arg, "shape", shape_names);
    if (!n || fpr.has_value() == bits_per_key.has_value())
        throw nb::type_error((std::string(what) + "() takes n= and one of fpr= or bits_per_key=; " + what +
                              ".from_params() takes explicit parameters")
                                 .c_str());
    return fpr ? Params::for_fpr(*n, *fpr, parse_shape(shape))
               : Params::for_bits_per_key(*n, *bits_per_key, parse_shape(shape));
}

/// hash= and seed= (the library checks that the seed fits the kind).
inline Hashing hashing(Typed<nb::str> kind, Typed<int> seed) {
    return {parse_hash_kind(str_arg(kind, "hash", hash_names)), int_arg(seed, "seed")};
}

inline Backend backend_arg(nb::handle name) { return parse_backend(str_arg(name, "backend", backend_names)); }

/// A params= argument of type P (`name`: its Python name).
template <class P = Params>
const P& params_arg(nb::handle p, const char* name = "batchbloom.Params") {
    if (!nb::isinstance<P>(p))
        throw nb::type_error(("params must be a " + std::string(name) + ", not " +
                              nb::cast<std::string>(nb::str(p.type().attr("__name__"))))
                                 .c_str());
    return nb::cast<const P&>(p);
}

using BoolArray = nb::ndarray<nb::numpy, bool, nb::ndim<1>>;

/// A NumPy bool array of the answers to `keys`: answer(batch, out) writes those of each batch.
template <class Answer>
BoolArray answers_array(nb::handle keys, Answer&& answer, Nulls nulls = Nulls::never) {
    auto out = std::make_unique<std::vector<std::uint8_t>>();  // NumPy's bool is one byte, 0 or 1
    out->reserve(1);
    for_each_batch(keys, [&](const KeyBatch& batch, std::size_t at) {
        out->resize(at + batch.size());
        answer(batch, out->data() + at);
    }, nulls);
    const std::size_t n = out->size();
    std::uint8_t* data = out->data();
    nb::capsule owner(out.get(), [](void* p) noexcept { delete static_cast<std::vector<std::uint8_t>*>(p); });
    out.release();
    return BoolArray(data, {n}, owner);
}

/// The number of `keys` that may be present: count(batch) gives each batch's.
template <class Count>
std::size_t count_batches(nb::handle keys, Count&& count, Nulls nulls = Nulls::never) {
    std::size_t c = 0;
    for_each_batch(keys, [&](const KeyBatch& batch, std::size_t) { c += count(batch); }, nulls);
    return c;
}

template <class F>
BoolArray contains_array(const Locked<F>& self, nb::handle keys, nb::handle nulls) {
    return answers_array(
        keys,
        [&](const KeyBatch& batch, std::uint8_t* out) {
            read_locked(self, batch.size() <= short_batch, [&](const F& f) { contains(f, batch, out); });
        },
        nulls_arg(nulls));
}

/// fn(filter, key) for one Python key (int, bytes or str): converted while the GIL is held,
/// then passed on as a uint64 or a string_view under the filter's exclusive lock (write_key)
/// or its shared lock (read_key).
template <class F, class Fn>
auto write_key(Locked<F>& self, nb::handle key, Fn&& fn) {
    const Key k = key_from_python(key);
    return write_locked(self, true, [&](F& f) { return std::visit([&](auto v) { return fn(f, v); }, k); });
}
template <class F, class Fn>
auto read_key(const Locked<F>& self, nb::handle key, Fn&& fn) {
    const Key k = key_from_python(key);
    return read_locked(self, true, [&](const F& f) { return std::visit([&](auto v) { return fn(f, v); }, k); });
}

/// insert, add, contains, count, `in`.
template <class F>
void def_keys(nb::class_<Locked<F>>& cls) {
    using L = Locked<F>;
    auto insert_keys = [](L& self, nb::handle keys, nb::handle nulls) {
        for_each_batch(
            keys,
            [&](const KeyBatch& batch, std::size_t) {
                write_locked(self, batch.size() <= short_batch, [&](F& f) { insert(f, batch); });
            },
            nulls_arg(nulls));
    };
    cls.def("insert", insert_keys, nb::arg("keys").none(), nb::kw_only(), nb::arg("nulls").none() = "error",
            BATCHBLOOM_SIG_BATCH("insert", "None"),
            "Inserts a batch of keys: a NumPy uint64/int64/uint32/int32 array (read in place; the\n"
            "other byte order converted in small chunks), Arrow data of integers, strings or binary\n"
            "(any width, large, view and dictionary forms; a polars Series, a pyarrow Array or\n"
            "ChunkedArray, a pandas Arrow-backed column), or an iterable of ints, bytes or str. An\n"
            "iterable is converted 2**18 keys at a time, so memory stays bounded; a bad key raises\n"
            "after the chunks before its own were inserted. nulls: 'error' raises ValueError for an\n"
            "Arrow null or a None in an iterable, 'skip' leaves them out.")
        .def("update", insert_keys, nb::arg("keys").none(), nb::kw_only(), nb::arg("nulls").none() = "error",
             BATCHBLOOM_SIG_BATCH("update", "None"),
             "insert(keys), by the name sets and rbloom use.")
        .def(
            "add",
            [](L& self, nb::handle key) { write_key(self, key, [](F& f, auto k) { f.insert(k); }); },
            nb::arg("key").none(), BATCHBLOOM_SIG_KEY("add", "None"), "Inserts one key (int, bytes or str).")
        .def("contains", &contains_array<F>, nb::arg("keys").none(), nb::kw_only(), nb::arg("nulls").none() = "error",
             BATCHBLOOM_SIG_BATCH("contains", "numpy.typing.NDArray[numpy.bool_]"),
             "A NumPy bool array: True where the key may be present, False where it is certainly absent\n"
             "(and, with nulls='skip', for an Arrow null or a None).")
        .def(
            "count",
            [](const L& self, nb::handle keys, nb::handle nulls) {
                return count_batches(
                    keys,
                    [&](const KeyBatch& batch) {
                        return read_locked(self, batch.size() <= short_batch, [&](const F& f) { return count(f, batch); });
                    },
                    nulls_arg(nulls));
            },
            nb::arg("keys").none(), nb::kw_only(), nb::arg("nulls").none() = "error", BATCHBLOOM_SIG_BATCH("count", "int"),
            "Number of keys in the batch that may be present (skipped nulls are not).")
        .def(
            "__contains__",
            [](const L& self, nb::handle key) {
                return read_key(self, key, [](const F& f, auto k) { return f.contains(k); });
            },
            nb::arg("key").none(), BATCHBLOOM_SIG_KEY("__contains__", "bool"));
}

/// |, &, |=, &= of two compatible filters (union: bit for bit the filter of both key sets).
template <class F>
void def_set_algebra(nb::class_<Locked<F>>& cls, const char* or_doc, const char* and_doc) {
    using L = Locked<F>;
    auto combined = [](const L& a, const L& b, auto op) {
        return pair_locked<std::shared_lock>(a, b, [&](const F& x, const F& y) { return L(op(x, y)); });
    };
    // In place: returns the left operand itself, so `a |= b` keeps the same Python object.
    auto in_place = [](nb::handle self_obj, const L& other, auto op) {
        auto& self = nb::cast<L&>(self_obj);
        pair_locked<std::unique_lock>(self, other, [&](F& a, const F& b) { op(a, b); });
        return nb::borrow(self_obj);
    };
    cls.def(
           "__or__",
           [combined](const L& a, const L& b) { return combined(a, b, [](const F& x, const F& y) { return x | y; }); },
           nb::is_operator(), or_doc)
        .def(
            "__and__",
            [combined](const L& a, const L& b) { return combined(a, b, [](const F& x, const F& y) { return x & y; }); },
            nb::is_operator(), and_doc)
        .def(
            "__ior__",
            [in_place](nb::handle a, const L& b) { return in_place(a, b, [](F& x, const F& y) { x |= y; }); },
            nb::is_operator(), nb::sig("def __ior__(self, other: typing.Self, /) -> typing.Self"))
        .def(
            "__iand__",
            [in_place](nb::handle a, const L& b) { return in_place(a, b, [](F& x, const F& y) { x &= y; }); },
            nb::is_operator(), nb::sig("def __iand__(self, other: typing.Self, /) -> typing.Self"))
        .def(
            "union",
            [combined](const L& a, const L& b) { return combined(a, b, [](const F& x, const F& y) { return x | y; }); },
            nb::arg("other"), "a | other, as a new filter.")
        .def(
            "intersection",
            [combined](const L& a, const L& b) { return combined(a, b, [](const F& x, const F& y) { return x & y; }); },
            nb::arg("other"), "a & other, as a new filter.")
        .def(
            "issubset",
            [](const L& a, const L& b) {
                return pair_locked<std::shared_lock>(a, b, [](const F& x, const F& y) { return (x & y) == x; });
            },
            nb::arg("other"),
            "Whether every bit set in this filter is set in other (a compatible filter: same\n"
            "parameters and hashing, else ValueError). Exact for the bits; for the keys it means\n"
            "every key this filter may hold, other may hold too (a subset of key sets gives a\n"
            "subset of bits; the converse holds up to false positives).")
        .def(
            "issuperset",
            [](const L& a, const L& b) {
                return pair_locked<std::shared_lock>(a, b, [](const F& x, const F& y) { return (x & y) == y; });
            },
            nb::arg("other"), "other.issubset(self).");
}

// Failures of file operations that are not about the file's content are OSErrors.
template <class Fn>
auto file_op(Fn&& fn) {
    try {
        return fn();
    } catch (const FormatError&) {
        throw;
    } catch (const Error& e) {
        PyErr_SetString(PyExc_OSError, e.what());
        throw nb::python_error();
    }
}

// A file object rather than a path: it has the method and is neither str nor os.PathLike.
inline bool is_file_object(nb::handle obj, const char* method) {
    return nb::hasattr(obj, method) && !PyUnicode_Check(obj.ptr()) && !nb::hasattr(obj, "__fspath__");
}

/// LoadOptions from a max_bytes argument (None: the library's default).
inline LoadOptions load_options(nb::handle max_bytes) {
    return LoadOptions{optional_int_arg(max_bytes, "max_bytes", 1)};
}

template <class F>
Locked<F> copy_of(const Locked<F>& self) {
    return read_locked(self, false, [](const F& f) { return Locked<F>(f); });
}

template <class F>
nb::bytes locked_bytes(const Locked<F>& self) {
    std::shared_lock lock(self.mutex, std::defer_lock);
    {
        nb::gil_scoped_release release;  // a writer may hold the lock for a long batch
        lock.lock();
    }
    return to_bytes(self.filter);
}

/// ==, !=, copies, to_bytes/from_bytes, save/load, pickling; unhashable (mutable).
template <class F>
void def_value(nb::class_<Locked<F>>& cls) {
    using L = Locked<F>;
    // A static method returns the class by name (typing.Self is for methods only).
    static const std::string load_sig =
        "def load(file: str | os.PathLike[str] | typing.BinaryIO, *, max_bytes: int | None = None) -> " +
        nb::cast<std::string>(cls.attr("__name__"));
    cls.def(
           "__eq__",
           [](const L& a, const L& b) { return pair_locked<std::shared_lock>(a, b, [](const F& x, const F& y) { return x == y; }); },
           nb::is_operator())
        .def(
            "__ne__",
            [](const L& a, const L& b) { return pair_locked<std::shared_lock>(a, b, [](const F& x, const F& y) { return !(x == y); }); },
            nb::is_operator())
        .def("copy", &copy_of<F>, "An independent copy.")
        .def("__copy__", &copy_of<F>)
        .def("__deepcopy__", [](const L& self, nb::handle) { return copy_of(self); }, nb::arg("memo"))
        .def("to_bytes", &locked_bytes<F>, "The filter in its file format (what save() writes).")
        .def_static(
            "from_bytes",
            [](Typed<nb::bytes> data, Typed<int> max_bytes) { return L(from_bytes<F>(data, load_options(max_bytes))); },
            nb::arg("data"), nb::kw_only(), nb::arg("max_bytes").none() = nb::none(),
            "A filter from to_bytes() output or a saved file's contents (any bytes-like object).\n"
            "Raises FormatError if it is not exactly one valid filter, or if it needs more memory\n"
            "than max_bytes (as for load()).")
        .def(
            "save",
            [](const L& self, nb::handle target) {
                if (is_file_object(target, "write")) {
                    write_all(target, locked_bytes(self));
                    return;
                }
                const auto path = nb::cast<std::filesystem::path>(target);
                file_op([&] {
                    read_locked(self, false, [&](const F& f) {
                        // A ConcurrentFilter view may insert under the same shared lock: then
                        // a snapshot, whose checksum is of what it read (costs a copy).
                        if constexpr (std::is_same_v<F, Filter>)
                            if (self.viewed) return ConcurrentFilter(const_cast<Filter&>(f)).save(path);
                        f.save(path);
                    });
                });
            },
            nb::arg("file"), nb::sig("def save(self, file: str | os.PathLike[str] | typing.BinaryIO) -> None"),
            "Writes the filter to a path (str or os.PathLike) atomically (a temporary file, then\n"
            "rename; a symbolic link's target is replaced and the link kept; a FIFO or character\n"
            "device is written in place), or to a binary file object: its write() is called until\n"
            "every byte is written (a raw file may take fewer than it is given); OSError if it\n"
            "returns None (a non-blocking file) or no progress. A Filter saved (or turned into\n"
            "bytes, or pickled) while ConcurrentFilter views insert into it gives a snapshot that\n"
            "loads and holds every key inserted before the call.")
        .def_static(
            "load",
            [](nb::handle source, Typed<int> max_bytes) {
                const LoadOptions options = load_options(max_bytes);
                if (is_file_object(source, "read")) return L(load_file_object<F>(source, options));
                const auto path = nb::cast<std::filesystem::path>(source);
                return file_op([&] {
                    nb::gil_scoped_release release;
                    return L(load_exactly<F>(path, options));
                });
            },
            nb::arg("file"), nb::kw_only(), nb::arg("max_bytes").none() = nb::none(), nb::sig(load_sig.c_str()),
            "Reads a saved filter from a path or a binary file object (read to its end, into the\n"
            "filter's own memory); FormatError if it is corrupt, OSError if unreadable. max_bytes:\n"
            "the most memory the filter may need (its header is checked before anything is\n"
            "allocated; FormatError above it); None (default): the machine's physical memory.")
        .def_prop_ro(
            "key_kinds",
            [](const L& self) -> nb::object {
                const KeyKinds k = read_locked(self, true, [](const F& f) { return f.key_kinds(); });
                if (!k.recorded) return nb::none();
                nb::list kinds;
                if (k.integers) kinds.append("integers");
                if (k.bytes) kinds.append("bytes");
                return nb::frozenset(kinds);
            },
            nb::for_getter(nb::sig("def key_kinds(self) -> frozenset[typing.Literal['integers', 'bytes']] | None")),
            "The kinds of keys inserted, saved with the filter: a frozenset of 'integers' and 'bytes'\n"
            "(str keys count as bytes), or None when not recorded (a file from before the record).")
        .def("__getstate__", &locked_bytes<F>)
        .def("__setstate__", [](L* self, Typed<nb::bytes> state) { new (self) L(from_bytes<F>(state)); });
    cls.attr("__hash__") = nb::none();
}

/// name(self) -> fn(filter), read under the shared lock.
template <class F, class Fn>
void def_read(nb::class_<Locked<F>>& cls, const char* name, Fn fn, const char* doc) {
    cls.def(name, [fn](const Locked<F>& self) { return read_locked(self, false, fn); }, doc);
}

template <class F>
void def_clear(nb::class_<Locked<F>>& cls, const char* doc) {
    cls.def("clear", [](Locked<F>& self) { write_locked(self, false, [](F& f) { f.clear(); }); }, doc);
}

/// __init__(n, fpr, *, bits_per_key, shape, hash, seed, backend, threads) and
/// from_params(params, *, hash, seed, backend, threads) of a filter type built from Params.
template <class F>
void def_sized_constructors(nb::class_<Locked<F>>& cls, const char* name, const char* init_doc,
                            const char* from_params_doc) {
    using namespace nb::literals;
    using L = Locked<F>;
    static auto make = [](const Params& params, Typed<nb::str> hash, Typed<int> seed, Typed<nb::str> backend,
                          Typed<int> threads) {
        F f(params, hashing(hash, seed), backend_arg(backend));
        f.set_threads(threads_arg(threads));
        return L(std::move(f));
    };
    cls.def(
           "__init__",
           [name](L* self, Typed<int> n, Typed<float> fpr, Typed<float> bpk, Typed<nb::str> shape, Typed<nb::str> hash,
                  Typed<int> seed, Typed<nb::str> backend, Typed<int> threads) {
               new (self) L(make(sizing(name, n, fpr, bpk, shape), hash, seed, backend, threads));
           },
           "n"_a.none() = nb::none(), "fpr"_a.none() = nb::none(), nb::kw_only(), "bits_per_key"_a.none() = nb::none(),
           "shape"_a.none() = "word512", "hash"_a.none() = "xxh3", "seed"_a.none() = 0, "backend"_a.none() = "auto",
           "threads"_a.none() = 0, init_doc)
        .def_static(
            "from_params",
            [](Typed<Params> p, Typed<nb::str> hash, Typed<int> seed, Typed<nb::str> backend, Typed<int> threads) {
                return make(params_arg(p), hash, seed, backend, threads);
            },
            "params"_a.none(), nb::kw_only(), "hash"_a.none() = "xxh3", "seed"_a.none() = 0,
            "backend"_a.none() = "auto", "threads"_a.none() = 0, from_params_doc);
}

/// hash_kind and seed: the hashing every filter type keeps (classic filters add a scheme).
template <class F>
void def_hashing(nb::class_<Locked<F>>& cls, const char* kind_doc = "'xxh3' or 'murmur3'.",
                 const char* seed_doc = "The hash seed.") {
    using L = Locked<F>;
    cls.def_prop_ro("hash_kind", [](const L& self) { return std::string(to_string(self.filter.hashing().kind)); },
                    kind_doc)
        .def_prop_ro("seed", [](const L& self) { return self.filter.hashing().seed; }, seed_doc);
}

/// backend, and threads where the filter type has them: settings of the bulk calls, not part
/// of the filter's value (not saved, pickled or compared).
template <class F>
void def_engine(nb::class_<Locked<F>>& cls, const char* backend_doc) {
    using L = Locked<F>;
    cls.def_prop_rw(
        "backend", [](const L& self) { return std::string(to_string(self.filter.backend())); },
        [](L& self, Typed<nb::str> name) {
            const Backend b = backend_arg(name);
            write_locked(self, true, [&](F& f) { f.set_backend(b); });
        },
        nb::for_setter(nb::arg("value").none()), backend_doc);
    if constexpr (requires(F& f) { f.set_threads(f.threads()); })
        cls.def_prop_rw(
            "threads", [](const L& self) { return self.filter.threads(); },
            [](L& self, Typed<int> threads) {
                const unsigned t = threads_arg(threads);
                write_locked(self, true, [&](F& f) { f.set_threads(t); });
            },
            nb::for_setter(nb::arg("value").none()), "Threads of the bulk calls; 0 = every core.");
}

/// scratch_limit, scratch_bytes and release_scratch() of a filter whose partitioned path keeps
/// memory between calls (Filter, ScalableFilter): like the engine, not part of its value.
template <class F>
void def_scratch(nb::class_<Locked<F>>& cls, const char* limit_doc) {
    using L = Locked<F>;
    cls.def_prop_rw(
           "scratch_limit", [](const L& self) { return self.filter.scratch_limit(); },
           [](L& self, Typed<int> bytes) {
               const auto b = static_cast<std::size_t>(
                   int_arg(bytes, "scratch_limit", 0, std::numeric_limits<std::size_t>::max()));
               write_locked(self, true, [&](F& f) { f.set_scratch_limit(b); });
           },
           nb::for_setter(nb::arg("value").none()), limit_doc)
        // Asked without the lock: it may be read while probes run.
        .def_prop_ro("scratch_bytes", [](const L& self) { return self.filter.scratch_bytes(); },
                     "Bytes of scratch held now, as of the end of the last bulk call that used it.")
        .def("release_scratch", [](L& self) { write_locked(self, true, [](F& f) { f.release_scratch(); }); },
             "Gives the scratch back (the next bulk call that needs it allocates it again).");
}

/// The fields a blocked filter's repr shares: "shape='word512', blocks=.., k=.., hash='xxh3', seed=..".
inline std::string blocked_fields(const Params& p, const Hashing& h) {
    return "shape='" + std::string(to_string(p.shape)) + "', blocks=" + std::to_string(p.blocks) +
           ", k=" + std::to_string(p.k) + ", hash='" + std::string(to_string(h.kind)) +
           "', seed=" + std::to_string(h.seed);
}

}  // namespace batchbloom::python

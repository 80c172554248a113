// batchbloom._core.parquet: the split-block Bloom filters of Parquet files, as the CLI's
// `batchbloom parquet` handles them (add, list, probe), over include/batchbloom/parquet.hpp.
#include <batchbloom/parquet.hpp>

#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "py_filter.hpp"

namespace batchbloom::python {

namespace {

using namespace nb::literals;
namespace pq = batchbloom::parquet;

// The row groups a call covers: one (row_group=), or all.
std::vector<std::size_t> row_groups(const pq::Reader& reader, Typed<int> row_group) {
    const std::size_t groups = reader.metadata().row_groups.size();
    if (!row_group.is_none()) {
        const auto rg = std::size_t(int_arg(row_group, "row_group"));
        if (rg >= groups)
            throw nb::index_error(("row_group " + std::to_string(rg) + " out of range (the file has " +
                                   std::to_string(groups) + " row groups)")
                                      .c_str());
        return {rg};
    }
    std::vector<std::size_t> all(groups);
    for (std::size_t i = 0; i < groups; ++i) all[i] = i;
    return all;
}

// hash_value of one Python key as a value of the column: an int (or any integer, such as a
// NumPy one) for INT32 / INT64 within the column's range (unsigned for UINT_*), a real number
// for FLOAT / DOUBLE, str (UTF-8) or bytes for byte arrays; anything else is an error naming
// the key, its Python type and the column's.
std::uint64_t hash_key(nb::handle key, const pq::ColumnChunk& column) {
    PyObject* k = key.ptr();
    const bool is_bool = PyBool_Check(k);
    switch (column.type) {
        case pq::PhysicalType::int32:
        case pq::PhysicalType::int64: {
            if (is_bool || !PyIndex_Check(k)) break;
            const nb::object index = nb::steal(PyNumber_Index(k));
            if (!index.is_valid()) throw nb::python_error();
            int overflow = 0;
            const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
            if (overflow == 0) {
                if (v == -1 && PyErr_Occurred()) throw nb::python_error();
                return pq::hash_integer_key(column, std::int64_t(v));
            }
            if (overflow > 0) {
                const unsigned long long u = PyLong_AsUnsignedLongLong(index.ptr());
                if (!PyErr_Occurred()) return pq::hash_integer_key(column, std::uint64_t(u));
                PyErr_Clear();
            }
            // Past 64 bits: the text form says that it does not fit, in the same words.
            return pq::hash_text_key(column, nb::cast<std::string>(nb::str(index)));
        }
        case pq::PhysicalType::float32:
        case pq::PhysicalType::float64: {
            const PyNumberMethods* number = Py_TYPE(k)->tp_as_number;
            if (is_bool || number == nullptr || (number->nb_float == nullptr && number->nb_index == nullptr)) break;
            const double v = PyFloat_AsDouble(k);
            if (v == -1.0 && PyErr_Occurred()) throw nb::python_error();
            return column.type == pq::PhysicalType::float32 ? pq::hash_value(static_cast<float>(v)) : pq::hash_value(v);
        }
        case pq::PhysicalType::byte_array:
        case pq::PhysicalType::fixed_len_byte_array:
            if (PyUnicode_Check(k)) return pq::hash_value(nb::cast<std::string>(key));
            if (PyBytes_Check(k)) return pq::hash_value(std::string_view(PyBytes_AS_STRING(k), std::size_t(PyBytes_GET_SIZE(k))));
            break;
        default: return pq::hash_text_key(column, "");  // the error for a type Parquet cannot hash
    }
    throw Error("value " + nb::cast<std::string>(nb::repr(key)) + " (" +
                nb::cast<std::string>(nb::str(key.type().attr("__name__"))) + ") cannot be a key of " +
                pq::type_name(column) + " column '" + column.path + "'");
}

nb::list filter_rows(const std::vector<pq::AddedFilter>& added) {
    nb::list rows;
    for (const auto& a : added) {
        nb::dict row;
        row["row_group"] = a.row_group;
        row["column"] = a.column;
        row["values"] = a.values;
        row["distinct"] = a.distinct;
        row["distinct_exact"] = a.distinct_exact;
        row["bytes"] = a.bytes;
        row["predicted_fpr"] = a.predicted_fpr;
        row["replaced"] = a.replaced;
        rows.append(row);
    }
    return rows;
}

pq::AddOptions add_options(const std::vector<std::string>& columns, Typed<float> fpr, Typed<int> ndv, bool replace,
                           Typed<int> threads) {
    pq::AddOptions o;
    o.columns = columns;
    o.fpp = real_arg(fpr, "fpr");
    if (!ndv.is_none()) o.ndv = int_arg(ndv, "ndv", 1);
    o.replace = replace;
    o.threads = threads_arg(threads);
    return o;
}

nb::list add_file(const std::filesystem::path& in, const std::filesystem::path& out, const pq::AddOptions& o) {
    std::vector<pq::AddedFilter> added;
    {
        nb::gil_scoped_release release;
        added = pq::add_filters(in, out, o);
    }
    return filter_rows(added);
}

const char* outcome_name(pq::DatasetFile::Outcome o) {
    switch (o) {
        case pq::DatasetFile::Outcome::added: return "added";
        case pq::DatasetFile::Outcome::skipped: return "skipped";
        case pq::DatasetFile::Outcome::failed: break;
    }
    return "failed";
}

nb::dict file_row(const pq::DatasetFile& f) {
    nb::dict row;
    row["path"] = f.path.string();
    row["name"] = f.name;
    row["outcome"] = outcome_name(f.outcome);
    row["filters"] = filter_rows(f.filters);
    row["error"] = f.outcome == pq::DatasetFile::Outcome::failed ? nb::cast(f.error) : nb::none();
    return row;
}

// progress=True: the command-line program's progress line, on sys.stderr.
void progress_bar(std::size_t done, std::size_t total, const std::string& name) {
    const nb::object err = nb::module_::import_("sys").attr("stderr");
    err.attr("write")("\r\033[Kparquet add: " + std::to_string(done) + "/" + std::to_string(total) + " files, " + name +
                      (done == total ? "\r\033[K" : ""));
    err.attr("flush")();
}

nb::list add_dataset(const std::vector<std::filesystem::path>& paths, const pq::AddOptions& o, nb::handle progress) {
    const bool bar = progress.ptr() == Py_True;
    if (!progress.is_none() && !bar && !PyCallable_Check(progress.ptr()))
        throw nb::type_error("progress must be True, a callable (done, total, name) or None");
    std::vector<pq::DatasetFile> done;
    pq::DatasetListing listing;
    // The first exception the callback raises: the callback is not called again, the files go
    // on, and it is raised once they are done.
    std::optional<nb::python_error> raised;
    {
        nb::gil_scoped_release release;
        listing = pq::dataset_files(paths);
        pq::DatasetProgress report;
        if (!progress.is_none())
            report = [&](const pq::DatasetFile& f, std::size_t n, std::size_t total) {
                nb::gil_scoped_acquire acquire;
                if (raised) return;
                try {
                    if (bar) progress_bar(n, total, f.name);
                    else progress(n, total, f.name);
                } catch (nb::python_error& e) {
                    raised.emplace(std::move(e));
                }
            };
        done = pq::add_filters_to_dataset(std::move(listing.files), o, report);
    }
    if (raised) throw std::move(*raised);
    nb::list rows;
    for (const auto& f : done) rows.append(file_row(f));
    for (const auto& f : listing.unreadable) rows.append(file_row(f));
    return rows;
}

bool is_path(nb::handle h) { return PyUnicode_Check(h.ptr()) || PyObject_HasAttrString(h.ptr(), "__fspath__"); }

// One file to another (per-filter rows), or a dataset in place (per-file rows): what the
// command-line program's `parquet add IN --out OUT` and `parquet add DIR|FILE...` do.
nb::list add(nb::handle input, nb::handle output, const std::vector<std::string>& columns, Typed<float> fpr,
             Typed<int> ndv, bool replace, Typed<int> threads, nb::handle progress) {
    std::vector<std::filesystem::path> paths;
    if (is_path(input)) {
        paths.push_back(nb::cast<std::filesystem::path>(input));
    } else {
        if (PyBytes_Check(input.ptr())) throw nb::type_error("input is a path or a list of paths");
        for (nb::handle p : input) {
            if (!is_path(p)) throw nb::type_error("input is a path or a list of paths");
            paths.push_back(nb::cast<std::filesystem::path>(p));
        }
        if (paths.empty()) throw Error("input names no file or directory");
    }
    const pq::AddOptions o = add_options(columns, fpr, ndv, replace, threads);
    if (output.is_none()) return add_dataset(paths, o, progress);
    if (!is_path(output)) throw nb::type_error("output is a path, or None (in place)");
    const auto out = nb::cast<std::filesystem::path>(output);
    std::error_code ec;
    const bool directory = paths.size() == 1 && std::filesystem::is_directory(paths.front(), ec);
    if (paths.size() == 1 && !directory) {
        if (!progress.is_none()) throw Error("progress is for a dataset (output=None)");
        return add_file(paths.front(), out, o);
    }
    if (directory && std::filesystem::equivalent(paths.front(), out, ec)) return add_dataset(paths, o, progress);
    throw Error("a directory or several files are rewritten in place: output=None (output is for one input file)");
}

nb::list inspect(const std::filesystem::path& path, Typed<int> row_group) {
    const pq::Reader reader(path);
    nb::list rows;
    for (const std::size_t rg : row_groups(reader, row_group)) {
        const auto& group = reader.metadata().row_groups[rg];
        for (const auto& c : group.columns) {
            const auto filter = c.external ? std::nullopt : reader.bloom_filter(rg, c.path);
            nb::dict row;
            row["row_group"] = rg;
            row["column"] = c.path;
            row["type"] = std::string(pq::to_string(c.type));
            row["rows"] = group.num_rows;
            row["distinct"] = c.distinct_values ? nb::cast(*c.distinct_values) : nb::none();
            row["filter_bytes"] = filter ? nb::cast(filter->bytes()) : nb::none();
            row["fpr"] = filter ? nb::cast(filter->predicted_fpr()) : nb::none();
            rows.append(row);
        }
    }
    return rows;
}

using BoolArray = nb::ndarray<nb::numpy, bool, nb::ndim<1>>;

nb::dict probe(const std::filesystem::path& path, const std::string& column, nb::handle keys, Typed<int> row_group,
               bool count) {
    const pq::Reader reader(path);
    const auto groups = row_groups(reader, row_group);
    nb::dict result;
    if (groups.empty()) {
        const auto& names = reader.metadata().columns;
        if (std::find(names.begin(), names.end(), column) == names.end()) {
            std::string list;
            for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
            throw Error("no column '" + column + "' in '" + path.string() + "' (columns: " + list + ")");
        }
        return result;
    }
    const pq::ColumnChunk& chunk = reader.column_chunk(groups.front(), column);
    std::vector<std::uint64_t> hashes;
    for (nb::handle key : keys) hashes.push_back(hash_key(key, chunk));
    for (const std::size_t rg : groups) {
        auto hits = std::make_unique<std::vector<std::uint8_t>>(hashes.size(), std::uint8_t{1});
        // A row group without a filter may hold any key.
        if (const auto filter = reader.bloom_filter(rg, column)) filter->contains_hashes(hashes, *hits);
        if (count) {
            std::size_t n = 0;
            for (const auto h : *hits) n += h;
            result[nb::cast(rg)] = n;
            continue;
        }
        std::uint8_t* data = hits->data();
        nb::capsule owner(hits.get(), [](void* p) noexcept { delete static_cast<std::vector<std::uint8_t>*>(p); });
        const std::size_t n = hits->size();
        hits.release();
        result[nb::cast(rg)] = BoolArray(data, {n}, owner);
    }
    return result;
}

}  // namespace

void bind_parquet(nb::module_& m) {
    nb::module_ p = m.def_submodule("parquet", "Split-block Bloom filters of Parquet files (batchbloom parquet).");
    p.def("add", &add, "input"_a, "output"_a.none(), "columns"_a, nb::kw_only(), "fpr"_a.none() = 0.01,
          "ndv"_a.none() = nb::none(), "replace"_a = false, "threads"_a.none() = 0, "progress"_a.none() = nb::none(),
          nb::sig("def add(input: str | os.PathLike[str] | collections.abc.Sequence[str | os.PathLike[str]], "
                  "output: str | os.PathLike[str] | None, columns: list[str], *, fpr: float = 0.01, "
                  "ndv: int | None = None, replace: bool = False, threads: int = 0, "
                  "progress: bool | collections.abc.Callable[[int, int, str], object] | None = None) -> "
                  "list[dict[str, typing.Any]]"),
          "Gives every row group a split-block Bloom filter for each of `columns` (dotted paths),\n"
          "sized for the chunk's distinct count (or ndv) at fpr. Chunks that have a filter keep it;\n"
          "replace=True rebuilds them. As `batchbloom parquet add`.\n"
          "\n"
          "One file, output a path: writes a copy of `input` to `output` (it may be `input`) and\n"
          "returns one dict per filter written: row_group, column, values, distinct, distinct_exact,\n"
          "bytes, predicted_fpr, replaced. (`parquet add IN --column C --out OUT`.)\n"
          "\n"
          "A dataset, output=None (or output=input for a directory): `input` is a file, a directory or\n"
          "a list of them; every *.parquet / *.parq file under the directories (hive partitions\n"
          "included; names starting with '_' or '.' skipped) is rewritten in place, atomically each,\n"
          "several at a time (threads in all); files that have every filter are skipped, so a second\n"
          "run does what the first left. Returns one dict per file: path, name (its path under the\n"
          "directory given), outcome ('added', 'skipped' or 'failed'), filters (as above) and error\n"
          "(why it failed, else None). A file that fails, or an entry that cannot be read (a symbolic\n"
          "link loop, a directory), is reported there and the rest are done: check the outcomes.\n"
          "progress: True for a progress line on sys.stderr, or a callable(done, total, name) called\n"
          "after each file. (`parquet add DIR|FILE... --column C`.)\n"
          "\n"
          "Every add that rewrites a file in place holds the file's lock (batchbloom.lock) meanwhile,\n"
          "as the command-line program does, so concurrent adds to one file take turns.");
    p.def("inspect", &inspect, "path"_a, nb::kw_only(), "row_group"_a.none() = nb::none(),
          nb::sig("def inspect(path: str | os.PathLike[str], *, row_group: int | None = None) -> "
                  "list[dict[str, typing.Any]]"),
          "One dict per column chunk (of every row group, or of row_group): row_group, column, type,\n"
          "rows, distinct (None when unknown), filter_bytes and fpr (None without a filter). As\n"
          "`batchbloom parquet FILE [--row-group I]`.");
    p.def("probe", &probe, "path"_a, "column"_a, "keys"_a, nb::kw_only(), "row_group"_a.none() = nb::none(),
          "count"_a = false,
          nb::sig("def probe(path: str | os.PathLike[str], column: str, keys: typing.Iterable[int | float | str | bytes], "
                  "*, row_group: int | None = None, count: bool = False) -> dict[int, typing.Any]"),
          "For each row group (or row_group), a NumPy bool array: True where the key may be in the\n"
          "group's column chunk (a group without a filter may hold every key); with count=True, the\n"
          "number of such keys instead. Keys are values of the column's type: ints for INT32/INT64\n"
          "(unsigned ones up to 2**32 - 1 / 2**64 - 1 for UINT_32 / UINT_64), floats for FLOAT/DOUBLE,\n"
          "str (UTF-8) or bytes for byte arrays; batchbloom.Error names a key that is none of them. As\n"
          "`batchbloom parquet FILE --column C --query KEYS [--count] [--row-group I]`.");
}

}  // namespace batchbloom::python

// batchbloom._core.parquet: the split-block Bloom filters of Parquet files, as the CLI's
// `batchbloom parquet` handles them (add, list, probe), over include/batchbloom/parquet.hpp.
#include <batchbloom/parquet.hpp>

#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

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

// hash_value of one Python key as a value of the column's physical type.
std::uint64_t hash_key(nb::handle key, pq::PhysicalType type) {
    switch (type) {
        case pq::PhysicalType::int32: return pq::hash_value(static_cast<std::int32_t>(nb::cast<std::int32_t>(key)));
        case pq::PhysicalType::int64: return pq::hash_value(nb::cast<std::int64_t>(key));
        case pq::PhysicalType::float32: return pq::hash_value(nb::cast<float>(key));
        case pq::PhysicalType::float64: return pq::hash_value(nb::cast<double>(key));
        case pq::PhysicalType::byte_array:
        case pq::PhysicalType::fixed_len_byte_array: {
            if (PyUnicode_Check(key.ptr())) return pq::hash_value(nb::cast<std::string>(key));
            if (PyBytes_Check(key.ptr()))
                return pq::hash_value(std::string_view(PyBytes_AS_STRING(key.ptr()), std::size_t(PyBytes_GET_SIZE(key.ptr()))));
            throw nb::type_error(("keys of a byte-array column are str or bytes, not " +
                                  nb::cast<std::string>(nb::str(key.type().attr("__name__"))))
                                     .c_str());
        }
        default: break;
    }
    throw Error("Parquet Bloom filters are not defined for " + std::string(pq::to_string(type)) + " columns");
}

nb::list add(const std::filesystem::path& in, const std::filesystem::path& out, const std::vector<std::string>& columns,
             Typed<float> fpr, Typed<int> ndv, bool replace, Typed<int> threads) {
    pq::AddOptions o;
    o.columns = columns;
    o.fpp = real_arg(fpr, "fpr");
    if (!ndv.is_none()) o.ndv = int_arg(ndv, "ndv", 1);
    o.replace = replace;
    o.threads = threads_arg(threads);
    std::vector<pq::AddedFilter> added;
    {
        nb::gil_scoped_release release;
        added = pq::add_filters(in, out, o);
    }
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
    if (groups.empty()) return result;
    const pq::PhysicalType type = reader.column_chunk(groups.front(), column).type;
    std::vector<std::uint64_t> hashes;
    for (nb::handle key : keys) hashes.push_back(hash_key(key, type));
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
    p.def("add", &add, "input"_a, "output"_a, "columns"_a, nb::kw_only(), "fpr"_a.none() = 0.01,
          "ndv"_a.none() = nb::none(), "replace"_a = false, "threads"_a.none() = 0,
          nb::sig("def add(input: str | os.PathLike[str], output: str | os.PathLike[str], columns: list[str], *, "
                  "fpr: float = 0.01, ndv: int | None = None, replace: bool = False, threads: int = 0) -> "
                  "list[dict[str, typing.Any]]"),
          "Writes a copy of the Parquet file `input` to `output` (it may be `input`) with a split-block\n"
          "Bloom filter in every row group for each of `columns` (dotted paths), sized for the chunk's\n"
          "distinct count (or ndv) at fpr; replace: rebuild filters the file already has. Returns one\n"
          "dict per filter written: row_group, column, values, distinct, distinct_exact, bytes,\n"
          "predicted_fpr, replaced. As `batchbloom parquet add IN --column C --fpr P --ndv N --replace\n"
          "--out OUT`.");
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
          "number of such keys instead. Keys are values of the column's physical type: ints for\n"
          "INT32/INT64, floats for FLOAT/DOUBLE, str (UTF-8) or bytes for byte arrays. As\n"
          "`batchbloom parquet FILE --column C --query KEYS [--count] [--row-group I]`.");
}

}  // namespace batchbloom::python

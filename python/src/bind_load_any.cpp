// batchbloom.load_any: whatever filter a saved file (or its bytes) holds, as its Python type.
#include <batchbloom/classic.hpp>
#include <batchbloom/counting.hpp>
#include <batchbloom/deletable.hpp>
#include <batchbloom/file_kind.hpp>
#include <batchbloom/scalable.hpp>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bind_common.hpp"

namespace batchbloom::python {

namespace {

template <class F>
nb::object wrap(F f) {
    return nb::cast(Locked<F>(std::move(f)), nb::rv_policy::move);
}

template <class F>
nb::object load_path(const std::filesystem::path& path) {
    return wrap(file_op([&] {
        nb::gil_scoped_release release;
        return F::load(path);
    }));
}

// A file: the library tells the kind (its header, or a Spark filter's first bytes).
nb::object load_file(const std::filesystem::path& path) {
    const bool classic = file_op([&] {
        nb::gil_scoped_release release;
        return is_classic_filter_file(path);
    });
    if (classic)
        return wrap(file_op([&] {
            nb::gil_scoped_release release;
            return load_classic_filter_file(path);
        }));
    const FileKind kind = file_op([&] { return file_kind(path); });
    switch (kind) {
        case FileKind::plain: return load_path<Filter>(path);
        case FileKind::counting: return load_path<CountingFilter>(path);
        case FileKind::deletable: return load_path<DeletableFilter>(path);
        case FileKind::scalable: return load_path<ScalableFilter>(path);
        case FileKind::classic: return load_path<ClassicFilter>(path);
    }
    throw FormatError("'" + path.string() + "': unknown filter kind " + std::to_string(unsigned(kind)));
}

// Why each loader refused; loaders that refused for the same reason share one entry.
class Refusals {
public:
    void add(const char* type, const char* why) {
        if (!whys_.empty() && whys_.back() == why)
            types_.back() += std::string(", ") + type;
        else {
            types_.emplace_back(type);
            whys_.emplace_back(why);
        }
    }
    std::string str() const {
        std::string s;
        for (std::size_t i = 0; i < whys_.size(); ++i) s += (i ? "; as " : "as ") + types_[i] + ": " + whys_[i];
        return s;
    }

private:
    std::vector<std::string> types_, whys_;
};

template <class F>
bool try_bytes(nb::handle data, nb::object& out, Refusals& refusals, const char* name) {
    try {
        out = wrap(from_bytes<F>(data));
        return true;
    } catch (const FormatError& e) {
        refusals.add(name, e.what());
        return false;
    }
}

// Bytes: each type's own loader decides (a loader refuses another kind at its header, before
// it reads the payload).
nb::object load_bytes(nb::handle data) {
    nb::object out;
    Refusals refusals;
    if (try_bytes<Filter>(data, out, refusals, "Filter") ||
        try_bytes<CountingFilter>(data, out, refusals, "CountingFilter") ||
        try_bytes<DeletableFilter>(data, out, refusals, "DeletableFilter") ||
        try_bytes<ScalableFilter>(data, out, refusals, "ScalableFilter") ||
        try_bytes<ClassicFilter>(data, out, refusals, "ClassicFilter"))
        return out;
    std::optional<ClassicFilter> spark;
    try {
        BufferView view(data);
        nb::gil_scoped_release release;
        spark.emplace(
            ClassicFilter::from_spark_bytes(std::span(reinterpret_cast<const std::byte*>(view.data()), view.size())));
    } catch (const FormatError& e) {
        refusals.add("a Spark BloomFilter", e.what());
    }
    if (spark) return wrap(std::move(*spark));
    throw FormatError("not a saved filter of any kind (" + refusals.str() + ")");
}

}  // namespace

void bind_load_any(nb::module_& m) {
    m.def(
        "load_any",
        [](nb::handle source) {
            if (PyUnicode_Check(source.ptr()) || PyObject_HasAttrString(source.ptr(), "__fspath__"))
                return load_file(nb::cast<std::filesystem::path>(source));
            if (!PyObject_CheckBuffer(source.ptr()))
                throw nb::type_error(("load_any() takes a path (str or os.PathLike) or a bytes-like object, not " +
                                      nb::cast<std::string>(nb::str(source.type().attr("__name__"))))
                                         .c_str());
            return load_bytes(source);
        },
        nb::arg("source").none(),
        "The filter a saved file holds, as its own type: Filter, CountingFilter, DeletableFilter,\n"
        "ScalableFilter or ClassicFilter (batchbloom's files, and Apache Spark's serialized\n"
        "BloomFilter). source: a path, or the file's bytes (any bytes-like object). FormatError\n"
        "if it is no filter, OSError if the file cannot be read.");
}

}  // namespace batchbloom::python

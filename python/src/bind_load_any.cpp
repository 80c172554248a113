// batchbloom.load_any: whatever filter a saved file (or its bytes) holds, as its Python type.
#include <batchbloom/any_filter.hpp>

#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "bind_common.hpp"

namespace batchbloom::python {

namespace {

nb::object wrap(AnyFilter any) {
    return std::visit([](auto& f) { return nb::cast(Locked<std::decay_t<decltype(f)>>(std::move(f)), nb::rv_policy::move); },
                      any);
}

// The library tells the kind (a batchbloom header, a zstd frame, or a Spark filter's first bytes).
nb::object load_file(const std::filesystem::path& path) {
    return wrap(file_op([&] {
        nb::gil_scoped_release release;
        return load_any(path);
    }));
}

nb::object load_bytes(Typed<nb::bytes> data) {
    BufferView view(data);
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(view.data()), view.size());
    std::optional<AnyFilter> f;
    {
        nb::gil_scoped_release release;
        f.emplace(load_any(bytes));
    }
    return wrap(std::move(*f));
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
        nb::sig("def load_any(source: str | os.PathLike[str] | bytes | bytearray | memoryview) -> "
                "Filter | CountingFilter | DeletableFilter | ScalableFilter | ClassicFilter"),
        "The filter a saved file holds, as its own type: Filter, CountingFilter, DeletableFilter,\n"
        "ScalableFilter or ClassicFilter (batchbloom's files, and Apache Spark's serialized\n"
        "BloomFilter). source: a path, or the file's bytes (any bytes-like object). FormatError\n"
        "if it is no filter, OSError if the file cannot be read.");
}

}  // namespace batchbloom::python

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
// One open and one read of the path (the library's), so '/dev/stdin', a pipe or a FIFO loads.
nb::object load_file(const std::filesystem::path& path, const LoadOptions& options) {
    return wrap(file_op([&] {
        nb::gil_scoped_release release;
        return load_any(path, options);
    }));
}

nb::object load_bytes(Typed<nb::bytes> data, const LoadOptions& options) {
    BufferView view(data);
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(view.data()), view.size());
    std::optional<AnyFilter> f;
    {
        nb::gil_scoped_release release;
        f.emplace(load_any(bytes, options));
    }
    return wrap(std::move(*f));
}

}  // namespace

void bind_load_any(nb::module_& m) {
    m.def(
        "load_any",
        [](nb::handle source, Typed<int> max_bytes) {
            const LoadOptions options = load_options(max_bytes);
            if (PyUnicode_Check(source.ptr()) || PyObject_HasAttrString(source.ptr(), "__fspath__"))
                return load_file(nb::cast<std::filesystem::path>(source), options);
            if (!PyObject_CheckBuffer(source.ptr()))
                throw nb::type_error(("load_any() takes a path (str or os.PathLike) or a bytes-like object, not " +
                                      nb::cast<std::string>(nb::str(source.type().attr("__name__"))))
                                         .c_str());
            return load_bytes(source, options);
        },
        nb::arg("source").none(), nb::kw_only(), nb::arg("max_bytes").none() = nb::none(),
        nb::sig("def load_any(source: str | os.PathLike[str] | bytes | bytearray | memoryview, *, "
                "max_bytes: int | None = None) -> "
                "Filter | CountingFilter | DeletableFilter | ScalableFilter | ClassicFilter"),
        "The filter a saved file holds, as its own type: Filter, CountingFilter, DeletableFilter,\n"
        "ScalableFilter or ClassicFilter (batchbloom's files, and Apache Spark's serialized\n"
        "BloomFilter). source: a path, or the file's bytes (any bytes-like object); a path is\n"
        "read once, so '/dev/stdin', a pipe or a FIFO loads like a file. max_bytes: the most\n"
        "memory the filter may need, checked against its header before anything is allocated\n"
        "(None, the default: the machine's physical memory). FormatError if it is no filter or\n"
        "needs more than max_bytes, OSError if the file cannot be read.");
}

}  // namespace batchbloom::python

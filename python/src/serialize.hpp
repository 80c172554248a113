#pragma once
// Filters to and from bytes in their file format (the bytes save() writes), for pickling and
// for shipping filters between processes (e.g. Spark partitions).
#include <nanobind/nanobind.h>

#include <cstddef>
#include <ostream>
#include <span>
#include <streambuf>
#include <string>

#include <batchbloom/any_filter.hpp>
#include <batchbloom/error.hpp>

namespace batchbloom::python {

namespace nb = nanobind;

/// A stream buffer that only counts what is written to it.
class CountingBuffer : public std::streambuf {
public:
    std::size_t size() const { return size_; }

protected:
    std::streamsize xsputn(const char*, std::streamsize n) override;
    int_type overflow(int_type c) override;

private:
    std::size_t size_ = 0;
};

/// A stream buffer over caller-owned memory: writes past the end fail instead of growing.
class FixedBuffer : public std::streambuf {
public:
    FixedBuffer(char* data, std::size_t size);
    std::size_t written() const { return std::size_t(pptr() - pbase()); }
};

/// A contiguous read-only view of a bytes-like object (buffer protocol), released on destruction.
class BufferView {
public:
    explicit BufferView(nb::handle obj);
    BufferView(const BufferView&) = delete;
    BufferView& operator=(const BufferView&) = delete;
    ~BufferView();
    char* data() const { return static_cast<char*>(view_.buf); }
    std::size_t size() const { return std::size_t(view_.len); }

private:
    Py_buffer view_{};
};

/// The saved-file bytes of `f`, written straight into a new bytes object: the filter is
/// saved once to measure the size and once into the object (cheaper than a second copy).
template <class F>
nb::bytes to_bytes(const F& f) {
    CountingBuffer counter;
    {
        nb::gil_scoped_release release;
        std::ostream stream(&counter);
        f.save(stream);
    }
    nb::object out = nb::steal(PyBytes_FromStringAndSize(nullptr, Py_ssize_t(counter.size())));
    if (!out.is_valid()) throw nb::python_error();
    FixedBuffer buf(PyBytes_AS_STRING(out.ptr()), counter.size());
    {
        nb::gil_scoped_release release;
        std::ostream stream(&buf);
        f.save(stream);
    }
    if (buf.written() != counter.size())
        throw Error("serializing the filter wrote " + std::to_string(buf.written()) + " bytes, then " +
                    std::to_string(counter.size()));
    return nb::borrow<nb::bytes>(out);
}

/// Reads a filter from any contiguous buffer (bytes, bytearray, memoryview, NumPy uint8) in
/// place; throws FormatError unless it is exactly one valid filter, by the library's own check
/// (load_exactly), so from_bytes refuses what load_any and the CLI refuse. Checksums run
/// without the GIL.
template <class F>
F from_bytes(nb::handle obj) {
    BufferView view(obj);
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(view.data()), view.size());
    nb::gil_scoped_release release;
    return load_exactly<F>(bytes);
}

}  // namespace batchbloom::python

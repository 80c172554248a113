#pragma once
// Filters to and from bytes in their file format (the bytes save() writes), for pickling and
// for shipping filters between processes (e.g. Spark partitions).
#include <nanobind/nanobind.h>

#include <cstddef>
#include <istream>
#include <ostream>
#include <span>
#include <streambuf>
#include <string>
#include <vector>

#include <batchbloom/any_filter.hpp>
#include <batchbloom/error.hpp>
#include <batchbloom/filter.hpp>

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

/// A Filter's saved-file bytes, from a snapshot (ConcurrentFilter::save): the shared lock that
/// to_bytes, save and pickling hold lets ConcurrentFilter views insert meanwhile
/// (bind_concurrent.cpp), and a snapshot's checksum is of the bytes it wrote, so the bytes
/// always load. Written straight into the bytes object: no second copy.
nb::bytes to_bytes(const Filter& f);

/// Reads a filter from any contiguous buffer (bytes, bytearray, memoryview, NumPy uint8) in
/// place; throws FormatError unless it is exactly one valid filter, by the library's own check
/// (load_exactly), so from_bytes refuses what load_any and the CLI refuse. Checksums run
/// without the GIL.
template <class F>
F from_bytes(nb::handle obj, const LoadOptions& options = {}) {
    BufferView view(obj);
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(view.data()), view.size());
    nb::gil_scoped_release release;
    return load_exactly<F>(bytes, options);
}

/// Writes all of `data` with file.write(), which may write less than it is given (a raw file
/// object, io.RawIOBase): writes the rest until done; raises OSError if write() returns None
/// (a non-blocking file that would block) or a count that is no progress.
void write_all(nb::handle file, const nb::bytes& data);

/// A binary file object's bytes as a stream, read with its readinto() (else read()), so that a
/// loader reads them into the filter's own storage; Python's exceptions propagate. The GIL must
/// be held while it is read.
class FileObjectBuf : public PullBuf {
public:
    explicit FileObjectBuf(nb::handle file);

private:
    /// Up to n bytes into dst from the file; 0 at its end.
    std::size_t read_some(char* dst, std::size_t n);

    nb::handle file_;
    bool readinto_;
};

/// A filter of type F from the rest of a file object (FileObjectBuf), by load_exactly: nothing
/// may follow it.
template <class F>
F load_file_object(nb::handle file, const LoadOptions& options) {
    FileObjectBuf buf(file);
    std::istream in(&buf);
    in.exceptions(std::ios::badbit);  // Python's exceptions reach the caller as they are
    return load_exactly<F>(in, options);
}

}  // namespace batchbloom::python

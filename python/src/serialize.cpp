#include "serialize.hpp"

#include <batchbloom/concurrent.hpp>

#include <algorithm>
#include <cstring>

namespace batchbloom::python {

std::streamsize CountingBuffer::xsputn(const char*, std::streamsize n) {
    size_ += std::size_t(n);
    return n;
}

CountingBuffer::int_type CountingBuffer::overflow(int_type c) {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    ++size_;
    return c;
}

FixedBuffer::FixedBuffer(char* data, std::size_t size) { setp(data, data + size); }

BufferView::BufferView(nb::handle obj) {
    if (PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
}

BufferView::~BufferView() { PyBuffer_Release(&view_); }

namespace {

[[noreturn]] void os_error(const std::string& message) {
    PyErr_SetString(PyExc_OSError, message.c_str());
    throw nb::python_error();
}

}  // namespace

nb::bytes to_bytes(const Filter& f) {
    // Reads only (relaxed atomic loads); the view type wants a mutable filter.
    const ConcurrentFilter view(const_cast<Filter&>(f));
    const std::size_t size = view.saved_size();
    nb::object out = nb::steal(PyBytes_FromStringAndSize(nullptr, Py_ssize_t(size)));
    if (!out.is_valid()) throw nb::python_error();
    {
        nb::gil_scoped_release release;
        view.save(std::span(reinterpret_cast<std::byte*>(PyBytes_AS_STRING(out.ptr())), size));
    }
    return nb::borrow<nb::bytes>(out);
}

void write_all(nb::handle file, const nb::bytes& data) {
    const auto* p = static_cast<const char*>(data.data());
    const std::size_t size = data.size();
    std::size_t done = 0;
    while (done < size) {
        const nb::object view =
            nb::steal(PyMemoryView_FromMemory(const_cast<char*>(p + done), Py_ssize_t(size - done), PyBUF_READ));
        if (!view.is_valid()) throw nb::python_error();
        const nb::object wrote = file.attr("write")(view);
        if (wrote.is_none())
            os_error("the file's write() returned None after " + std::to_string(done) + " of " + std::to_string(size) +
                     " bytes (a non-blocking file that would block)");
        const auto n = nb::cast<long long>(wrote);
        if (n <= 0 || std::uint64_t(n) > size - done)
            os_error("the file's write() returned " + std::to_string(n) + " for " + std::to_string(size - done) +
                     " bytes (after " + std::to_string(done) + ")");
        done += std::size_t(n);
    }
}

FileObjectBuf::FileObjectBuf(nb::handle file)
    : PullBuf([this](char* dst, std::size_t n) { return read_some(dst, n); }, std::size_t(1) << 16),
      file_(file),
      readinto_(nb::hasattr(file, "readinto")) {}

std::size_t FileObjectBuf::read_some(char* dst, std::size_t n) {
    if (readinto_) {
        const nb::object view = nb::steal(PyMemoryView_FromMemory(dst, Py_ssize_t(n), PyBUF_WRITE));
        if (!view.is_valid()) throw nb::python_error();
        const nb::object got = file_.attr("readinto")(view);
        if (got.is_none()) os_error("the file's readinto() returned None (a non-blocking file with no data)");
        const auto k = nb::cast<long long>(got);
        if (k < 0 || std::uint64_t(k) > n)
            os_error("the file's readinto() returned " + std::to_string(k) + " for " + std::to_string(n) + " bytes");
        return std::size_t(k);
    }
    const nb::object got = file_.attr("read")(n);
    if (got.is_none()) os_error("the file's read() returned None (a non-blocking file with no data)");
    BufferView view(got);
    if (view.size() > n) os_error("the file's read() returned too much");
    std::memcpy(dst, view.data(), view.size());
    return view.size();
}

}  // namespace batchbloom::python

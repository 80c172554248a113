#include "serialize.hpp"

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

}  // namespace batchbloom::python

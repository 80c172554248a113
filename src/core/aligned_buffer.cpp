#include "batchbloom/aligned_buffer.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace batchbloom {

AlignedBuffer::AlignedBuffer(std::size_t bytes, Init init) {
    if (bytes == 0) return;
    const std::size_t align = bytes >= huge_page_threshold ? huge_page : line_alignment;
    const std::size_t rounded = (bytes + align - 1) / align * align;
    if (rounded < bytes) throw std::bad_alloc();  // wrapped around
    // posix_memalign, not aligned operator new: under AddressSanitizer only the former returns
    // failure (allocator_may_return_null) instead of aborting, and tests rely on failing cleanly.
    void* p = nullptr;
    if (posix_memalign(&p, align, rounded) != 0 || p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    if (align == huge_page) madvise(p, rounded, MADV_HUGEPAGE);  // advisory; failure is harmless
#endif
    // Zeroing touches every page: done after the advice, so the pages fault in as huge ones.
    if (init == Init::zeroed) std::memset(p, 0, rounded);
    data_ = static_cast<std::byte*>(p);
    size_ = bytes;
    alignment_ = align;
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
      alignment_(std::exchange(other.alignment_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
    if (this != &other) {
        reset();
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        alignment_ = std::exchange(other.alignment_, 0);
    }
    return *this;
}

AlignedBuffer::~AlignedBuffer() { reset(); }

void AlignedBuffer::reset() noexcept {
    std::free(data_);
    data_ = nullptr;
    size_ = 0;
    alignment_ = 0;
}

AlignedBuffer AlignedBuffer::clone() const {
    AlignedBuffer copy(size_, Init::uninitialized);
    if (size_ != 0) std::memcpy(copy.data_, data_, size_);
    return copy;
}

}  // namespace batchbloom

#include "batchbloom/aligned_buffer.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <cerrno>
#include <new>
#include <system_error>
#include <utility>

#include "core/mapping_guard.hpp"

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

AlignedBuffer AlignedBuffer::map_readonly(int fd, std::size_t offset, std::size_t bytes) {
    if (bytes == 0 || offset % line_alignment != 0 || offset + bytes < offset)
        throw std::system_error(std::make_error_code(std::errc::invalid_argument), "map_readonly");
    const std::size_t length = offset + bytes;
    void* p = mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap");
    AlignedBuffer b;
    b.map_base_ = p;
    b.map_length_ = length;
    b.data_ = static_cast<std::byte*>(p) + offset;  // mappings start on a page: offset keeps 64-byte alignment
    b.size_ = bytes;
    b.alignment_ = line_alignment;
    b.guard_ = detail::guard_mapping(p, length);
    return b;
}

bool AlignedBuffer::mapping_lost() const noexcept { return detail::mapping_lost(guard_); }

AlignedBuffer::AlignedBuffer(AlignedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
      alignment_(std::exchange(other.alignment_, 0)), map_base_(std::exchange(other.map_base_, nullptr)),
      map_length_(std::exchange(other.map_length_, 0)), guard_(std::exchange(other.guard_, -1)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
    if (this != &other) {
        reset();
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        alignment_ = std::exchange(other.alignment_, 0);
        map_base_ = std::exchange(other.map_base_, nullptr);
        map_length_ = std::exchange(other.map_length_, 0);
        guard_ = std::exchange(other.guard_, -1);
    }
    return *this;
}

AlignedBuffer::~AlignedBuffer() { reset(); }

void AlignedBuffer::reset() noexcept {
    if (map_base_ != nullptr) {
        detail::unguard_mapping(guard_);
        munmap(map_base_, map_length_);  // fails only for arguments mmap did not return
    } else {
        std::free(data_);
    }
    guard_ = -1;
    map_base_ = nullptr;
    map_length_ = 0;
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

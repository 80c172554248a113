#pragma once
// The one owner of the library's large allocations: every filter's bits, counters and
// collision bitmaps and the bulk operations' scratch memory live in an AlignedBuffer.
//
// Alignment. Blocks are read a cache line at a time, so storage is 64-byte aligned. Buffers
// of 4 MiB and more are aligned to 2 MiB and advised into transparent huge pages
// (madvise(MADV_HUGEPAGE), effective in THP's "madvise" and "always" modes): filters that
// large are random-access bound, and huge pages remove most of their TLB misses.
//
// Empty state. A default-constructed or moved-from buffer is empty: data() is null and
// size() is 0. Moving never allocates and never throws.
#include <cstddef>
#include <cstdint>
#include <span>

namespace batchbloom {

class AlignedBuffer {
public:
    enum class Init : std::uint8_t {
        zeroed,         ///< every byte zero
        uninitialized,  ///< for memory the caller overwrites before it reads it
    };

    static constexpr std::size_t line_alignment = 64;
    static constexpr std::size_t huge_page = std::size_t(2) << 20;
    /// From this size on, buffers are 2 MiB-aligned and advised into huge pages.
    static constexpr std::size_t huge_page_threshold = 2 * huge_page;

    AlignedBuffer() noexcept = default;
    /// `bytes` bytes (0 gives an empty buffer). Throws std::bad_alloc if the memory cannot be
    /// had (bulk operations fall back to paths that need none; filters report Error).
    AlignedBuffer(std::size_t bytes, Init init);

    AlignedBuffer(AlignedBuffer&& other) noexcept;
    AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
    AlignedBuffer(const AlignedBuffer&) = delete;
    AlignedBuffer& operator=(const AlignedBuffer&) = delete;
    ~AlignedBuffer();

    /// A buffer of the same size holding the same bytes. Throws std::bad_alloc.
    AlignedBuffer clone() const;
    /// Frees the memory; the buffer becomes empty.
    void reset() noexcept;

    std::byte* data() noexcept { return data_; }
    const std::byte* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    /// 64, or 2 MiB for large buffers; 0 when empty.
    std::size_t alignment() const noexcept { return alignment_; }

    std::span<std::byte> bytes() noexcept { return {data_, size_}; }
    std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }
    /// The storage as an array of T (T a trivial type; size() / sizeof(T) elements).
    template <class T>
    T* as() noexcept {
        return reinterpret_cast<T*>(data_);
    }
    template <class T>
    const T* as() const noexcept {
        return reinterpret_cast<const T*>(data_);
    }

private:
    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t alignment_ = 0;
};

}  // namespace batchbloom

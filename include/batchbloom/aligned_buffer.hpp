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
//
// Mapped mode. map_readonly() gives a buffer that owns a read-only memory mapping of a file
// instead of an allocation: it views part of the mapping, and its destructor (or reset) unmaps
// it. Its bytes must not be written (they are PROT_READ: a write faults); an owner that may
// hold a mapped buffer checks mapped() before it writes. clone() is always an allocation.
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

    /// A mapped buffer viewing bytes [offset, offset + bytes) of the open file `fd`, which holds
    /// at least offset + bytes bytes; offset is a multiple of 64, bytes is not 0. Maps the file
    /// from its start, read-only and shared (MAP_SHARED: every process mapping the file shares
    /// its pages in the page cache). The caller may close fd afterwards. Throws
    /// std::system_error if the file cannot be mapped.
    static AlignedBuffer map_readonly(int fd, std::size_t offset, std::size_t bytes);

    AlignedBuffer(AlignedBuffer&& other) noexcept;
    AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
    AlignedBuffer(const AlignedBuffer&) = delete;
    AlignedBuffer& operator=(const AlignedBuffer&) = delete;
    ~AlignedBuffer();

    /// A buffer of the same size holding the same bytes. Throws std::bad_alloc.
    AlignedBuffer clone() const;
    /// Frees the memory (or unmaps the mapping); the buffer becomes empty.
    void reset() noexcept;

    std::byte* data() noexcept { return data_; }
    const std::byte* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    /// Whether the bytes are a read-only file mapping (map_readonly) rather than an allocation.
    bool mapped() const noexcept { return map_base_ != nullptr; }
    /// Whether a read of this mapping found a page its file no longer has (the file was
    /// truncated in place while mapped): such pages read as zeros instead of raising SIGBUS
    /// (Linux), and the owner must not trust what it read since. False for allocations.
    bool mapping_lost() const noexcept;
    /// 64, or 2 MiB for large allocated buffers; 64 when mapped; 0 when empty.
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
    void* map_base_ = nullptr;  // the mapping's start when mapped (data_ lies inside it), else null
    std::size_t map_length_ = 0;
    int guard_ = -1;  // the mapping's slot in the SIGBUS guard (src/core/mapping_guard.hpp), or -1
};

}  // namespace batchbloom

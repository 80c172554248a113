#pragma once
// Host-pointer batches on the GPU: keys go through pinned staging buffers in chunks, on two
// streams, so that the host's copy of chunk c+1 into pinned memory, the transfers and the
// kernel of chunk c overlap, and a batch of any size needs only two chunks of device memory.
// Keys or results already in pinned host memory are transferred directly, without the copy.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "batchbloom/hash.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch.hpp"

namespace batchbloom::cuda_impl {

enum class Op : std::uint8_t { insert, contains_bytes, contains_bits, count };

/// A batch in host memory and how it becomes hashes.
struct HostBatch {
    const std::uint64_t* keys;
    std::size_t n;
    Hasher device_hash;       ///< applied by the kernel
    const Hashing* host_hash;  ///< if set, keys are hashed on the host while staged (Murmur3 integer keys)
};

class Staging {
public:
    /// Keys per chunk by default: 32 MiB of keys per stream.
    static constexpr std::size_t default_chunk = std::size_t(1) << 22;

    /// Streams and buffers on `device`; buffers are allocated on first use, sized to the batch
    /// up to `chunk` keys (rounded up to a multiple of 64, so bitmap chunks are whole words).
    explicit Staging(int device, std::size_t chunk = default_chunk);
    ~Staging();
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;

    int device() const noexcept { return device_; }
    void set_chunk(std::size_t keys);
    std::size_t chunk() const noexcept { return chunk_; }
    /// Host threads that copy (or hash) keys into the pinned buffers and results out of them
    /// (0: every core). One thread's copy, not PCIe, bounds host-pointer batches.
    void set_threads(unsigned threads) noexcept { threads_ = threads; }

    /// Runs `op` over the batch against the device filter f and waits for the results: for
    /// contains_bytes `out` is n bytes, for contains_bits ceil(n/64) words, both host memory;
    /// returns the number of hits for count, else 0. Throws Error on any CUDA failure, after
    /// waiting for the work already queued (the buffers stay valid until it is done).
    std::uint64_t run(const DeviceRef& f, const HostBatch& in, Op op, void* out);

private:
    struct Slot;
    void reserve(std::size_t keys);

    int device_;
    std::size_t chunk_;
    unsigned threads_ = 1;  // one: the engine-table path calls from many host threads at once
    unsigned grid_cap_;
    std::size_t capacity_ = 0;
    std::unique_ptr<Slot> slots_[2];
    DeviceBuffer counters_;
};

/// Staging objects shared by the Engine-table path, one per concurrent caller and device; they
/// are kept for reuse (pinned memory is slow to allocate) and never freed: the process's exit
/// releases them, and a destructor running after the CUDA runtime has shut down would fail.
class StagingLease {
public:
    explicit StagingLease(int device);
    ~StagingLease();
    StagingLease(const StagingLease&) = delete;
    StagingLease& operator=(const StagingLease&) = delete;
    Staging& operator*() const noexcept { return *s_; }
    Staging* operator->() const noexcept { return s_.get(); }

private:
    std::unique_ptr<Staging> s_;
};

}  // namespace batchbloom::cuda_impl

#pragma once
// Filters in GPU memory: the CUDA engine's host API.
//
// Available when batchbloom was built with CUDA: the build defines BATCHBLOOM_HAVE_CUDA=1 for
// its users then (0 otherwise), and this header's functions exist only in such a build. It
// includes no CUDA header: a stream is passed as `stream_t`, which is a cudaStream_t.
//
// A DeviceFilter has the layout, parameters and hashing of a host Filter, so the two convert
// both ways byte for byte (DeviceFilter(const Filter&), to_host()): build on the GPU, probe on
// the CPU, or the other way round. Its operations take keys
//   - in device memory (the `_device` functions): no copies; `_async` forms queue the work on
//     a stream and return at once, the others are the `_async` form on the default stream
//     plus a wait for that stream;
//   - in host memory (span arguments): synchronous; the batch goes through pinned staging
//     buffers in chunks on two streams, host copies, transfers and kernels overlapped, so a
//     batch may be larger than the GPU's memory. Keys or results already in pinned memory
//     (cudaMallocHost, cudaHostRegister) are transferred directly.
// Every CUDA failure throws batchbloom::Error naming the CUDA call or kernel; nothing aborts.
// Results never depend on the device, the stream, the chunking or the order of operations:
// bits are only ever ORed in.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "error.hpp"
#include "filter.hpp"
#include "hash.hpp"
#include "params.hpp"

namespace batchbloom {

/// True when this process can run the CUDA engine: the runtime found a driver and a current
/// device of compute capability 8.0 or newer (the kernels are built for sm_80 and sm_90, with
/// PTX for later GPUs). Any error from the CUDA runtime (no driver, no device) means false.
/// Never throws; checked once per process.
bool cuda_device_available() noexcept;

/// Why cuda_device_available() is false, in words, e.g. "no CUDA device: cudaGetDeviceCount
/// failed: CUDA driver version is insufficient for CUDA runtime version
/// (cudaErrorInsufficientDriver)"; empty when it is true.
std::string cuda_unavailable_reason();

namespace cuda {

/// A CUDA stream: a cudaStream_t, passed as an opaque pointer so that this header needs no
/// CUDA header. nullptr is the legacy default stream.
using stream_t = void*;

/// What the 64-bit values passed to an operation are.
enum class Input : std::uint8_t {
    keys,    ///< integer keys, hashed with the filter's Hashing (like Filter::insert(span<const uint64_t>))
    hashes,  ///< hashes already, as from hash_key() / Filter::hash() (like Filter::insert_hashes)
};

/// A blocked Bloom filter in the memory of one GPU.
///
/// Integer keys in device memory need HashKind::xxh3 (its integer hash, mix64, runs inside the
/// kernels); with HashKind::murmur3 pass hashes (Input::hashes) or host keys, which are hashed
/// on the host while they are staged. String keys: hash them on the host (Filter::hash) and
/// pass the hashes.
///
/// Thread safety: the host-pointer operations share the filter's staging buffers and take a
/// lock; device-pointer operations may be issued from several threads. Concurrent inserts and
/// probes of one filter are safe but a probe may or may not see a concurrent insert's bits.
class DeviceFilter {
public:
    /// Keys per staging chunk for host-pointer batches by default (32 MiB of keys per stream).
    static constexpr std::size_t default_chunk_keys = std::size_t(1) << 22;

    /// An empty filter in the memory of `device` (-1: the current device). Throws Error on
    /// invalid params or hashing, or when the device or its memory is not available.
    explicit DeviceFilter(const Params& params, const Hashing& hashing = {}, int device = -1);
    /// A copy of a host filter (params, hashing and bits).
    explicit DeviceFilter(const Filter& host, int device = -1);

    DeviceFilter(DeviceFilter&&) noexcept;
    DeviceFilter& operator=(DeviceFilter&&) noexcept;
    DeviceFilter(const DeviceFilter&) = delete;
    DeviceFilter& operator=(const DeviceFilter&) = delete;
    /// Waits for the filter's own streams; frees its memory. Work the caller queued on other
    /// streams must be finished first (as for any device memory).
    ~DeviceFilter();

    const Params& params() const noexcept;
    const Hashing& hashing() const noexcept;
    int device() const noexcept;
    /// The blocks in device memory: params().bytes() bytes, little-endian words, 256-byte aligned.
    void* data() noexcept;
    const void* data() const noexcept;

    // ---- host copies ------------------------------------------------------------------------
    /// A host Filter with this filter's params, hashing and bits (synchronous).
    Filter to_host() const;
    /// Copies the bits into `host`, which must have the same params and hashing (synchronous).
    void copy_to(Filter& host) const;
    /// Replaces the bits with those of `host`, which must have the same params and hashing.
    void copy_from(const Filter& host);
    /// Sets every bit to zero.
    void clear();
    void clear_async(stream_t stream);

    // ---- keys in device memory --------------------------------------------------------------
    // `keys`, `out`, `bitmap` and `count` point to device memory (or managed memory); n is the
    // number of keys. The `_async` forms return once the work is queued on `stream`; the
    // memory must stay valid until the stream reaches it.

    void insert_device(const std::uint64_t* keys, std::size_t n, Input input = Input::keys);
    void insert_device_async(const std::uint64_t* keys, std::size_t n, stream_t stream, Input input = Input::keys);

    /// out[i] = 1 if keys[i] may be present, else 0.
    void contains_device(const std::uint64_t* keys, std::size_t n, std::uint8_t* out, Input input = Input::keys) const;
    void contains_device_async(const std::uint64_t* keys, std::size_t n, std::uint8_t* out, stream_t stream,
                               Input input = Input::keys) const;

    /// Packed bitmap: bit i (word i/64, bit i%64) = may-contain of keys[i]; ceil(n/64) words are
    /// written, bits past n zero.
    void contains_bitmap_device(const std::uint64_t* keys, std::size_t n, std::uint64_t* bitmap,
                                Input input = Input::keys) const;
    void contains_bitmap_device_async(const std::uint64_t* keys, std::size_t n, std::uint64_t* bitmap,
                                      stream_t stream, Input input = Input::keys) const;

    /// Number of keys that may be present.
    std::size_t count_device(const std::uint64_t* keys, std::size_t n, Input input = Input::keys) const;
    /// Adds the number of keys that may be present to *count (device memory).
    void count_device_async(const std::uint64_t* keys, std::size_t n, std::uint64_t* count, stream_t stream,
                            Input input = Input::keys) const;

    // ---- keys in host memory (synchronous; chunked through pinned staging) -------------------

    void insert(std::span<const std::uint64_t> keys, Input input = Input::keys);
    /// out.size() must equal keys.size().
    void contains(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out, Input input = Input::keys) const;
    /// bitmap.size() must be >= ceil(keys.size() / 64); bits past keys.size() in the last word are zero.
    void contains_bitmap(std::span<const std::uint64_t> keys, std::span<std::uint64_t> bitmap,
                         Input input = Input::keys) const;
    std::size_t count(std::span<const std::uint64_t> keys, Input input = Input::keys) const;

    /// Keys per staging chunk of host-pointer batches (rounded up to a multiple of 64); two
    /// chunks of keys and results are held in pinned and in device memory.
    void set_chunk_keys(std::size_t keys);
    std::size_t chunk_keys() const noexcept;

    /// Host threads of host-pointer batches: they copy (or, for HashKind::murmur3 keys, hash)
    /// each chunk of keys into pinned memory and the results out of it; 0 (the default) means
    /// every core, as for Filter. On one thread that copy, not PCIe, bounds such batches: on an
    /// H200 with 16 host cores, 64M-key batches ran at 0.64-0.73 G keys/s on one and 5.1-5.8 on
    /// all (docs/cuda.md). Each call starts its own team: several host threads driving filters
    /// at once share the cores.
    void set_threads(unsigned threads);
    unsigned threads() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace cuda
}  // namespace batchbloom

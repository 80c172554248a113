#pragma once
// Kernel launchers of the CUDA engine (kernels.cu). Host code: the kernels themselves stay in
// kernels.cu, thin grid-stride loops around device_ops.cuh. Every launcher checks the launch
// and throws batchbloom::Error naming the kernel; execution errors surface at the next
// synchronizing call (checked by its caller).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "batchbloom/layout.hpp"
#include "cuda/device_ops.cuh"

namespace batchbloom::cuda_impl {

/// A filter resident on the device, shape chosen at run time.
struct DeviceRef {
    void* data;             ///< block `base` of the filter (device memory)
    std::uint64_t blocks;   ///< block count of the whole filter
    std::uint64_t base;     ///< first resident block
    Shape shape;
    unsigned k;
};

/// Launch geometry for a batch of n keys on the current device.
struct Launch {
    cudaStream_t stream;
    unsigned max_blocks;  ///< cap on the grid (grid-stride loops do the rest); see grid_cap()
};

/// A grid cap that fills every SM of `device` at full occupancy, twice over.
unsigned grid_cap(int device);

/// Inserts n keys (device memory) into f.
void launch_insert(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h, const Launch& l);
/// out[i] = probe(keys[i]) as 0/1 bytes (device memory).
void launch_contains_bytes(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h, std::uint8_t* out,
                           const Launch& l);
/// Packed bitmap, ceil(n/64) words; bits past n are zero (device memory).
void launch_contains_bits(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h, std::uint64_t* out,
                          const Launch& l);
/// *count += number of hits (device memory, unsigned long long).
void launch_count(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                  unsigned long long* count, const Launch& l);

}  // namespace batchbloom::cuda_impl

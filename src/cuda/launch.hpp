#pragma once
// Kernel launchers of the CUDA engine. The kernels (kernels.cuh) are instantiated per block
// shape in kernels_<shape>.cu, compiled by nvcc; launch.cpp dispatches on the run-time shape.
// Every launcher checks the launch and throws batchbloom::Error naming the kernel; errors
// during execution surface at the next synchronizing call, which its caller checks.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/types.hpp"

namespace batchbloom::cuda_impl {

/// Where and how wide to launch: grid-stride kernels take at most `max_blocks` blocks.
struct Launch {
    cudaStream_t stream;
    unsigned max_blocks;
};

/// Threads per block of every kernel.
inline constexpr unsigned threads_per_block = 256;

/// A grid cap for `device`: every SM filled at full occupancy, twice over.
unsigned grid_cap(int device);

/// Inserts keys[0, n) (device memory).
void launch_insert(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h, const Launch& l);
/// out[i] = 1 if keys[i] may be present, else 0 (device memory).
void launch_contains_bytes(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                           std::uint8_t* out, const Launch& l);
/// Packed bitmap of ceil(n/64) words (device memory); bits past n are zero.
void launch_contains_bits(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                          std::uint64_t* out, const Launch& l);
/// *count += the number of keys that may be present (device memory).
void launch_count(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                  unsigned long long* count, const Launch& l);

/// The per-shape launchers behind the ones above (kernels_<shape>.cu).
template <Shape S>
struct ShapeLaunch {
    static void insert(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h, const Launch& l);
    static void contains_bytes(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                               std::uint8_t* out, const Launch& l);
    static void contains_bits(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                              std::uint64_t* out, const Launch& l);
    static void count(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                      unsigned long long* count, const Launch& l);
};

extern template struct ShapeLaunch<Shape::split256>;
extern template struct ShapeLaunch<Shape::word512>;
extern template struct ShapeLaunch<Shape::line512>;

}  // namespace batchbloom::cuda_impl

#pragma once
#include <cuda_runtime.h>

#include <cstddef>

/// Launches `reads` random reads of whole `block_bytes`-byte blocks (32 or 64) of the `bytes`
/// at buf (device memory), in_flight (1, 2, 4, else 8) per thread at a time, each block
/// read whole by one thread, or (tiled, in_flight unused) by block_bytes / 16 threads together, on `grid`
/// blocks of 256 threads on the default stream; returns the launch's error.
cudaError_t launch_random_reads(const void* buf, std::size_t bytes, unsigned block_bytes, std::size_t reads,
                                unsigned in_flight, bool tiled, unsigned grid, unsigned long long* sink);

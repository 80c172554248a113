// The GPU's random-read limit for batchbloom_cuda_bench: whole aligned blocks (32 or 64 bytes)
// read at hashed positions over a device buffer, the positions spread as the filter spreads
// keys (layout::block_index of mix64), with `in_flight` reads per thread issued before any is
// used. Two ways to read a block: each thread reads its own blocks whole (16-byte loads, one
// block after another), as the engine's probe kernels do, or a tile of block_bytes / 16
// threads reads each block together, thread r its r-th 16 bytes (one coalesced request per
// block and load instruction). A probe of an HBM-resident filter does this plus its key loads
// and result stores, so the faster of the two is what a probe kernel can reach on the device.
#include "random_reads.hpp"

#include <cooperative_groups.h>

#include <batchbloom/hash.hpp>
#include <batchbloom/layout.hpp>

namespace {

template <unsigned Bytes, unsigned U>
__global__ void __launch_bounds__(256)
    random_reads(const uint4* __restrict__ buf, std::uint64_t blocks, std::size_t n, unsigned long long* sink) {
    constexpr unsigned Q = Bytes / 16;
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    unsigned acc = 0;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += U * stride) {
        uint4 v[U][Q];
#pragma unroll
        for (unsigned u = 0; u < U; ++u) {
            const std::size_t j = i + u * stride;
            const std::uint64_t b = batchbloom::layout::block_index(batchbloom::mix64(j, 0x5EED), blocks);
#pragma unroll
            for (unsigned q = 0; q < Q; ++q) v[u][q] = j < n ? __ldg(buf + b * Q + q) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (unsigned u = 0; u < U; ++u)
#pragma unroll
            for (unsigned q = 0; q < Q; ++q) acc ^= v[u][q].x ^ v[u][q].y ^ v[u][q].z ^ v[u][q].w;
    }
    if (acc == 0x9E3779B9u) atomicAdd(sink, 1ULL);  // keeps the loads; its rare truth costs nothing
}

/// The tiled form: the same n blocks (block j at the same hashed
/// position), each read by the Bytes / 16 threads of a tile together, so each thread has one
/// read of each of its tile's Bytes / 16 blocks in flight.
template <unsigned Bytes>
__global__ void __launch_bounds__(256)
    tiled_reads(const uint4* __restrict__ buf, std::uint64_t blocks, std::size_t n, unsigned long long* sink) {
    constexpr unsigned L = Bytes / 16;
    const auto tile = cooperative_groups::tiled_partition<L>(cooperative_groups::this_thread_block());
    const unsigned rank = tile.thread_rank();
    const unsigned lane = threadIdx.x % 32;
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    unsigned acc = 0;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i - lane < n; i += stride) {
        const std::uint64_t mine = batchbloom::layout::block_index(batchbloom::mix64(i, 0x5EED), blocks);
        uint4 v[L];
#pragma unroll
        for (unsigned q = 0; q < L; ++q) {
            const std::uint64_t b = tile.shfl(mine, q);
            v[q] = make_uint4(0, 0, 0, 0);  // (a select of the two spilled a register)
            if (i - rank + q < n) v[q] = __ldg(buf + b * L + rank);
        }
#pragma unroll
        for (unsigned q = 0; q < L; ++q) acc ^= v[q].x ^ v[q].y ^ v[q].z ^ v[q].w;
    }
    if (acc == 0x9E3779B9u) atomicAdd(sink, 1ULL);
}

template <unsigned Bytes>
void launch(unsigned in_flight, bool tiled, unsigned grid, const uint4* buf, std::uint64_t blocks, std::size_t n,
            unsigned long long* sink) {
    if (tiled) {
        tiled_reads<Bytes><<<grid, 256>>>(buf, blocks, n, sink);
        return;
    }
    switch (in_flight) {
        case 1: random_reads<Bytes, 1><<<grid, 256>>>(buf, blocks, n, sink); break;
        case 2: random_reads<Bytes, 2><<<grid, 256>>>(buf, blocks, n, sink); break;
        case 4: random_reads<Bytes, 4><<<grid, 256>>>(buf, blocks, n, sink); break;
        default: random_reads<Bytes, 8><<<grid, 256>>>(buf, blocks, n, sink); break;
    }
}

}  // namespace

cudaError_t launch_random_reads(const void* buf, std::size_t bytes, unsigned block_bytes, std::size_t reads,
                                unsigned in_flight, bool tiled, unsigned grid, unsigned long long* sink) {
    const auto* b = static_cast<const uint4*>(buf);
    if (block_bytes == 32)
        launch<32>(in_flight, tiled, grid, b, bytes / 32, reads, sink);
    else
        launch<64>(in_flight, tiled, grid, b, bytes / 64, reads, sink);
    return cudaGetLastError();
}

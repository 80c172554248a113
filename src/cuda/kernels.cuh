#pragma once
// The CUDA engine's kernels: grid-stride loops around the per-key functions of device_ops.cuh.
// k is dispatched once per kernel (with_k), so every loop runs with a compile-time k; the key
// mode (integer mixer or ready hashes) stays a run-time argument. Included only by the
// kernels_<shape>.cu files, one per block shape, which nvcc builds in parallel.
#include <cooperative_groups.h>

#include <string>

#include "batchbloom/error.hpp"
#include "cuda/device_ops.cuh"
#include "cuda/launch.hpp"

namespace batchbloom::cuda_impl {
namespace kernels {

namespace cg = cooperative_groups;

__device__ __forceinline__ std::size_t thread_index() { return std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ std::size_t thread_count() { return std::size_t(gridDim.x) * blockDim.x; }

// Insert: tiles of 8 threads take 8 consecutive keys per step (coalesced key loads, one key
// and its hash per thread), then insert them together: key j's hash is broadcast to the tile
// by a shuffle, and thread r updates word r of key j's block (insert_step).
template <Shape S>
__global__ void __launch_bounds__(threads_per_block)
    insert(View<S> f, const std::uint64_t* __restrict__ keys, std::size_t n, Hasher h) {
    const auto tile = cg::tiled_partition<insert_group>(cg::this_thread_block());
    const unsigned rank = tile.thread_rank();
    with_k(f.k, [&](auto tag) {
        constexpr unsigned K = decltype(tag)::value;
        // i - rank, the tile's first key, is the same for the whole tile: the tile stays in step.
        for (std::size_t i = thread_index(); i - rank < n; i += thread_count()) {
            const std::uint64_t mine = i < n ? h(keys[i]) : 0;
            const std::size_t left = n - (i - rank);
            const unsigned count = left < insert_group ? static_cast<unsigned>(left) : insert_group;
            insert_step<S, K>(f, rank, count, [&](unsigned j) { return tile.shfl(mine, j); });
        }
    });
}

template <Shape S>
__global__ void __launch_bounds__(threads_per_block)
    contains_bytes(View<S> f, const std::uint64_t* __restrict__ keys, std::size_t n, Hasher h,
                   std::uint8_t* __restrict__ out) {
    with_k(f.k, [&](auto tag) {
        constexpr unsigned K = decltype(tag)::value;
        for (std::size_t i = thread_index(); i < n; i += thread_count()) out[i] = probe_k<S, K>(f, h(keys[i]));
    });
}

// Bitmap: each warp covers 32 consecutive keys per step (the grid's thread count is a multiple
// of 32), and its ballot is one 32-bit half of a little-endian 64-bit bitmap word.
template <Shape S>
__global__ void __launch_bounds__(threads_per_block)
    contains_bits(View<S> f, const std::uint64_t* __restrict__ keys, std::size_t n, Hasher h,
                  std::uint32_t* __restrict__ out) {
    const unsigned lane = threadIdx.x % 32;
    const std::size_t halves = (n + 31) / 32;
    with_k(f.k, [&](auto tag) {
        constexpr unsigned K = decltype(tag)::value;
        // i - lane, the warp's first key, is the same for the whole warp: the warp stays in step.
        for (std::size_t i = thread_index(); i - lane < n; i += thread_count()) {
            const bool hit = i < n && probe_k<S, K>(f, h(keys[i]));
            const unsigned bits = __ballot_sync(0xFFFFFFFFu, hit);
            if (lane == 0) {
                const std::size_t half = i / 32;
                out[half] = bits;
                // An odd number of halves leaves the high half of the last word: zero it.
                if (half + 1 == halves && halves % 2 == 1) out[half + 1] = 0;
            }
        }
    });
}

template <Shape S>
__global__ void __launch_bounds__(threads_per_block)
    count(View<S> f, const std::uint64_t* __restrict__ keys, std::size_t n, Hasher h,
          unsigned long long* __restrict__ total) {
    unsigned hits = 0;
    with_k(f.k, [&](auto tag) {
        constexpr unsigned K = decltype(tag)::value;
        for (std::size_t i = thread_index(); i < n; i += thread_count()) hits += probe_k<S, K>(f, h(keys[i]));
    });
    hits = __reduce_add_sync(0xFFFFFFFFu, hits);
    if (threadIdx.x % 32 == 0 && hits != 0) atomicAdd(total, static_cast<unsigned long long>(hits));
}

inline unsigned grid_for(std::size_t threads, const Launch& l) {
    const std::size_t blocks = (threads + threads_per_block - 1) / threads_per_block;
    return static_cast<unsigned>(blocks < l.max_blocks ? blocks : l.max_blocks);
}

inline void check_launch(const char* kernel, Shape s) {
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        throw Error(std::string("CUDA error in kernel launch ") + kernel + "<" +
                    (s == Shape::split256 ? "split256" : s == Shape::word512 ? "word512" : "line512") +
                    ">: " + cudaGetErrorString(err) + " (" + cudaGetErrorName(err) + ")");
}

}  // namespace kernels

template <Shape S>
void ShapeLaunch<S>::insert(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h, const Launch& l) {
    if (n == 0) return;
    kernels::insert<S><<<kernels::grid_for(n, l), threads_per_block, 0, l.stream>>>(view_of<S>(f), keys, n, h);
    kernels::check_launch("insert", S);
}

template <Shape S>
void ShapeLaunch<S>::contains_bytes(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                                    std::uint8_t* out, const Launch& l) {
    if (n == 0) return;
    kernels::contains_bytes<S><<<kernels::grid_for(n, l), threads_per_block, 0, l.stream>>>(view_of<S>(f), keys, n, h, out);
    kernels::check_launch("contains_bytes", S);
}

template <Shape S>
void ShapeLaunch<S>::contains_bits(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                                   std::uint64_t* out, const Launch& l) {
    if (n == 0) return;
    kernels::contains_bits<S><<<kernels::grid_for(n, l), threads_per_block, 0, l.stream>>>(
        view_of<S>(f), keys, n, h, reinterpret_cast<std::uint32_t*>(out));
    kernels::check_launch("contains_bits", S);
}

template <Shape S>
void ShapeLaunch<S>::count(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                           unsigned long long* total, const Launch& l) {
    if (n == 0) return;
    kernels::count<S><<<kernels::grid_for(n, l), threads_per_block, 0, l.stream>>>(view_of<S>(f), keys, n, h, total);
    kernels::check_launch("count", S);
}

}  // namespace batchbloom::cuda_impl

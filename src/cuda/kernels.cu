// The CUDA engine's kernels: grid-stride loops around the per-key functions of device_ops.cuh,
// one instantiation per block shape (k and the key mode are run-time arguments, so the build
// stays at 12 kernels per architecture).
#include <cooperative_groups.h>

#include <string>

#include "batchbloom/error.hpp"
#include "cuda/kernels.cuh"

namespace batchbloom::cuda_impl {
namespace {

namespace cg = cooperative_groups;

constexpr unsigned threads_per_block = 256;

__device__ __forceinline__ std::size_t thread_index() {
    return std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::size_t thread_count() { return std::size_t(gridDim.x) * blockDim.x; }

// Insert: tiles of 8 threads take 8 consecutive keys per step (coalesced key loads, one key
// and one hash per thread), then insert them together: key j's hash is broadcast to the tile
// by a shuffle and thread r updates word r of key j's block (insert_step).
template <Shape S>
__global__ void __launch_bounds__(threads_per_block) insert_kernel(View<S> f, const std::uint64_t* __restrict__ keys,
                                                                   std::size_t n, Hasher h) {
    const auto tile = cg::tiled_partition<insert_group>(cg::this_thread_block());
    const unsigned rank = tile.thread_rank();
    with_k(f.k, [&](auto tag) {
        constexpr unsigned K = decltype(tag)::value;
        // i - rank, the tile's first key, is the same for the whole tile: it stays in step.
        for (std::size_t i = thread_index(); i - rank < n; i += thread_count()) {
            const std::uint64_t mine = i < n ? h(keys[i]) : 0;
            const std::size_t left = n - (i - rank);
            const unsigned count = left < insert_group ? static_cast<unsigned>(left) : insert_group;
            insert_step<S, K>(f, rank, count, [&](unsigned j) { return tile.shfl(mine, j); });
        }
    });
}

template <Shape S>
__global__ void __launch_bounds__(threads_per_block) contains_bytes_kernel(View<S> f, const std::uint64_t* __restrict__ keys,
                                                                           std::size_t n, Hasher h,
                                                                           std::uint8_t* __restrict__ out) {
    with_k(f.k, [&](auto tag) {
        constexpr unsigned K = decltype(tag)::value;
        for (std::size_t i = thread_index(); i < n; i += thread_count()) out[i] = probe_k<S, K>(f, h(keys[i]));
    });
}

// Bitmap: each warp covers 32 consecutive keys per step (the grid's thread count is a
// multiple of 32), and its ballot is one 32-bit half of a little-endian bitmap word.
template <Shape S>
__global__ void __launch_bounds__(threads_per_block) contains_bits_kernel(View<S> f, const std::uint64_t* __restrict__ keys,
                                                                          std::size_t n, Hasher h,
                                                                          std::uint32_t* __restrict__ out) {
    const unsigned lane = threadIdx.x % 32;
    const std::size_t halves = (n + 31) / 32;
    with_k(f.k, [&](auto tag) {
        constexpr unsigned K = decltype(tag)::value;
        // i - lane, the warp's first key, is the same for the whole warp: it stays in step.
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
__global__ void __launch_bounds__(threads_per_block) count_kernel(View<S> f, const std::uint64_t* __restrict__ keys,
                                                                  std::size_t n, Hasher h,
                                                                  unsigned long long* __restrict__ count) {
    unsigned hits = 0;
    with_k(f.k, [&](auto tag) {
        constexpr unsigned K = decltype(tag)::value;
        for (std::size_t i = thread_index(); i < n; i += thread_count()) hits += probe_k<S, K>(f, h(keys[i]));
    });
    hits = __reduce_add_sync(0xFFFFFFFFu, hits);
    if (threadIdx.x % 32 == 0 && hits != 0) atomicAdd(count, static_cast<unsigned long long>(hits));
}

unsigned grid_for(std::size_t threads, const Launch& l) {
    const std::size_t blocks = (threads + threads_per_block - 1) / threads_per_block;
    return static_cast<unsigned>(blocks < l.max_blocks ? blocks : l.max_blocks);
}

template <Shape S>
View<S> view_of(const DeviceRef& f) {
    return {static_cast<word_t<S>*>(f.data), f.blocks, f.base, f.k};
}

void check_launch(const char* kernel, Shape s) {
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        throw Error(std::string("CUDA kernel launch ") + kernel + "<" +
                    (s == Shape::split256 ? "split256" : s == Shape::word512 ? "word512" : "line512") +
                    "> failed: " + cudaGetErrorString(err) + " (" + cudaGetErrorName(err) + ")");
}

}  // namespace

unsigned grid_cap(int device) {
    int sms = 0, threads = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms <= 0) sms = 132;
    if (cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device) != cudaSuccess || threads <= 0)
        threads = 2048;
    return static_cast<unsigned>(2 * sms * (threads / int(threads_per_block)));
}

void launch_insert(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h, const Launch& l) {
    if (n == 0) return;
    layout::visit_shape(f.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        insert_kernel<S><<<grid_for(n, l), threads_per_block, 0, l.stream>>>(view_of<S>(f), keys, n, h);
    });
    check_launch("insert", f.shape);
}

void launch_contains_bytes(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h, std::uint8_t* out,
                           const Launch& l) {
    if (n == 0) return;
    layout::visit_shape(f.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        contains_bytes_kernel<S><<<grid_for(n, l), threads_per_block, 0, l.stream>>>(view_of<S>(f), keys, n, h, out);
    });
    check_launch("contains_bytes", f.shape);
}

void launch_contains_bits(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h, std::uint64_t* out,
                          const Launch& l) {
    if (n == 0) return;
    layout::visit_shape(f.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        contains_bits_kernel<S><<<grid_for(n, l), threads_per_block, 0, l.stream>>>(
            view_of<S>(f), keys, n, h, reinterpret_cast<std::uint32_t*>(out));
    });
    check_launch("contains_bits", f.shape);
}

void launch_count(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                  unsigned long long* count, const Launch& l) {
    if (n == 0) return;
    layout::visit_shape(f.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        count_kernel<S><<<grid_for(n, l), threads_per_block, 0, l.stream>>>(view_of<S>(f), keys, n, h, count);
    });
    check_launch("count", f.shape);
}

}  // namespace batchbloom::cuda_impl

// The CUDA engine as an entry of the engine table (Backend::cuda), so that
// Filter::set_backend(Backend::cuda) works where a GPU is present. The filter lives in host
// memory, so every call copies the blocks its batch touches to the GPU (the range between
// the batch's lowest and highest block, found by hashing the batch on the host first), sends
// the keys through pinned staging, runs the kernels, and copies results back, and for inserts
// that block range too. For a batch spread over the whole filter that is one transfer of the
// filter per probe call and two per insert call: worth it only for batches with many keys per
// filter byte. For repeated work keep the filter on the GPU (cuda::DeviceFilter).
//
// Working on the touched range only also keeps the batch layer's multi-threaded insert correct
// (each host thread's calls hold the keys of its own disjoint block ranges, so no thread copies
// back blocks another thread is updating).
#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "batchbloom/cuda.hpp"
#include "engine/engine.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch.hpp"
#include "cuda/staging.hpp"

namespace batchbloom::detail {
namespace {

using cuda_impl::check;

cuda_impl::Hasher hasher(KeyMode mode) { return {mode.kind == KeyMode::mix64, mode.seed}; }

int current_device() {
    int d = 0;
    check(cudaGetDevice(&d), "cudaGetDevice");
    return d;
}

/// The filter's blocks [first, last] on the device.
struct Resident {
    cuda_impl::DeviceBuffer buffer;
    cuda_impl::DeviceRef ref;
};

Resident upload(const FilterRef& f, std::uint64_t first, std::uint64_t last) {
    const std::uint64_t block_bytes = layout::info(f.shape).block_bytes;
    const std::size_t bytes = static_cast<std::size_t>((last - first + 1) * block_bytes);
    Resident r{cuda_impl::DeviceBuffer(bytes, "the filter (CUDA engine)"), {}};
    check(cudaMemcpy(r.buffer.get(), f.data + first * block_bytes, bytes, cudaMemcpyHostToDevice),
          "cudaMemcpy(" + std::to_string(bytes) + " bytes of filter to the device)");
    r.ref = {r.buffer.get(), f.blocks, first, f.shape, f.k};
    return r;
}

/// The lowest and highest block the batch touches (the batch is hashed on the host for this:
/// a few cycles a key, against a filter transfer that can be far larger than the batch).
std::pair<std::uint64_t, std::uint64_t> touched_blocks(const FilterRef& f, const std::uint64_t* keys, std::size_t n,
                                                       cuda_impl::Hasher h) {
    std::uint64_t first = std::numeric_limits<std::uint64_t>::max(), last = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t b = layout::block_index(h(keys[i]), f.blocks);
        first = std::min(first, b);
        last = std::max(last, b);
    }
    return {first, last};
}

/// Runs op on the GPU over the blocks the batch touches; for inserts, copies them back.
std::uint64_t run(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode, cuda_impl::Op op,
                  void* out) {
    if (n == 0) return 0;
    const auto h = hasher(mode);
    const auto [first, last] = touched_blocks(f, keys, n, h);
    const int device = current_device();
    const Resident r = upload(f, first, last);
    std::uint64_t result = 0;
    {
        cuda_impl::StagingLease staging(device);
        result = staging->run(r.ref, {keys, n, h, nullptr}, op, out);
    }
    if (op == cuda_impl::Op::insert) {
        const std::uint64_t block_bytes = layout::info(f.shape).block_bytes;
        check(cudaMemcpy(f.data + first * block_bytes, r.buffer.get(), r.buffer.bytes(), cudaMemcpyDeviceToHost),
              "cudaMemcpy(" + std::to_string(r.buffer.bytes()) + " bytes of filter to the host)");
    }
    return result;
}

void insert(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
    run(f, keys, n, mode, cuda_impl::Op::insert, nullptr);
}

void contains_bytes(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint8_t* out) {
    run(f, keys, n, mode, cuda_impl::Op::contains_bytes, out);
}

void contains_bits(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint64_t* out) {
    run(f, keys, n, mode, cuda_impl::Op::contains_bits, out);
}

std::size_t count(const FilterRef& f, const std::uint64_t* keys, std::size_t n, KeyMode mode) {
    return static_cast<std::size_t>(run(f, keys, n, mode, cuda_impl::Op::count, nullptr));
}

// Hashing (for a scalable filter's stages): on the host (mix64 is a few cycles a key;
// a round trip to the GPU would cost more than it saves).
void hash(const std::uint64_t* keys, std::size_t n, KeyMode mode, std::uint64_t* out) {
    const auto h = hasher(mode);
    for (std::size_t i = 0; i < n; ++i) out[i] = h(keys[i]);
}

bool supported() { return cuda_device_available(); }

// No partitioned path: the batch layer runs every CUDA call direct.
constinit const BlockedKernels cuda_blocked{Backend::cuda, insert, contains_bytes, contains_bits, count, hash, nullptr};

}  // namespace

// Blocked kernels only: the other filter types run on the best CPU engine.
constinit const Engine cuda_engine{Backend::cuda, "cuda",  supported, false, &cuda_blocked,
                                   nullptr,       nullptr, nullptr,   nullptr};

}  // namespace batchbloom::detail

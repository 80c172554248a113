#pragma once
// Plain types shared by the CUDA engine's kernels (device_ops.cuh) and its host code; no CUDA
// header, so host code compiled by the C++ compiler includes it too.
#include <cstdint>

#include "batchbloom/hash.hpp"
#include "batchbloom/layout.hpp"

namespace batchbloom::cuda_impl {

/// How a kernel turns its 64-bit input into a hash: the seeded integer mixer of HashKind::xxh3
/// (fused into the kernel), or nothing, for inputs that already are hashes.
struct Hasher {
    bool mix;
    std::uint64_t seed;
    BATCHBLOOM_HD std::uint64_t operator()(std::uint64_t key) const { return mix ? mix64(key, seed) : key; }
};

/// A filter resident in device memory, its shape a run-time value. `data` holds the resident
/// blocks, starting with block `base`: a DeviceFilter holds all of them (base 0); the engine
/// path uploads only the range of blocks a batch of inserts touches. `blocks` is always the
/// whole filter's block count: the scale of layout::block_index.
struct DeviceRef {
    void* data;
    std::uint64_t blocks;
    std::uint64_t base;
    Shape shape;
    unsigned k;
};

}  // namespace batchbloom::cuda_impl

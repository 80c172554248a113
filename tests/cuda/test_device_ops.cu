// The CUDA engine's per-key device code, run on the host: compiled by nvcc, the
// __host__ __device__ functions of src/cuda/device_ops.cuh (patterns, the cooperative insert
// step with its word updates through cuda::atomic_ref, the probe) build and probe filters here
// exactly as the kernels do on a GPU, and every result is compared bit for bit with the scalar
// reference engine (Filter with Backend::scalar): filter bytes, probe answers, bitmaps, counts.
#include <gtest/gtest.h>

#include <batchbloom/filter.hpp>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cuda/device_ops.cuh"
#include "support.hpp"

namespace bb = batchbloom;
namespace ci = batchbloom::cuda_impl;
using bb::Filter;
using bb::Params;
using bb::Shape;

namespace {

/// A filter's blocks in host memory, as the kernels would see them in device memory.
class HostBlocks {
public:
    explicit HostBlocks(const Params& p) : p_(p), words_(p.bytes() / 8 + 8) {}
    ci::DeviceRef ref(std::uint64_t base = 0) {
        const std::uint64_t block_bytes = p_.block_bytes();
        return {reinterpret_cast<std::byte*>(words_.data()) + base * block_bytes, p_.blocks, base, p_.shape, p_.k};
    }
    bool same_bytes(const Filter& f) const { return std::memcmp(words_.data(), f.bytes().data(), p_.bytes()) == 0; }
    void copy_from(const Filter& f) { std::memcpy(words_.data(), f.bytes().data(), p_.bytes()); }

private:
    Params p_;
    std::vector<std::uint64_t> words_;  // 8-byte aligned, as the atomics need
};

/// How the kernels see the input: the 64-bit values they receive and the Hasher they apply.
/// xxh3 filters take the keys and mix them in the kernel; murmur3 keys are hashed on the host
/// first (as DeviceFilter's host path and the engine do).
struct KernelInput {
    std::vector<std::uint64_t> values;
    ci::Hasher hasher;
};

KernelInput kernel_input(const std::vector<std::uint64_t>& keys, const bb::Hashing& h) {
    if (h.kind == bb::HashKind::xxh3) return {keys, {true, h.seed}};
    KernelInput in{std::vector<std::uint64_t>(keys.size()), {false, 0}};
    for (std::size_t i = 0; i < keys.size(); ++i) in.values[i] = bb::hash_key(h, keys[i]);
    return in;
}

/// The insert kernel's work on tiles [first_tile, end_tile) of 8 keys: per tile, each lane
/// hashes its key, then every lane runs insert_step over the tile's hashes (the kernel's shuffle
/// is the array lookup here). Lanes run one after another: OR makes the order irrelevant.
template <Shape S>
void emulate_insert(const ci::DeviceRef& f, const std::uint64_t* values, std::size_t n, ci::Hasher h,
                    std::size_t first_tile, std::size_t end_tile) {
    const ci::View<S> v = ci::view_of<S>(f);
    ci::with_k(f.k, [&](auto tag) {
        constexpr unsigned K = decltype(tag)::value;
        for (std::size_t t = first_tile; t < end_tile; ++t) {
            const std::size_t first = t * ci::insert_group;
            std::uint64_t lane_hash[ci::insert_group];
            for (unsigned r = 0; r < ci::insert_group; ++r) lane_hash[r] = first + r < n ? h(values[first + r]) : 0;
            const std::size_t left = n - first;
            const unsigned count = left < ci::insert_group ? static_cast<unsigned>(left) : ci::insert_group;
            for (unsigned rank = 0; rank < ci::insert_group; ++rank)
                ci::insert_step<S, K>(v, rank, count, [&](unsigned j) { return lane_hash[j]; });
        }
    });
}

std::size_t tiles(std::size_t n) { return (n + ci::insert_group - 1) / ci::insert_group; }

void insert_all(const ci::DeviceRef& f, const KernelInput& in) {
    bb::layout::visit_shape(f.shape, [&](auto tag) {
        emulate_insert<decltype(tag)::value>(f, in.values.data(), in.values.size(), in.hasher, 0, tiles(in.values.size()));
    });
}

std::vector<std::uint8_t> probe_all(const ci::DeviceRef& f, const KernelInput& in) {
    std::vector<std::uint8_t> out(in.values.size());
    bb::layout::visit_shape(f.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        const ci::View<S> v = ci::view_of<S>(f);
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = ci::probe<S>(v, in.hasher(in.values[i]));
    });
    return out;
}

}  // namespace

// ---- patterns ---------------------------------------------------------------------------------

template <Shape S>
void check_patterns() {
    bb::testing::KeyGen g(static_cast<std::uint64_t>(S) * 1000 + 1);
    for (unsigned k = 1; k <= bb::layout::max_k; ++k) {
        for (int n = 0; n < 20000; ++n) {
            const auto h32 = static_cast<std::uint32_t>(g.next());
            const auto want = bb::layout::make_pattern<S>(h32, k);
            const auto got = ci::pattern_of<S>(h32, k);
            for (unsigned j = 0; j < ci::insert_group; ++j) {
                ASSERT_EQ(got.w[j], want.w[j]) << bb::testing::label(S, k) << " h32=" << h32 << " word " << j;
                ASSERT_EQ(ci::pattern_word_of<S>(h32, k, j), want.w[j])
                    << bb::testing::label(S, k) << " h32=" << h32 << " word " << j;
            }
        }
    }
}

TEST(CudaDeviceOps, PatternsEqualTheLayoutForEveryShapeAndK) {
    check_patterns<Shape::split256>();
    check_patterns<Shape::word512>();
    check_patterns<Shape::line512>();
}

TEST(CudaDeviceOps, WithKCoversOneToSixteen) {
    for (unsigned k = 1; k <= bb::layout::max_k; ++k)
        EXPECT_EQ(ci::with_k(k, [](auto tag) { return decltype(tag)::value; }), k);
}

// ---- word updates -----------------------------------------------------------------------------

TEST(CudaDeviceOps, OrWordSkipsWordsThatHoldTheBits) {
    std::uint64_t w = 0b1010;
    EXPECT_FALSE(ci::or_word<std::uint64_t>(&w, 0b1000, ci::load_word(&w)));  // already set: no atomic
    EXPECT_TRUE(ci::or_word<std::uint64_t>(&w, 0b0101, ci::load_word(&w)));
    EXPECT_EQ(w, 0b1111u);
    // A stale view of the word costs an atomic, never a bit.
    std::uint32_t v = 0;
    const std::uint32_t stale = ci::load_word(&v);
    v = 0x10;
    EXPECT_TRUE(ci::or_word<std::uint32_t>(&v, 0x01, stale));
    EXPECT_EQ(v, 0x11u);
    EXPECT_TRUE(ci::or_word<std::uint32_t>(&v, 0x10, 0));  // a stale zero: redundant, harmless
    EXPECT_EQ(v, 0x11u);
}

// ---- whole filters against the scalar reference -----------------------------------------------

TEST(CudaDeviceOps, InsertAndProbeBitExactWithScalar) {
    // The engine tests' configurations in both sizes, every other k in the small one.
    std::vector<std::pair<bb::testing::ShapeK, std::uint64_t>> configs;
    for (const auto& c : bb::testing::engine_configs)
        for (std::uint64_t blocks : {700ULL, 40000ULL}) configs.push_back({c, blocks});
    for (Shape s : {Shape::split256, Shape::word512, Shape::line512})
        for (unsigned k = 1; k <= bb::layout::max_k; ++k) configs.push_back({{s, k}, 700});
    for (const auto& [config, blocks] : configs) {
        const auto [shape, k] = config;
        {
            for (bb::HashKind hk : {bb::HashKind::xxh3, bb::HashKind::murmur3}) {
                SCOPED_TRACE(bb::testing::label(shape, k) + " blocks=" + std::to_string(blocks) +
                             " hash=" + std::string(bb::to_string(hk)));
                const Params p = Params::make(shape, blocks, k);
                const bb::Hashing h{hk, 12345};
                Filter ref(p, h, bb::Backend::scalar);
                ref.set_threads(1);
                const auto keys = bb::testing::random_keys(blocks * 10 + 3, blocks + k, 0);  // not a multiple of 8
                ref.insert(keys);
                HostBlocks dev(p);
                insert_all(dev.ref(), kernel_input(keys, h));
                ASSERT_TRUE(dev.same_bytes(ref)) << "filter bytes differ after insert";

                const auto queries = bb::testing::half_present(keys, 4097, 7 * k);
                const auto got = probe_all(dev.ref(), kernel_input(queries, h));
                std::vector<std::uint8_t> want(queries.size());
                ref.contains(queries, want);
                ASSERT_EQ(got, want);
                std::size_t hits = 0;
                for (auto b : got) hits += b;
                ASSERT_EQ(hits, ref.count(queries));
            }
        }
    }
}

TEST(CudaDeviceOps, HashInputBitExactWithScalar) {
    for (const auto& [shape, k] : bb::testing::engine_configs) {
        SCOPED_TRACE(bb::testing::label(shape, k));
        const Params p = Params::make(shape, 1001, k);
        Filter ref(p, {}, bb::Backend::scalar);
        const auto hashes = bb::testing::random_keys(12345, 99, 0);
        ref.insert_hashes(hashes);
        HostBlocks dev(p);
        insert_all(dev.ref(), {hashes, {false, 0}});
        ASSERT_TRUE(dev.same_bytes(ref));
        const auto q = bb::testing::random_keys(3333, 98, 1);
        std::vector<std::uint8_t> want(q.size());
        ref.contains_hashes(q, want);
        ASSERT_EQ(probe_all(dev.ref(), {q, {false, 0}}), want);
    }
}

TEST(CudaDeviceOps, ProbesOfAScalarBuiltFilter) {
    // The other direction: a filter built by the reference, probed by the device code.
    for (const auto& [shape, k] : bb::testing::engine_configs) {
        SCOPED_TRACE(bb::testing::label(shape, k));
        const Params p = Params::make(shape, 5003, k);
        Filter ref(p, {bb::HashKind::xxh3, 7}, bb::Backend::scalar);
        const auto keys = bb::testing::random_keys(40000, 3, 0);
        ref.insert(keys);
        HostBlocks dev(p);
        dev.copy_from(ref);
        const auto queries = bb::testing::half_present(keys, 20000, 4);
        std::vector<std::uint8_t> want(queries.size());
        ref.contains(queries, want);
        ASSERT_EQ(probe_all(dev.ref(), kernel_input(queries, ref.hashing())), want);
    }
}

TEST(CudaDeviceOps, ConcurrentLanesFromHostThreadsGiveTheSameFilter) {
    // Four host threads run the insert step on interleaved tiles of one filter at once: the
    // word updates are real cuda::atomic_ref operations racing on shared words, as on a GPU.
    using bb::testing::ShapeK;
    for (const auto& [shape, k] : {ShapeK{Shape::split256, 8}, ShapeK{Shape::word512, 8}, ShapeK{Shape::line512, 7}}) {
        SCOPED_TRACE(bb::testing::label(shape, k));
        const Params p = Params::make(shape, 257, k);  // small: many keys share words
        Filter ref(p, {}, bb::Backend::scalar);
        const auto keys = bb::testing::random_keys(200003, 11, 0);
        ref.insert(keys);
        HostBlocks dev(p);
        const KernelInput in = kernel_input(keys, ref.hashing());
        const ci::DeviceRef f = dev.ref();
        const std::size_t all = tiles(keys.size());
        std::vector<std::thread> threads;
        for (std::size_t t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                bb::layout::visit_shape(shape, [&](auto tag) {
                    for (std::size_t tile = t; tile < all; tile += 4)
                        emulate_insert<decltype(tag)::value>(f, in.values.data(), in.values.size(), in.hasher, tile, tile + 1);
                });
            });
        for (auto& th : threads) th.join();
        ASSERT_TRUE(dev.same_bytes(ref));
    }
}

TEST(CudaDeviceOps, ResidentBlockRangeGivesTheSameBlocks) {
    // The engine path uploads only the blocks a batch touches: a View whose data starts at
    // block `base`. Inserting keys whose blocks lie in [base, end) through such a view must set
    // the same bytes as through the whole filter.
    for (const auto& [shape, k] : bb::testing::engine_configs) {
        SCOPED_TRACE(bb::testing::label(shape, k));
        const Params p = Params::make(shape, 4000, k);
        const bb::Hashing h{};
        const std::uint64_t base = 1234, end = 2345;
        std::vector<std::uint64_t> keys;
        for (const auto key : bb::testing::random_keys(60000, 5, 0)) {
            const std::uint64_t b = bb::layout::block_index(bb::hash_key(h, key), p.blocks);
            if (b >= base && b < end) keys.push_back(key);
        }
        ASSERT_GT(keys.size(), 1000u);
        Filter ref(p, h, bb::Backend::scalar);
        ref.insert(keys);
        HostBlocks whole(p);
        insert_all(whole.ref(base), kernel_input(keys, h));  // data points at block `base`
        ASSERT_TRUE(whole.same_bytes(ref));
        const auto got = probe_all(whole.ref(base), kernel_input(keys, h));
        for (auto b : got) ASSERT_EQ(b, 1);
    }
}

TEST(CudaDeviceOps, PartialTilesInsertOnlyTheirKeys) {
    // A tile at the end of a batch has fewer than 8 keys; the lanes past the end hold no key
    // (the kernel gives them hash 0) and must set nothing.
    for (const auto& [shape, k] : bb::testing::engine_configs) {
        for (std::size_t n = 1; n < 2 * ci::insert_group; ++n) {
            SCOPED_TRACE(bb::testing::label(shape, k) + " n=" + std::to_string(n));
            const Params p = Params::make(shape, 64, k);
            Filter ref(p, {}, bb::Backend::scalar);
            const auto keys = bb::testing::random_keys(n, n, 0);
            ref.insert(keys);
            HostBlocks dev(p);
            insert_all(dev.ref(), kernel_input(keys, ref.hashing()));
            ASSERT_TRUE(dev.same_bytes(ref));
        }
    }
}

// Every engine available on this machine against the scalar reference, bit for bit: filter
// bytes after insert, probe answers as bytes, bitmaps and counts, for every shape, several k,
// odd batch sizes, empty and unaligned spans, every prefetch distance and block range the
// batch layer can ask for. The scalar engine itself is checked against layout.hpp's patterns.
// The batch paths over these kernels are checked in test_batch_paths.cpp.
#include <gtest/gtest.h>

#include <batchbloom/filter.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <tuple>
#include <sstream>
#include <span>
#include <string>
#include <utility>

#include "cpu/partition_kernel.hpp"
#include "engine/engine.hpp"
#include "support.hpp"

namespace bb = batchbloom;
using bb::Filter;
using bb::Params;
using bb::BatchPath;
using bb::Shape;

namespace {

class EngineTest : public ::testing::TestWithParam<std::string> {
protected:
    bb::Backend backend() const { return bb::parse_backend(GetParam()); }
};

std::string engine_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace

INSTANTIATE_TEST_SUITE_P(Available, EngineTest, ::testing::ValuesIn(bb::available_backends()), engine_name);

namespace {

/// 64-byte-aligned filter words, as the engines require.
struct Words {
    std::vector<std::uint64_t> buf;
    std::size_t n;
    explicit Words(std::size_t n_) : buf(n_ + 8), n(n_) {}
    std::uint64_t* data() {
        const auto at = reinterpret_cast<std::uintptr_t>(buf.data());
        return buf.data() + ((64 - at % 64) % 64) / 8;
    }
    std::vector<std::uint64_t> value() { return {data(), data() + n}; }
};

/// The layout's definition, one key at a time: what every engine must compute.
struct Reference {
    Params p;
    Words words;
    explicit Reference(const Params& p_) : p(p_), words(p_.bytes() / 8) {}
    template <class Fn>
    auto with_block(std::uint64_t h, Fn&& fn) {
        return bb::layout::visit_shape(p.shape, [&](auto tag) {
            constexpr Shape S = decltype(tag)::value;
            using T = bb::layout::shape_traits<S>;
            auto* block =
                reinterpret_cast<typename T::word_type*>(words.data()) + bb::layout::block_index(h, p.blocks) * T::words;
            return fn(block, bb::layout::make_pattern<S>(static_cast<std::uint32_t>(h), p.k));
        });
    }
    void insert(std::uint64_t h) {
        with_block(h, [](auto* b, const auto& pat) { bb::layout::set_pattern(b, pat); });
    }
    bool contains(std::uint64_t h) {
        return with_block(h, [](auto* b, const auto& pat) { return bb::layout::test_pattern(b, pat); });
    }
};

bb::detail::FilterRef ref_of(Words& words, const Params& p) {
    return {reinterpret_cast<std::byte*>(words.data()), p.blocks, p.shape, p.k};
}

}  // namespace

TEST_P(EngineTest, EveryPrefetchDistanceAndBlockRangeMatchesTheLayout) {
    // The engines straight, as the batch layer calls them: with prefetching at any distance
    // (0: none, or only just ahead), inserts restricted to block ranges that together cover the filter
    // (how threads split a direct insert), hashed and mixed keys, batch sizes around the SIMD
    // width and the pipeline's ring, from unaligned key pointers.
    const bb::detail::BlockedKernels& e = bb::detail::blocked_kernels(backend());
    const bb::detail::KeyMode mixed{bb::detail::KeyMode::mix64, 99}, hashed{bb::detail::KeyMode::hashed, 0};
    for (const auto& [shape, k] : bb::testing::engine_configs) {
        const Params p = Params::make(shape, 1009, k);
        const auto all = bb::testing::random_keys(5001, k, 0);
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(9), std::size_t(1023),
                              std::size_t(1025), std::size_t(5000)}) {
            const std::uint64_t* keys = all.data() + (all.size() - n);  // odd offsets: unaligned for SIMD loads
            // (0, true): the in-cache kernel with its blocks prefetched into L1 (prefetch_near).
            for (const auto& [prefetch, near] : {std::pair{0u, false}, {0u, true}, {1u, false}, {7u, false}, {8u, false},
                                                 {64u, false}, {1000u, false}, {5000u, false}}) {
                SCOPED_TRACE(std::string(bb::to_string(shape)) + " k=" + std::to_string(k) + " n=" + std::to_string(n) +
                             " prefetch=" + std::to_string(prefetch) + (near ? " near" : ""));
                for (const auto mode : {mixed, hashed}) {
                    Reference want(p);
                    for (std::size_t i = 0; i < n; ++i) want.insert(mode.kind == mixed.kind ? bb::mix64(keys[i], mode.seed) : keys[i]);
                    Words got(p.bytes() / 8), ranged(p.bytes() / 8);
                    auto f = ref_of(got, p);
                    f.prefetch = prefetch;
                    f.prefetch_near = near;
                    e.insert(f, keys, n, mode);
                    ASSERT_EQ(got.value(), want.words.value());
                    auto r = ref_of(ranged, p);
                    r.prefetch = prefetch;
                    r.prefetch_near = near;
                    for (const auto& [first, end] : {std::pair<std::uint64_t, std::uint64_t>{0, 1}, {1, 500}, {500, 1008},
                                                    {1008, 1009}}) {
                        r.first_block = first;
                        r.end_block = end;
                        e.insert(r, keys, n, mode);
                    }
                    ASSERT_EQ(ranged.value(), want.words.value());
                    // Probes against the filter built from every fourth key: hits and misses.
                    Words sparse(p.bytes() / 8);
                    Reference want_sparse(p);
                    for (std::size_t i = 0; i < n; i += 4) {
                        auto s = ref_of(sparse, p);
                        e.insert(s, keys + i, 1, mode);
                        want_sparse.insert(mode.kind == mixed.kind ? bb::mix64(keys[i], mode.seed) : keys[i]);
                    }
                    auto s = ref_of(sparse, p);
                    s.prefetch = prefetch;
                    s.prefetch_near = near;
                    std::vector<std::uint8_t> bytes(n + 1, 7);
                    std::vector<std::uint64_t> bits((n + 63) / 64 + 1, 7);
                    e.contains_bytes(s, keys, n, mode, bytes.data());
                    e.contains_bits(s, keys, n, mode, bits.data());
                    std::size_t expect_count = 0;
                    for (std::size_t i = 0; i < n; ++i) {
                        const bool hit = want_sparse.contains(mode.kind == mixed.kind ? bb::mix64(keys[i], mode.seed) : keys[i]);
                        expect_count += hit;
                        ASSERT_EQ(bytes[i], hit) << i;
                        ASSERT_EQ((bits[i / 64] >> (i % 64)) & 1, hit) << i;
                    }
                    ASSERT_EQ(bytes[n], 7) << "wrote past the end";
                    ASSERT_EQ(bits[(n + 63) / 64], 7u) << "wrote past the end";
                    if (n % 64 != 0) {
                        ASSERT_EQ(bits[n / 64] >> (n % 64), 0u) << "bits past n must be zero";
                    }
                    ASSERT_EQ(e.count(s, keys, n, mode), expect_count);
                }
            }
        }
    }
}

TEST_P(EngineTest, ProbesTestEveryBitOfThePatternForEveryK) {
    // Each key owns one block, all ones but for one bit of its pattern: every probe must miss,
    // whichever bit it is, for every k (the in-cache kernel switches lanes past k off, or
    // repeats a bit there, rather than branch). The same blocks with only bits outside the
    // pattern cleared, or holding exactly the pattern, must hit; a kernel reading another
    // key's block or another lane's word would answer otherwise. Batches span several SIMD
    // groups and a partial one, in the in-cache kernel (prefetch 0), the prefetching one and
    // the partitioned path's.
    const bb::detail::BlockedKernels& e = bb::detail::blocked_kernels(backend());
    const bb::detail::KeyMode hashed{bb::detail::KeyMode::hashed, 0};
    constexpr std::uint64_t blocks = 37;
    for (Shape shape : {Shape::split256, Shape::word512, Shape::line512}) {
        for (unsigned k = 1; k <= bb::layout::max_k; ++k) {
            const Params p = Params::make(shape, blocks, k);
            // Key i lands in block order[i] (its high 32 bits scaled), its pattern from random low bits.
            std::vector<std::uint64_t> keys(blocks);
            bb::testing::KeyGen g(k);
            for (std::uint64_t i = 0; i < blocks; ++i) {
                const std::uint64_t block = (i * 17 + 5) % blocks;
                const std::uint64_t hi = ((block << 32) + blocks - 1) / blocks;  // block_index(hi << 32) == block
                keys[i] = (hi << 32) | (g.next() & 0xFFFFFFFFu);
                ASSERT_EQ(bb::layout::block_index(keys[i], blocks), block);
            }
            bb::layout::visit_shape(shape, [&](auto tag) {
                constexpr Shape S = decltype(tag)::value;
                using T = bb::layout::shape_traits<S>;
                using word = typename T::word_type;
                // Bit number b (mod the pattern's bits) of key i's pattern: cleared (miss), or the
                // block set to exactly its pattern (hit), or to all but one bit outside it (hit).
                enum class Fill { all_but_pattern_bit, pattern, all_but_other_bit };
                std::vector<bb::layout::pattern<S>> pats;
                std::vector<std::vector<std::pair<unsigned, unsigned>>> in(blocks), out(blocks);  // (word, bit)
                for (std::uint64_t i = 0; i < blocks; ++i) {
                    pats.push_back(bb::layout::make_pattern<S>(static_cast<std::uint32_t>(keys[i]), k));
                    for (unsigned j = 0; j < T::words; ++j)
                        for (unsigned bit = 0; bit < T::word_bits; ++bit)
                            (((pats[i].w[j] >> bit) & 1) != 0 ? in[i] : out[i]).emplace_back(j, bit);
                }
                for (const Fill fill : {Fill::all_but_pattern_bit, Fill::pattern, Fill::all_but_other_bit}) {
                    for (unsigned b = 0; b < 2 * bb::layout::max_k; ++b) {
                        Words w(p.bytes() / 8);
                        auto* words = reinterpret_cast<word*>(w.data());
                        for (std::uint64_t i = 0; i < blocks; ++i) {
                            word* blk = words + bb::layout::block_index(keys[i], blocks) * T::words;
                            for (unsigned j = 0; j < T::words; ++j) blk[j] = fill == Fill::pattern ? pats[i].w[j] : word(~word(0));
                            if (fill == Fill::all_but_pattern_bit) {
                                const auto [j, bit] = in[i][b % in[i].size()];
                                blk[j] &= word(~(word(1) << bit));
                            }
                            if (fill == Fill::all_but_other_bit) {
                                const auto [j, bit] = out[i][(b * 7919) % out[i].size()];
                                blk[j] &= word(~(word(1) << bit));
                            }
                        }
                        const bool hit = fill != Fill::all_but_pattern_bit;
                        for (std::size_t n : {std::size_t(1), std::size_t(9), std::size_t(blocks)}) {
                            const std::uint64_t* at = keys.data() + (blocks - n);
                            for (std::uint32_t prefetch : {0u, 16u}) {
                                SCOPED_TRACE(bb::testing::label(shape, k) + " bit " + std::to_string(b) + " fill " +
                                             std::to_string(int(fill)) + " n=" + std::to_string(n) +
                                             " prefetch=" + std::to_string(prefetch));
                                auto f = ref_of(w, p);
                                f.prefetch = prefetch;
                                std::vector<std::uint8_t> bytes(n, 2);
                                std::vector<std::uint64_t> bits((n + 63) / 64, 0x5555);
                                e.contains_bytes(f, at, n, hashed, bytes.data());
                                e.contains_bits(f, at, n, hashed, bits.data());
                                ASSERT_EQ(e.count(f, at, n, hashed), hit ? n : 0);
                                for (std::size_t i = 0; i < n; ++i) {
                                    ASSERT_EQ(bytes[i], hit) << i;
                                    ASSERT_EQ((bits[i / 64] >> (i % 64)) & 1, hit) << i;
                                }
                                if (e.partition != nullptr && prefetch == 0) {
                                    ASSERT_EQ(e.partition->count(f, at, n), hit ? n : 0);
                                    std::fill(bits.begin(), bits.end(), 0x5555);
                                    e.partition->contains(f, at, n, bits.data());
                                    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ((bits[i / 64] >> (i % 64)) & 1, hit) << i;
                                }
                            }
                        }
                    }
                }
            });
            // Inserting the keys sets exactly their patterns, for every k.
            for (std::uint32_t prefetch : {0u, 16u}) {
                Reference want(p);
                for (const std::uint64_t h : keys) want.insert(h);
                Words got(p.bytes() / 8);
                auto f = ref_of(got, p);
                f.prefetch = prefetch;
                e.insert(f, keys.data(), keys.size(), hashed);
                ASSERT_EQ(got.value(), want.words.value()) << bb::testing::label(shape, k) << " prefetch=" << prefetch;
            }
        }
    }
}

TEST_P(EngineTest, InCacheFiltersMatchScalarThroughEveryEntryPoint) {
    // Filters the cache holds, on the direct path (the in-cache kernel): every shape with k
    // below, at and above 8 and at 16, keys and prehashed entry points, one and several
    // threads, batches of every length around the SIMD groups, empty ones, and spans starting
    // at every offset within a vector.
    for (Shape shape : {Shape::split256, Shape::word512, Shape::line512}) {
        for (unsigned k : {1u, 5u, 8u, 9u, 16u}) {
            const Params p = Params::make(shape, 1031, k);
            const auto keys = bb::testing::random_keys(20011, k + 3, 0);
            std::vector<std::uint64_t> hashes(keys.size());
            for (std::size_t i = 0; i < keys.size(); ++i) hashes[i] = bb::mix64(keys[i], 4242);
            for (unsigned threads : {1u, 3u}) {
                SCOPED_TRACE(bb::testing::label(shape, k) + " threads=" + std::to_string(threads));
                Filter ref(p, {}, bb::Backend::scalar), got(p, {}, backend()), ref_h(p, {}, bb::Backend::scalar),
                    got_h(p, {}, backend());
                for (Filter* f : {&ref, &got, &ref_h, &got_h}) {
                    f->set_threads(threads);
                    f->set_batch_path(bb::BatchPath::direct);
                }
                std::size_t at = 0;
                for (std::size_t len = 0; at + len <= keys.size(); at += len, len = len < 20 ? len + 1 : len * 2 + 1) {
                    const auto ks = std::span<const std::uint64_t>(keys).subspan(at, len);
                    const auto hs = std::span<const std::uint64_t>(hashes).subspan(at, len);
                    ref.insert(ks);
                    got.insert(ks);
                    ref_h.insert_hashes(hs);
                    got_h.insert_hashes(hs);
                }
                ASSERT_TRUE(ref == got) << "after insert";
                ASSERT_TRUE(ref_h == got_h) << "after insert_hashes";
                const auto queries = bb::testing::half_present(keys, 5003, k);
                std::vector<std::uint64_t> query_hashes(queries.size());
                for (std::size_t i = 0; i < queries.size(); ++i) query_hashes[i] = bb::mix64(queries[i], 4242);
                for (std::size_t off = 0; off < 9; ++off) {
                    for (std::size_t n : {std::size_t(0), std::size_t(3), std::size_t(8), std::size_t(17), std::size_t(4093)}) {
                        SCOPED_TRACE("offset=" + std::to_string(off) + " n=" + std::to_string(n));
                        ASSERT_NO_FATAL_FAILURE(bb::testing::expect_same_probes(ref, got, std::span(queries).subspan(off, n)));
                        const auto qh = std::span<const std::uint64_t>(query_hashes).subspan(off, n);
                        std::vector<std::uint8_t> a(n + 1, 9), b(n + 1, 9);
                        ref_h.contains_hashes(qh, std::span(a).first(n));
                        got_h.contains_hashes(qh, std::span(b).first(n));
                        ASSERT_EQ(a, b);
                        ASSERT_EQ(b[n], 9) << "wrote past the end";
                        ASSERT_EQ(ref_h.count_hashes(qh), got_h.count_hashes(qh));
                    }
                }
            }
        }
    }
}

TEST_P(EngineTest, PartitionKernelsMatchTheLayout) {
    // The partitioned path's kernels straight: the scatter puts every key's hash, in order,
    // into its region's bucket and gives each key its region id, stopping at the first key
    // whose bucket is full; the in-region kernels set and test as the layout says. Batch
    // sizes around the SIMD width and the scatter's chunk, unaligned key pointers, one region
    // and many (more than 256), buckets that fill up, write-combining entries of one line and
    // of several.
    const bb::detail::BlockedKernels& e = bb::detail::blocked_kernels(backend());
    if (e.partition == nullptr) GTEST_SKIP() << "this engine runs the direct path only";
    namespace part = bb::detail::partition;
    const bb::detail::KeyMode mixed{bb::detail::KeyMode::mix64, 5}, hashed{bb::detail::KeyMode::hashed, 0};
    for (const auto& [shape, k] : bb::testing::engine_configs) {
        const Params p = Params::make(shape, 3001, k);
        const auto all = bb::testing::random_keys(3001, k + 10, 0);
        // Shift 2: 751 regions, more than a byte can name.
        for (const auto& [shift, cap] : {std::pair{12u, 4096u}, std::pair{4u, 64u}, std::pair{9u, 64u}, std::pair{2u, 64u}}) {
            const unsigned regions = static_cast<unsigned>((p.blocks - 1) >> shift) + 1;
            for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(9), std::size_t(255), std::size_t(257),
                                  std::size_t(3000)}) {
                const std::uint64_t* keys = all.data() + (all.size() - n);
                using Case = std::pair<bb::detail::KeyMode, std::size_t>;  // key mode, write-combining slots
                for (const auto& [mode, slots] :
                     {Case{mixed, part::line}, Case{hashed, part::line}, Case{mixed, 16}, Case{hashed, 32}}) {
                    SCOPED_TRACE(std::string(bb::to_string(shape)) + " shift=" + std::to_string(shift) +
                                 " n=" + std::to_string(n) + " slots=" + std::to_string(slots));
                    Words wc(std::size_t(regions) * slots);  // lines are streamed from and to: 64-byte aligned
                    std::vector<std::uint32_t> count(regions, 99);
                    Words hashes(std::size_t(regions) * cap);
                    std::vector<part::region_id> ids(n + 1, 7);
                    const part::Buckets b{p.blocks,  shift,        regions,       cap,       slots,
                                          wc.data(), count.data(), hashes.data(), ids.data()};
                    const std::size_t taken = e.partition->scatter(b, keys, n, mode);
                    std::vector<std::vector<std::uint64_t>> want(regions);
                    std::size_t want_taken = n;
                    for (std::size_t i = 0; i < n; ++i) {
                        const std::uint64_t h = mode.kind == mixed.kind ? bb::mix64(keys[i], mode.seed) : keys[i];
                        const unsigned r = static_cast<unsigned>(bb::layout::block_index(h, p.blocks) >> shift);
                        if (want[r].size() == cap) {
                            want_taken = i;
                            break;
                        }
                        want[r].push_back(h);
                        ASSERT_EQ(ids[i], r) << i;
                    }
                    ASSERT_EQ(taken, want_taken);
                    ASSERT_EQ(ids[n], 7) << "wrote past the end";
                    for (unsigned r = 0; r < regions; ++r) {
                        ASSERT_EQ(count[r], want[r].size()) << r;
                        ASSERT_TRUE(std::equal(want[r].begin(), want[r].end(), b.bucket(r))) << r;
                        if (n != 3000 || r >= 3 || slots != part::line) continue;
                        // The in-region kernels on this bucket.
                        Words got(p.bytes() / 8);
                        Reference ref(p);
                        const auto f = ref_of(got, p);
                        const std::size_t half = count[r] / 2;
                        e.partition->insert(f, b.bucket(r), half);
                        for (std::size_t i = 0; i < half; ++i) ref.insert(want[r][i]);
                        ASSERT_EQ(got.value(), ref.words.value());
                        const std::size_t words = (count[r] + 63) / 64;
                        std::vector<std::uint64_t> a(words + 1, 7);
                        e.partition->contains(f, b.bucket(r), count[r], a.data());
                        std::size_t found = 0;
                        for (std::size_t i = 0; i < count[r]; ++i) {
                            const bool hit = (a[i / 64] >> (i % 64)) & 1;
                            ASSERT_EQ(hit, ref.contains(want[r][i])) << i;
                            found += hit;
                        }
                        if (count[r] % 64 != 0) {
                            ASSERT_EQ(a[words - 1] >> (count[r] % 64), 0u) << "bits past n must be zero";
                        }
                        ASSERT_EQ(a[words], 7u) << "wrote past the end";
                        ASSERT_EQ(e.partition->count(f, b.bucket(r), count[r]), found);
                    }
                }
            }
        }
    }
}

TEST_P(EngineTest, BitExactWithScalar) {
    for (const auto& [shape, k] : bb::testing::engine_configs) {
        // 700 blocks stay in cache; 40000 blocks (1.3-2.6 MB) take the prefetching path.
        for (std::uint64_t blocks : {700ULL, 40000ULL}) {
            for (bb::HashKind hk : {bb::HashKind::xxh3, bb::HashKind::murmur3}) {
                SCOPED_TRACE(bb::testing::label(shape, k) + " blocks=" + std::to_string(blocks) +
                             " hash=" + std::string(bb::to_string(hk)));
                const Params p = Params::make(shape, blocks, k);
                const bb::Hashing h{hk, 12345};
                Filter ref(p, h, bb::Backend::scalar), got(p, h, backend());
                const auto keys = bb::testing::random_keys(blocks * 10 + 3, blocks + k, 0);
                ref.insert(keys);
                got.insert(keys);
                ASSERT_TRUE(ref == got) << "filter bytes differ after insert";

                const auto queries = bb::testing::half_present(keys, 4097, 7 * k);
                for (std::size_t n : {0, 1, 7, 33, 64, 1001, 8194}) {
                    SCOPED_TRACE("n=" + std::to_string(n));
                    ASSERT_NO_FATAL_FAILURE(bb::testing::expect_same_probes(ref, got, std::span(queries).first(n)));
                }
            }
        }
    }
}

TEST_P(EngineTest, HashedInsertAndProbeBitExact) {
    for (const auto& [shape, k] : bb::testing::engine_configs) {
        const Params p = Params::make(shape, 1001, k);
        Filter ref(p, {}, bb::Backend::scalar), got(p, {}, backend());
        auto hashes = bb::testing::random_keys(12345, 99, 0);
        ref.insert_hashes(hashes);
        got.insert_hashes(hashes);
        ASSERT_TRUE(ref == got) << bb::to_string(shape) << " k=" << k;
        const auto q = bb::testing::random_keys(3333, 98, 1);
        std::vector<std::uint8_t> a(q.size()), b(q.size());
        ref.contains_hashes(q, a);
        got.contains_hashes(q, b);
        ASSERT_EQ(a, b);
        ASSERT_EQ(ref.count_hashes(q), got.count_hashes(q));
    }
}

TEST_P(EngineTest, UnalignedSpansAndOddBatches) {
    const Params p = Params::make(Shape::word512, 513, 8);
    Filter ref(p, {}, bb::Backend::scalar), got(p, {}, backend());
    const auto keys = bb::testing::random_keys(10007, 5, 0);
    // Keys start at every offset within a vector register, in batches of odd length.
    std::vector<std::uint64_t> buf(keys.size() + 8);
    std::size_t pos = 0;
    for (std::size_t off = 1, len = 1; pos < keys.size(); off = (off + 1) % 8, len = len * 3 % 1001 + 1) {
        const std::size_t n = std::min(len, keys.size() - pos);
        std::memcpy(buf.data() + off, keys.data() + pos, n * 8);
        ref.insert(std::span<const std::uint64_t>(buf.data() + off, n));
        got.insert(std::span<const std::uint64_t>(buf.data() + off, n));
        pos += n;
    }
    ASSERT_TRUE(ref == got);
    std::vector<std::uint8_t> a(keys.size() + 1), b(keys.size() + 1);
    ref.contains(std::span<const std::uint64_t>(keys).subspan(1), std::span(a).subspan(2));
    got.contains(std::span<const std::uint64_t>(keys).subspan(1), std::span(b).subspan(2));
    ASSERT_EQ(a, b);
}

TEST_P(EngineTest, Uint32AndStringKeysBitExact) {
    const Params p = Params::make(Shape::split256, 777, 8);
    Filter ref(p, {}, bb::Backend::scalar), got(p, {}, backend());
    std::vector<std::uint32_t> k32(5001);
    for (std::size_t i = 0; i < k32.size(); ++i) k32[i] = static_cast<std::uint32_t>(i * 2654435761u);
    std::vector<std::string> strs;
    for (int i = 0; i < 3001; ++i) strs.push_back(std::to_string(i * 7).append("s"));
    ref.insert(k32);
    got.insert(k32);
    ref.insert(strs);
    got.insert(strs);
    ASSERT_TRUE(ref == got);
}

TEST(EngineSelection, BestEngineForThisCpuIsActive) {
    // Read the CPU's features independently of the library's CPUID code.
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line, flags;
    while (std::getline(cpuinfo, line))
        if (line.rfind("flags", 0) == 0) {
            flags = line + " ";
            break;
        }
    if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags on this system";
    auto has = [&](const char* f) { return flags.find(std::string(" ") + f + " ") != std::string::npos; };
    const auto names = bb::available_backends();
    const std::set<std::string> avail(names.begin(), names.end());
    const bool avx512 = BATCHBLOOM_TEST_HAVE_AVX512 && has("avx512f") && has("avx512dq") && has("avx512cd") &&
                        has("avx512bw") && has("avx512vl");
    const bool avx2 = has("avx2") && has("fma") && has("bmi2");
    EXPECT_EQ(avail.count("avx512") == 1, avx512);
    EXPECT_EQ(avail.count("avx2") == 1, avx2);
    if (std::getenv("BATCHBLOOM_BACKEND") == nullptr) {
        const bb::Backend expect = avx512 ? bb::Backend::avx512 : avx2 ? bb::Backend::avx2 : bb::Backend::scalar;
        EXPECT_EQ(bb::resolve_backend(bb::Backend::automatic), expect)
            << "automatic picked " << bb::to_string(bb::resolve_backend(bb::Backend::automatic));
    }
}

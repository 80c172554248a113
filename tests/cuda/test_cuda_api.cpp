// The CUDA engine on a GPU: DeviceFilter from host and device pointers, synchronous and on
// streams, the copies to and from host filters, and Backend::cuda through Filter, all bit for
// bit against the scalar reference. The tests that launch kernels skip, saying why, where no
// CUDA device is present; the tests of that situation itself run everywhere.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <batchbloom/cuda.hpp>
#include <batchbloom/filter.hpp>
#include <string>
#include <vector>

#include "support.hpp"

namespace bb = batchbloom;
using bb::Filter;
using bb::Params;
using bb::Shape;
using bb::cuda::DeviceFilter;
using bb::cuda::Input;

namespace {

bool has_cuda_backend() {
    const auto names = bb::available_backends();
    return std::find(names.begin(), names.end(), "cuda") != names.end();
}

/// Device memory holding a copy of a host vector.
template <class T>
class DeviceVector {
public:
    explicit DeviceVector(std::size_t n) : n_(n) {
        if (cudaMalloc(&p_, std::max<std::size_t>(n, 1) * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
    }
    explicit DeviceVector(const std::vector<T>& v) : DeviceVector(v.size()) {
        if (cudaMemcpy(p_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
            throw std::runtime_error("cudaMemcpy");
    }
    ~DeviceVector() { (void)cudaFree(p_); }
    DeviceVector(const DeviceVector&) = delete;
    DeviceVector& operator=(const DeviceVector&) = delete;
    T* get() const { return static_cast<T*>(p_); }
    std::vector<T> to_host() const {
        std::vector<T> v(n_);
        if (cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("cudaMemcpy");
        return v;
    }

private:
    void* p_ = nullptr;
    std::size_t n_;
};

class CudaDevice : public ::testing::Test {
protected:
    void SetUp() override {
        if (!bb::cuda_device_available()) GTEST_SKIP() << bb::cuda_unavailable_reason();
    }
};

}  // namespace

// ---- without a device ---------------------------------------------------------------------------

TEST(CudaAvailability, AvailabilityIsConsistentAndExplained) {
    EXPECT_EQ(bb::cuda_device_available(), has_cuda_backend());
    EXPECT_EQ(bb::cuda_device_available(), bb::cuda_unavailable_reason().empty());
    if (!bb::cuda_device_available()) {
        // A library built with CUDA runs on a machine without a driver or a GPU: the CPU
        // engines work, and asking for the GPU is an error that says why, not a crash.
        const std::string why = bb::cuda_unavailable_reason();
        EXPECT_NE(why.find("CUDA"), std::string::npos) << why;
        Filter f(Params::for_fpr(1000, 0.01));
        EXPECT_THROW(f.set_backend(bb::Backend::cuda), bb::Error);
        EXPECT_THROW(bb::resolve_backend(bb::Backend::cuda), bb::Error);
        EXPECT_NE(bb::resolve_backend(bb::Backend::automatic), bb::Backend::cuda);
        try {
            DeviceFilter d(Params::for_fpr(1000, 0.01));
            ADD_FAILURE() << "a DeviceFilter was created without a device";
        } catch (const bb::Error& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
        // An explicit device number goes to the runtime, whose error names the call.
        try {
            DeviceFilter d(Params::for_fpr(1000, 0.01), {}, 0);
            ADD_FAILURE() << "a DeviceFilter was created on device 0 without a device";
        } catch (const bb::Error& e) {
            EXPECT_NE(std::string(e.what()).find("CUDA error in cuda"), std::string::npos) << e.what();
        }
    }
}

// ---- host pointers --------------------------------------------------------------------------------

TEST_F(CudaDevice, HostPointerBatchesBitExactWithScalar) {
    // Staging on one thread, on three, and on every core with chunks of 128K keys (several
    // chunks, each split across threads): the murmur3 filters hash on the host while staging.
    for (const auto& [shape, k] : bb::testing::engine_configs) {
        for (bb::HashKind hk : {bb::HashKind::xxh3, bb::HashKind::murmur3}) {
            for (unsigned threads : {1u, 3u, 0u}) {
                SCOPED_TRACE(bb::testing::label(shape, k) + " hash=" + std::string(bb::to_string(hk)) +
                             " threads=" + std::to_string(threads));
                const Params p = Params::make(shape, 40000, k);
                const bb::Hashing h{hk, 12345};
                Filter ref(p, h, bb::Backend::scalar);
                DeviceFilter dev(p, h);
                EXPECT_EQ(dev.threads(), 0u);  // every core by default, as for Filter
                dev.set_threads(threads);
                EXPECT_EQ(dev.threads(), threads);
                if (threads == 0) dev.set_chunk_keys(std::size_t(1) << 17);
                const auto keys = bb::testing::random_keys(400003, k, 0);
                ref.insert(keys);
                dev.insert(keys);
                ASSERT_TRUE(dev.to_host() == ref);

                const auto queries = bb::testing::half_present(keys, 300001, 7 * k);
                for (std::size_t n : {0, 1, 7, 33, 64, 1001, 8194, 200002, 300001}) {
                    SCOPED_TRACE("n=" + std::to_string(n));
                    ASSERT_NO_FATAL_FAILURE(bb::testing::expect_same_probes(ref, dev, std::span(queries).first(n)));
                }
            }
        }
    }
}

TEST_F(CudaDevice, SmallChunksAndPinnedMemoryGiveTheSameResults) {
    const Params p = Params::make(Shape::word512, 30011, 8);
    Filter ref(p, {}, bb::Backend::scalar);
    const auto keys = bb::testing::random_keys(300001, 77, 0);
    ref.insert(keys);
    DeviceFilter dev(p);
    dev.set_chunk_keys(1000);  // 1024 after rounding: ~300 chunks, alternating streams
    EXPECT_EQ(dev.chunk_keys(), 1024u);
    dev.insert(keys);
    ASSERT_TRUE(dev.to_host() == ref);

    const auto queries = bb::testing::half_present(keys, 150001, 78);
    std::vector<std::uint8_t> want(queries.size());
    ref.contains(queries, want);
    // Keys and results in pinned memory take the direct path.
    std::uint64_t* pinned_keys = nullptr;
    std::uint8_t* pinned_out = nullptr;
    ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned_keys), queries.size() * 8), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned_out), queries.size()), cudaSuccess);
    std::copy(queries.begin(), queries.end(), pinned_keys);
    dev.contains(std::span<const std::uint64_t>(pinned_keys, queries.size()), std::span<std::uint8_t>(pinned_out, queries.size()));
    EXPECT_TRUE(std::equal(want.begin(), want.end(), pinned_out));
    std::vector<std::uint8_t> got(queries.size());
    dev.set_chunk_keys(DeviceFilter::default_chunk_keys);
    dev.contains(queries, got);
    EXPECT_EQ(got, want);
    (void)cudaFreeHost(pinned_keys);
    (void)cudaFreeHost(pinned_out);
}

// ---- device pointers ------------------------------------------------------------------------------

TEST_F(CudaDevice, DevicePointerBatchesBitExactWithScalar) {
    for (const auto& [shape, k] : bb::testing::engine_configs) {
        SCOPED_TRACE(bb::testing::label(shape, k));
        const Params p = Params::make(shape, 20011, k);
        const bb::Hashing h{bb::HashKind::xxh3, 99};
        Filter ref(p, h, bb::Backend::scalar);
        const auto keys = bb::testing::random_keys(200003, k + 1, 0);
        ref.insert(keys);
        const auto queries = bb::testing::half_present(keys, 50001, k + 2);
        std::vector<std::uint8_t> want(queries.size());
        ref.contains(queries, want);
        std::vector<std::uint64_t> want_bits((queries.size() + 63) / 64);
        ref.contains_bitmap(queries, want_bits);

        DeviceVector<std::uint64_t> d_keys(keys), d_queries(queries);
        DeviceVector<std::uint8_t> d_out(queries.size());
        DeviceVector<std::uint64_t> d_bits(want_bits.size()), d_count(1);

        DeviceFilter sync(p, h);
        sync.insert_device(d_keys.get(), keys.size());
        ASSERT_TRUE(sync.to_host() == ref);
        sync.contains_device(d_queries.get(), queries.size(), d_out.get());
        ASSERT_EQ(d_out.to_host(), want);
        sync.contains_bitmap_device(d_queries.get(), queries.size(), d_bits.get());
        ASSERT_EQ(d_bits.to_host(), want_bits);
        ASSERT_EQ(sync.count_device(d_queries.get(), queries.size()), ref.count(queries));

        // The same on a stream of the caller's.
        cudaStream_t s = nullptr;
        ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
        DeviceFilter async(p, h);
        async.clear_async(s);
        async.insert_device_async(d_keys.get(), keys.size(), s);
        async.contains_device_async(d_queries.get(), queries.size(), d_out.get(), s);
        async.contains_bitmap_device_async(d_queries.get(), queries.size(), d_bits.get(), s);
        ASSERT_EQ(cudaMemsetAsync(d_count.get(), 0, 8, s), cudaSuccess);
        async.count_device_async(d_queries.get(), queries.size(), d_count.get(), s);
        ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
        ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
        ASSERT_TRUE(async.to_host() == ref);
        ASSERT_EQ(d_out.to_host(), want);
        ASSERT_EQ(d_bits.to_host(), want_bits);
        ASSERT_EQ(d_count.to_host()[0], ref.count(queries));
    }
}

TEST_F(CudaDevice, HashInputAndMurmurFilters) {
    const Params p = Params::make(Shape::split256, 5003, 8);
    const bb::Hashing h{bb::HashKind::murmur3, 5};
    Filter ref(p, h, bb::Backend::scalar);
    const auto keys = bb::testing::random_keys(50000, 1, 0);
    ref.insert(keys);
    std::vector<std::uint64_t> hashes(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) hashes[i] = ref.hash(keys[i]);
    DeviceVector<std::uint64_t> d_keys(keys), d_hashes(hashes);
    DeviceFilter dev(p, h);
    // Murmur3 integer keys cannot be hashed in the kernel: a clear error, then hashes work.
    EXPECT_THROW(dev.insert_device(d_keys.get(), keys.size()), bb::Error);
    dev.insert_device(d_hashes.get(), hashes.size(), Input::hashes);
    ASSERT_TRUE(dev.to_host() == ref);
    EXPECT_EQ(dev.count(keys), keys.size());                 // host keys: hashed on the host
    EXPECT_EQ(dev.count(hashes, Input::hashes), keys.size());
}

// ---- copies and the engine table --------------------------------------------------------------------

TEST_F(CudaDevice, FiltersMoveBetweenHostAndDevice) {
    const Params p = Params::for_fpr(100000, 0.01, Shape::line512);
    Filter host(p, {bb::HashKind::xxh3, 3});
    const auto a = bb::testing::random_keys(50000, 1, 0), b = bb::testing::random_keys(50000, 2, 0);
    host.insert(a);
    DeviceFilter dev(host);  // built on the CPU, continued on the GPU ...
    dev.insert(b);
    Filter back = dev.to_host();  // ... and probed on the CPU
    EXPECT_EQ(back.count(a), a.size());
    EXPECT_EQ(back.count(b), b.size());
    Filter ref(p, {bb::HashKind::xxh3, 3}, bb::Backend::scalar);
    ref.insert(a);
    ref.insert(b);
    EXPECT_TRUE(back == ref);
    dev.clear();
    dev.copy_to(back);
    EXPECT_EQ(back.fill_ratio(), 0.0);
    Filter other(Params::for_fpr(1000, 0.01), {});
    EXPECT_THROW(dev.copy_to(other), bb::Error);
    EXPECT_THROW(dev.copy_from(other), bb::Error);
}

TEST_F(CudaDevice, BackendCudaThroughFilterBitExact) {
    ASSERT_TRUE(has_cuda_backend());
    for (const auto& [shape, k] : bb::testing::engine_configs) {
        for (unsigned threads : {1u, 0u}) {
            SCOPED_TRACE(bb::testing::label(shape, k) + " threads=" + std::to_string(threads));
            const Params p = Params::make(shape, 30011, k);
            Filter ref(p, {}, bb::Backend::scalar), got(p, {}, bb::Backend::cuda);
            got.set_threads(threads);
            const auto keys = bb::testing::random_keys(300001, 77, 0);
            ref.insert(keys);
            got.insert(keys);
            ASSERT_TRUE(ref == got);
            const auto queries = bb::testing::half_present(keys, 150001, 78);
            ASSERT_NO_FATAL_FAILURE(bb::testing::expect_same_probes(ref, got, queries));
        }
    }
}

TEST_F(CudaDevice, MisuseIsAClearError) {
    DeviceFilter dev(Params::for_fpr(1000, 0.01));
    const std::vector<std::uint64_t> keys(100, 1);
    std::vector<std::uint8_t> out(99);
    EXPECT_THROW(dev.contains(keys, out), bb::Error);
    std::vector<std::uint64_t> bitmap(1);
    EXPECT_THROW(dev.contains_bitmap(keys, bitmap), bb::Error);
    DeviceVector<std::uint64_t> d_keys(keys);
    try {
        dev.insert(std::span<const std::uint64_t>(d_keys.get(), keys.size()));
        ADD_FAILURE() << "device memory was accepted as host keys";
    } catch (const bb::Error& e) {
        EXPECT_NE(std::string(e.what()).find("device memory"), std::string::npos) << e.what();
    }
    EXPECT_THROW(DeviceFilter(Params::for_fpr(1000, 0.01), {}, 1 << 20), bb::Error);  // no such device
}

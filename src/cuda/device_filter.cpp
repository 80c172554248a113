// DeviceFilter: a filter in GPU memory (include/batchbloom/cuda.hpp), and the device check.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>

#include "batchbloom/cuda.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch.hpp"
#include "cuda/staging.hpp"

namespace batchbloom {

namespace {

struct DeviceStatus {
    bool available = false;
    std::string reason;
};

DeviceStatus probe_device() {
    int count = 0;
    if (const cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess) {
        (void)cudaGetLastError();
        return {false, "no CUDA device: " + cuda_impl::describe(err, "cudaGetDeviceCount failed")};
    }
    if (count == 0) return {false, "no CUDA device: cudaGetDeviceCount found none"};
    int device = 0, major = 0, minor = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
        const cudaError_t err = cudaGetLastError();
        return {false, "no usable CUDA device: " + cuda_impl::describe(err, "querying the current device")};
    }
    if (major < 8) {
        (void)cudaGetDeviceProperties(&prop, device);
        (void)cudaGetLastError();
        return {false, "CUDA device " + std::to_string(device) + " (" + prop.name + ") has compute capability " +
                           std::to_string(major) + "." + std::to_string(minor) +
                           "; batchbloom's CUDA kernels need 8.0 or newer"};
    }
    return {true, ""};
}

const DeviceStatus& device_status() {
    static const DeviceStatus status = [] {
        try {
            return probe_device();
        } catch (...) {
            return DeviceStatus{false, "no CUDA device: the device check failed"};
        }
    }();
    return status;
}

}  // namespace

bool cuda_device_available() noexcept {
    try {
        return device_status().available;
    } catch (...) {
        return false;
    }
}

std::string cuda_unavailable_reason() { return device_status().reason; }

namespace cuda {

using cuda_impl::check;
using cuda_impl::DeviceGuard;

struct DeviceFilter::Impl {
    Params params;
    Hashing hashing;
    int device = 0;
    unsigned grid_cap = 0;
    cuda_impl::DeviceBuffer blocks;
    std::size_t chunk = default_chunk_keys;
    std::atomic<unsigned> threads{0};  // every core; read by threads() without the lock
    mutable std::mutex staging_lock;  // guards staging and counter
    mutable std::unique_ptr<cuda_impl::Staging> staging;
    mutable cuda_impl::DeviceBuffer counter;

    cuda_impl::DeviceRef ref() const {
        return {blocks.get(), params.blocks, 0, params.shape, params.k};
    }
    cuda_impl::Launch launch(stream_t s) const { return {static_cast<cudaStream_t>(s), grid_cap}; }

    /// What the kernels apply to device-memory input.
    cuda_impl::Hasher device_hasher(Input input, const char* op) const {
        if (input == Input::hashes) return {false, 0};
        if (hashing.kind != HashKind::xxh3)
            throw Error(std::string("DeviceFilter::") + op +
                        ": integer keys in device memory need HashKind::xxh3 (hashed inside the kernel); "
                        "this filter uses " + std::string(to_string(hashing.kind)) +
                        ": pass hashes (Input::hashes) or keys in host memory");
        return {true, hashing.seed};
    }

    std::uint64_t run_host(std::span<const std::uint64_t> keys, Input input, cuda_impl::Op op, void* out) const {
        cuda_impl::HostBatch batch{keys.data(), keys.size(), {false, 0}, nullptr};
        if (input == Input::keys) {
            if (hashing.kind == HashKind::xxh3)
                batch.device_hash = {true, hashing.seed};
            else
                batch.host_hash = &hashing;
        }
        std::lock_guard<std::mutex> lock(staging_lock);
        if (!staging) {
            staging = std::make_unique<cuda_impl::Staging>(device, chunk);
            staging->set_threads(threads);
        }
        return staging->run(ref(), batch, op, out);
    }

    void sync(stream_t s, const char* op) const {
        check(cudaStreamSynchronize(static_cast<cudaStream_t>(s)),
              std::string("cudaStreamSynchronize (after DeviceFilter::") + op + ")");
    }

    void check_host(const Filter& host, const char* op) const {
        if (!(host.params() == params) || !(host.hashing() == hashing))
            throw Error(std::string("DeviceFilter::") + op + ": the host filter has different params or hashing");
    }
};

namespace {

int resolve_device(int device) {
    if (device >= 0) return device;
    if (!cuda_device_available()) throw Error("DeviceFilter: " + cuda_unavailable_reason());
    int current = 0;
    check(cudaGetDevice(&current), "cudaGetDevice");
    return current;
}

}  // namespace

DeviceFilter::DeviceFilter(const Params& params, const Hashing& hashing, int device) : impl_(std::make_unique<Impl>()) {
    params.validate();
    validate(hashing);
    impl_->params = params;
    impl_->hashing = hashing;
    impl_->device = resolve_device(device);
    DeviceGuard g(impl_->device);
    impl_->grid_cap = cuda_impl::grid_cap(impl_->device);
    impl_->blocks = cuda_impl::DeviceBuffer(params.bytes(), "the filter");
    check(cudaMemset(impl_->blocks.get(), 0, params.bytes()), "cudaMemset(the filter)");
}

DeviceFilter::DeviceFilter(const Filter& host, int device) : DeviceFilter(host.params(), host.hashing(), device) {
    copy_from(host);
}

DeviceFilter::DeviceFilter(DeviceFilter&&) noexcept = default;
DeviceFilter& DeviceFilter::operator=(DeviceFilter&&) noexcept = default;

DeviceFilter::~DeviceFilter() {
    if (!impl_) return;
    int current = -1;
    if (cudaGetDevice(&current) == cudaSuccess && current != impl_->device) (void)cudaSetDevice(impl_->device);
    impl_->staging.reset();
    impl_->counter = cuda_impl::DeviceBuffer();
    impl_->blocks = cuda_impl::DeviceBuffer();
    if (current >= 0 && current != impl_->device) (void)cudaSetDevice(current);
    (void)cudaGetLastError();
}

const Params& DeviceFilter::params() const noexcept { return impl_->params; }
const Hashing& DeviceFilter::hashing() const noexcept { return impl_->hashing; }
int DeviceFilter::device() const noexcept { return impl_->device; }
void* DeviceFilter::data() noexcept { return impl_->blocks.get(); }
const void* DeviceFilter::data() const noexcept { return impl_->blocks.get(); }

// ---- host copies ----------------------------------------------------------------------------

Filter DeviceFilter::to_host() const {
    Filter host(impl_->params, impl_->hashing);
    copy_to(host);
    return host;
}

void DeviceFilter::copy_to(Filter& host) const {
    impl_->check_host(host, "copy_to");
    DeviceGuard g(impl_->device);
    const auto bytes = host.mutable_bytes();
    check(cudaMemcpy(bytes.data(), impl_->blocks.get(), bytes.size(), cudaMemcpyDeviceToHost),
          "cudaMemcpy(" + std::to_string(bytes.size()) + " bytes of filter to the host)");
}

void DeviceFilter::copy_from(const Filter& host) {
    impl_->check_host(host, "copy_from");
    DeviceGuard g(impl_->device);
    const auto bytes = host.bytes();
    check(cudaMemcpy(impl_->blocks.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice),
          "cudaMemcpy(" + std::to_string(bytes.size()) + " bytes of filter to the device)");
}

void DeviceFilter::clear() {
    clear_async(nullptr);
    impl_->sync(nullptr, "clear");
}

void DeviceFilter::clear_async(stream_t stream) {
    DeviceGuard g(impl_->device);
    check(cudaMemsetAsync(impl_->blocks.get(), 0, impl_->params.bytes(), static_cast<cudaStream_t>(stream)),
          "cudaMemsetAsync(the filter)");
}

// ---- keys in device memory ------------------------------------------------------------------

void DeviceFilter::insert_device(const std::uint64_t* keys, std::size_t n, Input input) {
    insert_device_async(keys, n, nullptr, input);
    impl_->sync(nullptr, "insert_device");
}

void DeviceFilter::insert_device_async(const std::uint64_t* keys, std::size_t n, stream_t stream, Input input) {
    const auto h = impl_->device_hasher(input, "insert_device");
    DeviceGuard g(impl_->device);
    cuda_impl::launch_insert(impl_->ref(), keys, n, h, impl_->launch(stream));
}

void DeviceFilter::contains_device(const std::uint64_t* keys, std::size_t n, std::uint8_t* out, Input input) const {
    contains_device_async(keys, n, out, nullptr, input);
    impl_->sync(nullptr, "contains_device");
}

void DeviceFilter::contains_device_async(const std::uint64_t* keys, std::size_t n, std::uint8_t* out, stream_t stream,
                                         Input input) const {
    const auto h = impl_->device_hasher(input, "contains_device");
    DeviceGuard g(impl_->device);
    cuda_impl::launch_contains_bytes(impl_->ref(), keys, n, h, out, impl_->launch(stream));
}

void DeviceFilter::contains_bitmap_device(const std::uint64_t* keys, std::size_t n, std::uint64_t* bitmap,
                                          Input input) const {
    contains_bitmap_device_async(keys, n, bitmap, nullptr, input);
    impl_->sync(nullptr, "contains_bitmap_device");
}

void DeviceFilter::contains_bitmap_device_async(const std::uint64_t* keys, std::size_t n, std::uint64_t* bitmap,
                                                stream_t stream, Input input) const {
    const auto h = impl_->device_hasher(input, "contains_bitmap_device");
    DeviceGuard g(impl_->device);
    cuda_impl::launch_contains_bits(impl_->ref(), keys, n, h, bitmap, impl_->launch(stream));
}

std::size_t DeviceFilter::count_device(const std::uint64_t* keys, std::size_t n, Input input) const {
    if (n == 0) return 0;
    std::lock_guard<std::mutex> lock(impl_->staging_lock);
    DeviceGuard g(impl_->device);
    if (impl_->counter.get() == nullptr) impl_->counter = cuda_impl::DeviceBuffer(sizeof(std::uint64_t), "a hit counter");
    auto* counter = impl_->counter.as<std::uint64_t>();
    check(cudaMemsetAsync(counter, 0, sizeof(std::uint64_t), nullptr), "cudaMemsetAsync(hit counter)");
    count_device_async(keys, n, counter, nullptr, input);
    std::uint64_t hits = 0;
    check(cudaMemcpy(&hits, counter, sizeof hits, cudaMemcpyDeviceToHost),
          "cudaMemcpy(hit count to the host, after DeviceFilter::count_device)");
    return static_cast<std::size_t>(hits);
}

void DeviceFilter::count_device_async(const std::uint64_t* keys, std::size_t n, std::uint64_t* count, stream_t stream,
                                      Input input) const {
    static_assert(sizeof(std::uint64_t) == sizeof(unsigned long long));
    const auto h = impl_->device_hasher(input, "count_device");
    DeviceGuard g(impl_->device);
    cuda_impl::launch_count(impl_->ref(), keys, n, h, reinterpret_cast<unsigned long long*>(count),
                            impl_->launch(stream));
}

// ---- keys in host memory --------------------------------------------------------------------

void DeviceFilter::insert(std::span<const std::uint64_t> keys, Input input) {
    impl_->run_host(keys, input, cuda_impl::Op::insert, nullptr);
}

void DeviceFilter::contains(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out, Input input) const {
    if (out.size() != keys.size())
        throw Error("DeviceFilter::contains: output has " + std::to_string(out.size()) + " entries for " +
                    std::to_string(keys.size()) + " keys");
    impl_->run_host(keys, input, cuda_impl::Op::contains_bytes, out.data());
}

void DeviceFilter::contains_bitmap(std::span<const std::uint64_t> keys, std::span<std::uint64_t> bitmap,
                                   Input input) const {
    const std::size_t words = (keys.size() + 63) / 64;
    if (bitmap.size() < words)
        throw Error("DeviceFilter::contains_bitmap: bitmap has " + std::to_string(bitmap.size()) + " words; " +
                    std::to_string(keys.size()) + " keys need " + std::to_string(words));
    impl_->run_host(keys, input, cuda_impl::Op::contains_bits, bitmap.data());
}

std::size_t DeviceFilter::count(std::span<const std::uint64_t> keys, Input input) const {
    return static_cast<std::size_t>(impl_->run_host(keys, input, cuda_impl::Op::count, nullptr));
}

void DeviceFilter::set_chunk_keys(std::size_t keys) {
    std::lock_guard<std::mutex> lock(impl_->staging_lock);
    impl_->chunk = (std::max<std::size_t>(keys, 64) + 63) / 64 * 64;
    if (impl_->staging) impl_->staging->set_chunk(impl_->chunk);
}

std::size_t DeviceFilter::chunk_keys() const noexcept { return impl_->chunk; }

void DeviceFilter::set_threads(unsigned threads) {
    std::lock_guard<std::mutex> lock(impl_->staging_lock);
    impl_->threads = threads;
    if (impl_->staging) impl_->staging->set_threads(threads);
}

unsigned DeviceFilter::threads() const noexcept { return impl_->threads; }

}  // namespace cuda
}  // namespace batchbloom

// Run-time shape dispatch to the per-shape launchers of kernels_<shape>.cu.
#include "cuda/launch.hpp"

namespace batchbloom::cuda_impl {

unsigned grid_cap(int device) {
    int sms = 0, threads = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms <= 0) sms = 132;
    if (cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device) != cudaSuccess ||
        threads < static_cast<int>(threads_per_block))
        threads = 2048;
    (void)cudaGetLastError();  // an attribute query that failed is not the caller's error
    return 2U * static_cast<unsigned>(sms) * (static_cast<unsigned>(threads) / threads_per_block);
}

void launch_insert(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h, const Launch& l) {
    layout::visit_shape(f.shape, [&](auto tag) { ShapeLaunch<decltype(tag)::value>::insert(f, keys, n, h, l); });
}

void launch_contains_bytes(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                           std::uint8_t* out, const Launch& l) {
    layout::visit_shape(f.shape,
                        [&](auto tag) { ShapeLaunch<decltype(tag)::value>::contains_bytes(f, keys, n, h, out, l); });
}

void launch_contains_bits(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                          std::uint64_t* out, const Launch& l) {
    layout::visit_shape(f.shape,
                        [&](auto tag) { ShapeLaunch<decltype(tag)::value>::contains_bits(f, keys, n, h, out, l); });
}

void launch_count(const DeviceRef& f, const std::uint64_t* keys, std::size_t n, Hasher h,
                  unsigned long long* count, const Launch& l) {
    layout::visit_shape(f.shape, [&](auto tag) { ShapeLaunch<decltype(tag)::value>::count(f, keys, n, h, count, l); });
}

}  // namespace batchbloom::cuda_impl

#pragma once
// CUDA runtime helpers for the host side of the CUDA engine: every failing call becomes a
// batchbloom::Error that names the call; owning wrappers for device memory, pinned host memory
// and streams, whose destructors never throw (errors there are dropped: a destructor that
// runs during unwinding or at process exit has no one to report to).
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "batchbloom/error.hpp"

namespace batchbloom::cuda_impl {

/// "cudaMalloc(4096 bytes): out of memory (cudaErrorMemoryAllocation)".
inline std::string describe(cudaError_t err, const std::string& call) {
    return call + ": " + cudaGetErrorString(err) + " (" + cudaGetErrorName(err) + ")";
}

/// Throws Error("CUDA error in <call>: ...") unless err is cudaSuccess. Clears the runtime's
/// last-error state, so that one failure is reported once.
inline void check(cudaError_t err, const std::string& call) {
    if (err == cudaSuccess) return;
    (void)cudaGetLastError();
    throw Error("CUDA error in " + describe(err, call));
}

/// Makes `device` current for a scope and restores the previous one.
class DeviceGuard {
public:
    explicit DeviceGuard(int device) {
        check(cudaGetDevice(&previous_), "cudaGetDevice");
        if (previous_ != device) check(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
    }
    ~DeviceGuard() {
        int now = -1;
        if (cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
    }
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    int previous_ = 0;
};

/// Device memory of the current device.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(std::size_t bytes, const char* what) : bytes_(bytes) {
        if (bytes != 0) check(cudaMalloc(&p_, bytes), "cudaMalloc(" + std::to_string(bytes) + " bytes for " + what + ")");
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(bytes_, o.bytes_);
        return *this;
    }
    ~DeviceBuffer() {
        if (p_ != nullptr) (void)cudaFree(p_);
    }
    void* get() const noexcept { return p_; }
    std::size_t bytes() const noexcept { return bytes_; }
    template <class T>
    T* as() const noexcept {
        return static_cast<T*>(p_);
    }

private:
    void* p_ = nullptr;
    std::size_t bytes_ = 0;
};

/// Page-locked host memory (the staging buffers of host-pointer transfers).
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    PinnedBuffer(std::size_t bytes, const char* what) : bytes_(bytes) {
        if (bytes != 0)
            check(cudaMallocHost(&p_, bytes), "cudaMallocHost(" + std::to_string(bytes) + " bytes for " + what + ")");
    }
    PinnedBuffer(PinnedBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(bytes_, o.bytes_);
        return *this;
    }
    ~PinnedBuffer() {
        if (p_ != nullptr) (void)cudaFreeHost(p_);
    }
    void* get() const noexcept { return p_; }
    std::size_t bytes() const noexcept { return bytes_; }
    template <class T>
    T* as() const noexcept {
        return static_cast<T*>(p_);
    }

private:
    void* p_ = nullptr;
    std::size_t bytes_ = 0;
};

/// A stream of the current device. A blocking one (the default kind): work on it waits for work
/// queued earlier on the legacy default stream, so a host-pointer call sees the results of the
/// caller's earlier `_async` calls on stream nullptr.
class Stream {
public:
    Stream() { check(cudaStreamCreate(&s_), "cudaStreamCreate"); }
    ~Stream() {
        if (s_ != nullptr) {
            (void)cudaStreamSynchronize(s_);
            (void)cudaStreamDestroy(s_);
        }
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const noexcept { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

}  // namespace batchbloom::cuda_impl

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

/// How a Buffer gets and returns its memory.
struct DeviceMemory {  // device memory of the current device
    static cudaError_t allocate(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
    static void release(void* p) { (void)cudaFree(p); }
    static constexpr const char* call = "cudaMalloc";
};
struct PinnedMemory {  // page-locked host memory (the staging buffers of host-pointer transfers)
    static cudaError_t allocate(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }
    static void release(void* p) { (void)cudaFreeHost(p); }
    static constexpr const char* call = "cudaMallocHost";
};

/// Owned CUDA memory of one kind.
template <class Memory>
class Buffer {
public:
    Buffer() = default;
    Buffer(std::size_t bytes, const char* what) : bytes_(bytes) {
        if (bytes != 0)
            check(Memory::allocate(&p_, bytes),
                  std::string(Memory::call) + "(" + std::to_string(bytes) + " bytes for " + what + ")");
    }
    Buffer(Buffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    Buffer& operator=(Buffer&& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(bytes_, o.bytes_);
        return *this;
    }
    ~Buffer() {
        if (p_ != nullptr) Memory::release(p_);
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

using DeviceBuffer = Buffer<DeviceMemory>;
using PinnedBuffer = Buffer<PinnedMemory>;

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

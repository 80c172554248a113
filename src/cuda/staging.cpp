#include "cuda/staging.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "batch/threads.hpp"

namespace batchbloom::cuda_impl {

namespace {

std::size_t round64(std::size_t n) { return (n + 63) / 64 * 64; }

/// fn(range) over [0, n) on up to `threads` host threads (resolved; fewer for small n).
template <class Fn>
void split(std::size_t n, unsigned threads, Fn&& fn) {
    detail::each_part(n, detail::threads_for(n, threads), 64, fn);
}

/// What kind of memory p is; any error counts as ordinary (pageable) host memory.
cudaMemoryType memory_type(const void* p) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return cudaMemoryTypeUnregistered;
    }
    return a.type;
}

}  // namespace

struct Staging::Slot {
    Stream stream;
    PinnedBuffer keys, out;     // staged keys; results on their way back
    DeviceBuffer d_keys, d_out;
    void* dest = nullptr;       // where the results in `out` go once the slot's work is done
    std::size_t dest_bytes = 0;

    /// Delivers the slot's results (its stream must be idle).
    void deliver(unsigned threads) {
        if (dest != nullptr) {
            auto* to = static_cast<std::byte*>(dest);
            const auto* from = out.as<std::byte>();
            split(dest_bytes, threads, [&](detail::Range r) { std::memcpy(to + r.begin, from + r.begin, r.size()); });
        }
        dest = nullptr;
    }
};

Staging::Staging(int device, std::size_t chunk) : device_(device), chunk_(round64(std::max<std::size_t>(chunk, 64))) {
    DeviceGuard g(device_);
    grid_cap_ = grid_cap(device_);
    for (auto& s : slots_) s = std::make_unique<Slot>();
    counters_ = DeviceBuffer(2 * sizeof(unsigned long long), "hit counters");
}

Staging::~Staging() {
    int current = -1;
    if (cudaGetDevice(&current) == cudaSuccess && current != device_) (void)cudaSetDevice(device_);
    for (auto& s : slots_) s.reset();  // each stream waits for its work before it goes
    counters_ = DeviceBuffer();
    if (current >= 0 && current != device_) (void)cudaSetDevice(current);
}

void Staging::set_chunk(std::size_t keys) {
    chunk_ = round64(std::max<std::size_t>(keys, 64));
    if (capacity_ > chunk_) capacity_ = 0;  // smaller buffers from the next run on
}

void Staging::reserve(std::size_t keys) {
    if (keys <= capacity_) return;
    for (auto& s : slots_) {
        s->keys = PinnedBuffer();  // free first: the old and new buffers need not coexist
        s->out = PinnedBuffer();
        s->d_keys = DeviceBuffer();
        s->d_out = DeviceBuffer();
        s->keys = PinnedBuffer(keys * sizeof(std::uint64_t), "staged keys");
        s->out = PinnedBuffer(keys, "staged results");
        s->d_keys = DeviceBuffer(keys * sizeof(std::uint64_t), "staged keys");
        s->d_out = DeviceBuffer(keys, "staged results");
    }
    capacity_ = keys;
}

std::uint64_t Staging::run(const DeviceRef& f, const HostBatch& in, Op op, void* out) {
    if (in.n == 0) return 0;
    DeviceGuard g(device_);
    const unsigned threads = detail::resolve_threads(threads_);
    const cudaMemoryType keys_type = memory_type(in.keys);
    if (keys_type == cudaMemoryTypeDevice)
        throw Error("the keys are in device memory: pass them to the *_device functions");
    const std::size_t chunk = std::min(chunk_, round64(in.n));
    reserve(chunk);

    // Pinned inputs and outputs skip the staging copy.
    const bool keys_pinned = in.host_hash == nullptr && keys_type == cudaMemoryTypeHost;
    const bool out_pinned = out != nullptr && memory_type(out) == cudaMemoryTypeHost;

    // Whatever happens, no buffer is reused or freed while a transfer into it may still run.
    struct Drain {
        Staging& st;
        bool armed = true;
        ~Drain() {
            if (!armed) return;
            for (auto& s : st.slots_) {
                (void)cudaStreamSynchronize(s->stream.get());
                s->dest = nullptr;
            }
            (void)cudaGetLastError();
        }
    } drain{*this};

    auto* counters = counters_.as<unsigned long long>();
    if (op == Op::count) {
        check(cudaMemsetAsync(counters, 0, 2 * sizeof(unsigned long long), slots_[0]->stream.get()),
              "cudaMemsetAsync(hit counters)");
        check(cudaStreamSynchronize(slots_[0]->stream.get()), "cudaStreamSynchronize(hit counters)");
    }

    for (std::size_t begin = 0, c = 0; begin < in.n; begin += chunk, ++c) {
        Slot& s = *slots_[c % 2];
        const std::size_t len = std::min(chunk, in.n - begin);
        const cudaStream_t stream = s.stream.get();
        // The slot's previous chunk must be done before its buffers are refilled.
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(staging stream)");
        s.deliver(threads);

        const std::uint64_t* src = in.keys + begin;
        if (!keys_pinned) {
            auto* staged = s.keys.as<std::uint64_t>();
            split(len, threads, [&](detail::Range r) {
                if (in.host_hash != nullptr) {
                    for (std::size_t i = r.begin; i < r.end; ++i) staged[i] = hash_key(*in.host_hash, src[i]);
                } else {
                    std::memcpy(staged + r.begin, src + r.begin, r.size() * sizeof(std::uint64_t));
                }
            });
            src = staged;
        }
        check(cudaMemcpyAsync(s.d_keys.get(), src, len * sizeof(std::uint64_t), cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync(" + std::to_string(len * sizeof(std::uint64_t)) + " bytes of keys to the device)");

        const Launch l{stream, grid_cap_};
        const auto* d_keys = s.d_keys.as<const std::uint64_t>();
        std::size_t result_bytes = 0;
        void* dest = nullptr;
        switch (op) {
            case Op::insert: launch_insert(f, d_keys, len, in.device_hash, l); break;
            case Op::count: launch_count(f, d_keys, len, in.device_hash, counters + c % 2, l); break;
            case Op::contains_bytes:
                launch_contains_bytes(f, d_keys, len, in.device_hash, s.d_out.as<std::uint8_t>(), l);
                result_bytes = len;
                dest = static_cast<std::uint8_t*>(out) + begin;
                break;
            case Op::contains_bits:
                launch_contains_bits(f, d_keys, len, in.device_hash, s.d_out.as<std::uint64_t>(), l);
                result_bytes = (len + 63) / 64 * sizeof(std::uint64_t);
                dest = static_cast<std::uint64_t*>(out) + begin / 64;  // chunks are whole bitmap words
                break;
        }
        if (result_bytes != 0) {
            void* to = out_pinned ? dest : s.out.get();
            check(cudaMemcpyAsync(to, s.d_out.get(), result_bytes, cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync(" + std::to_string(result_bytes) + " bytes of results to the host)");
            if (!out_pinned) s.dest = dest, s.dest_bytes = result_bytes;
        }
    }
    for (auto& s : slots_) {
        check(cudaStreamSynchronize(s->stream.get()), "cudaStreamSynchronize(staging stream)");
        s->deliver(threads);
    }
    drain.armed = false;

    if (op != Op::count) return 0;
    unsigned long long hits[2] = {0, 0};
    check(cudaMemcpy(hits, counters, sizeof hits, cudaMemcpyDeviceToHost), "cudaMemcpy(hit counters to the host)");
    return hits[0] + hits[1];
}

// ---- the Engine-table path's shared staging --------------------------------------------------

namespace {

struct Pool {
    std::mutex m;
    std::vector<std::unique_ptr<Staging>> idle;
};

Pool& pool() {
    static Pool* p = new Pool;  // deliberately never destroyed (see StagingLease)
    return *p;
}

}  // namespace

StagingLease::StagingLease(int device) {
    {
        std::lock_guard<std::mutex> lock(pool().m);
        auto& idle = pool().idle;
        const auto it = std::find_if(idle.begin(), idle.end(), [&](const auto& s) { return s->device() == device; });
        if (it != idle.end()) {
            s_ = std::move(*it);
            idle.erase(it);
        }
    }
    // Smaller chunks than a DeviceFilter's: the batch layer may call the engine from every host
    // thread at once, each with a staging object of its own.
    if (!s_) s_ = std::make_unique<Staging>(device, std::size_t(1) << 20);
}

StagingLease::~StagingLease() {
    std::lock_guard<std::mutex> lock(pool().m);
    try {
        pool().idle.push_back(std::move(s_));
    } catch (...) {
        // Out of memory for the pool's list: the staging object is simply freed.
    }
}

}  // namespace batchbloom::cuda_impl

// GPU benchmark of the CUDA engine: bulk insert and probe throughput (G keys/s) for filters
// from L2-resident (1 MiB) to HBM-resident (GiBs), at 50% and 0% probe hit rates, with the
// achieved memory traffic as a fraction of the device's peak bandwidth (from cudaDeviceProp
// and the memory clock), for keys already on the GPU (device pointers: kernels only) and keys
// in host memory (host pointers: pinned staging, transfers and kernels overlapped).
// Beside each filter size two limit rows give the device's rate of random whole-block reads
// over the filter's own memory (random_reads.cu: blocks read by one thread each or by a tile
// of threads, the best depth of each), and the device probe rows their fraction of the faster.
//
// Without a CUDA device it says so and exits 0.
//
//   batchbloom_cuda_bench [--keys N] [--min-mib M] [--max-mib M] [--shape S] [--repeat R]
//                         [--threads T] [--device-only] [--quick]
#include <cuda_runtime.h>

#include <algorithm>
#include <batchbloom/cuda.hpp>
#include <batchbloom/filter.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "random_reads.hpp"

namespace bb = batchbloom;
using bb::cuda::DeviceFilter;

namespace {

struct Options {
    std::size_t probe_keys = std::size_t(1) << 26;  // keys per probe batch (and max per insert batch)
    std::size_t min_mib = 1;                        // smallest filter
    std::size_t max_mib = 4096;                     // largest filter
    std::vector<bb::Shape> shapes = {bb::Shape::split256, bb::Shape::word512, bb::Shape::line512};
    int repeat = 5;
    unsigned threads = 0;      // host threads of the host-pointer rows (0: every core, the default)
    bool device_only = false;  // no host-pointer rows
    bool quick = false;
};

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "batchbloom_cuda_bench: %s\n"
                 "usage: batchbloom_cuda_bench [--keys N] [--min-mib M] [--max-mib M] "
                 "[--shape split256|word512|line512] [--repeat R] [--threads T] [--device-only] [--quick]\n",
                 why);
    std::exit(2);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(("missing value after " + a).c_str());
            return argv[++i];
        };
        if (a == "--keys") {
            o.probe_keys = std::strtoull(value().c_str(), nullptr, 10);
        } else if (a == "--min-mib") {
            o.min_mib = std::max<std::size_t>(1, std::strtoull(value().c_str(), nullptr, 10));
        } else if (a == "--threads") {
            const std::string v = value();
            char* end = nullptr;
            const unsigned long t = std::strtoul(v.c_str(), &end, 10);
            if (v.empty() || *end != '\0' || v[0] == '-' || t > 1024) usage("--threads takes 0 (every core) to 1024");
            o.threads = static_cast<unsigned>(t);
        } else if (a == "--device-only") {
            o.device_only = true;
        } else if (a == "--max-mib") {
            o.max_mib = std::strtoull(value().c_str(), nullptr, 10);
        } else if (a == "--shape") {
            o.shapes = {bb::parse_shape(value())};
        } else if (a == "--repeat") {
            o.repeat = std::max(1, std::atoi(value().c_str()));
        } else if (a == "--quick") {
            o.quick = true;
            o.probe_keys = std::size_t(1) << 20;
            o.max_mib = 16;
            o.repeat = 2;
        } else {
            usage(("unknown argument " + a).c_str());
        }
    }
    if (o.probe_keys < 1024) usage("--keys must be at least 1024");
    if (o.min_mib > o.max_mib) usage("--min-mib is above --max-mib (--quick sets --max-mib 16): nothing to measure");
    return o;
}

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

std::uint64_t splitmix(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/// n random keys with the given low bit (inserted keys even, absent keys odd).
std::vector<std::uint64_t> keys(std::size_t n, std::uint64_t seed, unsigned parity) {
    std::vector<std::uint64_t> v(n);
    for (auto& k : v) k = (splitmix(seed) & ~std::uint64_t(1)) | parity;
    return v;
}

template <class T>
struct DeviceArray {
    T* p = nullptr;
    explicit DeviceArray(std::size_t n) { check(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc"); }
    DeviceArray(const std::vector<T>& v) : DeviceArray(v.size()) {
        check(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    ~DeviceArray() { (void)cudaFree(p); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
};

struct Device {
    std::string name;
    double peak_gbs = 0;  // DRAM bandwidth, GB/s
    std::size_t l2 = 0, free_bytes = 0;
    unsigned grid = 0;  // the engine's grid: every SM full, twice over
};

Device describe_device() {
    int dev = 0, clock_khz = 0;
    cudaDeviceProp prop{};
    check(cudaGetDevice(&dev), "cudaGetDevice");
    check(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
    check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev), "cudaDeviceGetAttribute");
    std::size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    Device d;
    d.name = prop.name;
    // Double data rate: two transfers per clock over the whole bus.
    d.peak_gbs = 2.0 * clock_khz * 1e3 * (prop.memoryBusWidth / 8.0) / 1e9;
    d.l2 = static_cast<std::size_t>(prop.l2CacheSize);
    d.free_bytes = free_b;
    d.grid = 2U * static_cast<unsigned>(prop.multiProcessorCount) *
             static_cast<unsigned>(prop.maxThreadsPerMultiProcessor / 256);
    return d;
}

/// Best of `repeat` timings of fn() in seconds, by events on the default stream; `reset` runs
/// before each (untimed).
template <class Reset, class Fn>
double time_device(int repeat, Reset&& reset, Fn&& fn) {
    cudaEvent_t a, b;
    check(cudaEventCreate(&a), "cudaEventCreate");
    check(cudaEventCreate(&b), "cudaEventCreate");
    double best = 1e30;
    for (int r = 0; r < repeat; ++r) {
        reset();
        check(cudaEventRecord(a, nullptr), "cudaEventRecord");
        fn();
        check(cudaEventRecord(b, nullptr), "cudaEventRecord");
        check(cudaEventSynchronize(b), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
        best = std::min(best, ms / 1e3);
    }
    (void)cudaEventDestroy(a);
    (void)cudaEventDestroy(b);
    return best;
}

template <class Reset, class Fn>
double time_host(int repeat, Reset&& reset, Fn&& fn) {
    double best = 1e30;
    for (int r = 0; r < repeat; ++r) {
        reset();
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

/// One table row; limit_gkeys > 0 adds the row's fraction of that rate, fpr >= 0 the FPR.
void row(const char* shape, double mib, std::size_t n, const char* op, const char* path, double seconds,
         double bytes_per_key, const Device& d, double fpr, double limit_gkeys = 0) {
    const double gkeys = double(n) / seconds / 1e9;
    const double gbs = gkeys * bytes_per_key;
    std::printf("%-9s %9.1f %11zu  %-13s %-7s %8.2f %9.0f %6.1f%%", shape, mib, n, op, path, gkeys, gbs,
                100.0 * gbs / d.peak_gbs);
    if (limit_gkeys > 0)
        std::printf(" %7.2f", gkeys / limit_gkeys);
    else
        std::printf(" %7s", "");
    if (fpr >= 0)
        std::printf("  %.3f%%\n", 100.0 * fpr);
    else
        std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    if (!bb::cuda_device_available()) {
        std::printf("batchbloom_cuda_bench: %s; nothing to measure.\n", bb::cuda_unavailable_reason().c_str());
        return 0;
    }
    try {
        const Device d = describe_device();
        std::printf("device: %s, peak DRAM bandwidth %.0f GB/s (memory clock x bus width), L2 %.0f MiB\n",
                    d.name.c_str(), d.peak_gbs, double(d.l2) / 1048576.0);
        std::printf("probe batches of %zu keys; inserts at 10 bits/key (at most that many keys); best of %d; "
                    "host rows on %u host thread(s) (0: every core)\n",
                    o.probe_keys, o.repeat, o.threads);
        std::printf("traffic per key: keys (8 B) + results (1 B, probes) + the block's 32-byte sectors (1 for\n"
                    "256-bit blocks, 2 for 512-bit); host rows time the whole call, transfers included;\n"
                    "limit dN / t: random whole-block reads over the filter's memory, each block read by one\n"
                    "thread (N in flight per thread, best N) or by a tile of block bytes / 16 threads (t);\n"
                    "'limit' is the device probe rows' fraction of the faster of the two\n\n");
        std::printf("%-9s %9s %11s  %-13s %-7s %8s %9s %7s %7s  %s\n", "shape", "filter MiB", "keys", "op", "path",
                    "Gkeys/s", "GB/s", "peak", "limit", "FPR");
        DeviceArray<unsigned long long> sink(1);

        const auto present = keys(o.probe_keys, 1, 0);
        const auto absent = keys(o.probe_keys, 2, 1);
        // 50% hits: inserted and absent keys interleaved (set per filter size below).
        std::vector<std::uint64_t> half(o.probe_keys);
        DeviceArray<std::uint64_t> d_present(present), d_absent(absent), d_half(o.probe_keys);
        DeviceArray<std::uint8_t> d_out(o.probe_keys);
        std::vector<std::uint8_t> out(o.probe_keys);

        for (const bb::Shape shape : o.shapes) {
            const std::string shape_name(bb::to_string(shape));
            const char* sname = shape_name.c_str();
            const unsigned k = shape == bb::Shape::line512 ? 7 : 8;
            const double sectors = shape == bb::Shape::split256 ? 1 : 2;
            for (std::size_t mib = o.min_mib; mib <= o.max_mib; mib *= 4) {
                const std::size_t bytes = mib << 20;
                if (bytes * 2 > d.free_bytes) break;
                const bb::Params p = bb::Params::make(shape, bytes / bb::layout::info(shape).block_bytes, k);
                const std::size_t n = std::min<std::size_t>(p.bits() / 10, o.probe_keys);
                DeviceFilter f(p);
                f.set_threads(o.threads);
                const auto clear = [&] { f.clear(); };
                const auto nothing = [] {};

                const double ins = time_device(o.repeat, clear, [&] { f.insert_device(d_present.p, n); });
                row(sname, double(mib), n, "insert", "device", ins, 8 + 32 * sectors, d, -1);
                if (!o.device_only) {
                    const double ins_h = time_host(o.repeat, clear, [&] { f.insert(std::span(present.data(), n)); });
                    row(sname, double(mib), n, "insert", "host", ins_h, 8 + 32 * sectors, d, -1);
                }

                // The limit: as many random block reads as a probe batch has keys, over the filter,
                // each block read by one thread (dN: N blocks in flight per thread) or by a tile of
                // threads together (t).
                double limit = 1e30;
                for (const bool tiled : {false, true}) {
                    double best = 1e30;
                    unsigned depth = 0;
                    for (const unsigned in_flight : tiled ? std::vector<unsigned>{1} : std::vector<unsigned>{1, 2, 4, 8}) {
                        const double t = time_device(o.repeat, nothing, [&] {
                            check(launch_random_reads(f.data(), bytes, unsigned(32 * sectors), o.probe_keys, in_flight,
                                                      tiled, d.grid, sink.p),
                                  "random_reads");
                        });
                        if (t < best) best = t, depth = in_flight;
                    }
                    const std::string limit_op = tiled ? std::string("limit t") : "limit d" + std::to_string(depth);
                    row(sname, double(mib), o.probe_keys, limit_op.c_str(), "device", best, 32 * sectors, d, -1);
                    limit = std::min(limit, best);
                }
                const double limit_gkeys = double(o.probe_keys) / limit / 1e9;

                // Probes: the first n keys are in the filter; 50% = half of them, half absent.
                for (std::size_t i = 0; i < o.probe_keys; ++i)
                    half[i] = (i % 2 == 0) ? present[(i / 2) % n] : absent[i];
                check(cudaMemcpy(d_half.p, half.data(), o.probe_keys * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
                const double pr50 = time_device(o.repeat, nothing,
                                                [&] { f.contains_device(d_half.p, o.probe_keys, d_out.p); });
                row(sname, double(mib), o.probe_keys, "probe 50%", "device", pr50, 9 + 32 * sectors, d, -1, limit_gkeys);
                const double pr0 = time_device(o.repeat, nothing,
                                               [&] { f.contains_device(d_absent.p, o.probe_keys, d_out.p); });
                const double fpr = double(f.count_device(d_absent.p, o.probe_keys)) / double(o.probe_keys);
                row(sname, double(mib), o.probe_keys, "probe 0%", "device", pr0, 9 + 32 * sectors, d, fpr, limit_gkeys);
                if (o.device_only) continue;
                const double pr50_h = time_host(o.repeat, nothing, [&] { f.contains(half, out); });
                row(sname, double(mib), o.probe_keys, "probe 50%", "host", pr50_h, 9 + 32 * sectors, d, -1);
                const double pr0_h = time_host(o.repeat, nothing, [&] { f.contains(absent, out); });
                row(sname, double(mib), o.probe_keys, "probe 0%", "host", pr0_h, 9 + 32 * sectors, d, -1);
            }
        }
        return 0;
    } catch (const bb::Error& e) {
        std::fprintf(stderr, "batchbloom_cuda_bench: %s\n", e.what());
        return 1;
    }
}

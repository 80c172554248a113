// Opening a large saved filter: Filter::map (verify on and off) against Filter::load.
//
//   batchbloom_map_open FILE --create [--gib G]   writes a G GiB (default 1) word512 filter
//   batchbloom_map_open FILE [--repeat R] [--cold]
//
// For each way of opening (load, map with verify, map without) and R rounds (default 5): the
// time to open the file, then the latency of the first probe (one present key, contains()),
// then the time of the first bulk probe of 1M random keys (which touches ~1M of the filter's
// cache lines, so a mapped filter takes its page faults there). With --cold, the page cache is
// dropped before each open (echo 3 > /proc/sys/vm/drop_caches: root only); without, the file
// is read once first so that every open finds it cached. Prints medians, minima and maxima.
#include <batchbloom/filter.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace bb = batchbloom;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::vector<std::uint64_t> keys_from(std::uint64_t seed, std::size_t n) {
    std::vector<std::uint64_t> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = bb::mix64(seed + i, 0x6d61700a);
    return keys;
}

void drop_caches() {
    ::sync();
    std::ofstream drop("/proc/sys/vm/drop_caches");
    drop << "3\n";
    drop.flush();
    if (!drop) {
        std::fprintf(stderr, "cannot write /proc/sys/vm/drop_caches (needs root)\n");
        std::exit(1);
    }
}

void read_through(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> buf(1 << 20);
    while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0) {
    }
}

struct Stats {
    std::vector<double> v;
    std::string text(double scale, const char* unit) const {
        std::vector<double> s = v;
        std::sort(s.begin(), s.end());
        char buf[128];
        std::snprintf(buf, sizeof buf, "%.3g %s (%.3g-%.3g)", s[s.size() / 2] * scale, unit, s.front() * scale,
                      s.back() * scale);
        return buf;
    }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE --create [--gib G] | FILE [--repeat R] [--cold]\n", argv[0]);
        return 2;
    }
    const std::filesystem::path path = argv[1];
    bool create = false, cold = false;
    int repeat = 5;
    std::uint64_t gib = 1;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--create") create = true;
        else if (a == "--cold") cold = true;
        else if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
        else if (a == "--gib" && i + 1 < argc) gib = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    const std::vector<std::uint64_t> present = keys_from(1, 1'000'000);
    if (create) {
        // 64-byte blocks: G GiB at 10 bits/key holds ~107M keys per GiB; a tenth of that is
        // enough to make every page of the file non-zero.
        bb::Filter f(bb::Params::make(bb::Shape::word512, (gib << 30) / 64, 8));
        for (std::uint64_t part = 0; part < 10 * gib; ++part) f.insert(keys_from(1 + part * 1'000'000, 1'000'000));
        f.save(path);
        std::printf("wrote %s: %llu bytes\n", path.c_str(), static_cast<unsigned long long>(f.bytes().size() + 64));
        return 0;
    }
    const std::vector<std::uint64_t> random = keys_from(0x5eed0000000ULL, 1'000'000);
    std::vector<std::uint8_t> out(random.size());
    std::printf("file %s, %s page cache, %d rounds; median (min-max)\n", path.c_str(), cold ? "cold" : "warm", repeat);
    std::printf("%-22s %-30s %-30s %s\n", "open", "open time", "first probe", "first 1M-key probe");
    const char* modes[] = {"load()", "map(verify=true)", "map(verify=false)"};
    for (int mode = 0; mode < 3; ++mode) {
        Stats open_s, first_s, bulk_s;
        for (int r = 0; r < repeat; ++r) {
            if (cold) drop_caches();
            else read_through(path);
            auto t = Clock::now();
            const bb::Filter f = mode == 0 ? bb::Filter::load(path) : bb::Filter::map(path, mode == 1);
            open_s.v.push_back(seconds_since(t));
            t = Clock::now();
            const bool hit = f.contains(present[r]);
            first_s.v.push_back(seconds_since(t));
            t = Clock::now();
            f.contains(random, out);
            bulk_s.v.push_back(seconds_since(t));
            if (!hit) {
                std::fprintf(stderr, "a present key was not found\n");
                return 1;
            }
        }
        std::printf("%-22s %-30s %-30s %s\n", modes[mode], open_s.text(1e3, "ms").c_str(), first_s.text(1e6, "us").c_str(),
                    bulk_s.text(1e3, "ms").c_str());
    }
    return 0;
}

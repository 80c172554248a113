#include "bench/bench_machine.hpp"

#include <charconv>
#include <fstream>
#include <string_view>
#include <thread>

namespace batchbloom::cli {

namespace {

std::string trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
        s.remove_suffix(1);
    return std::string(s);
}

std::string first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (in) std::getline(in, line);
    return trim(line);
}

/// "48K" / "2048K" / "105M" / "1G" -> bytes; 0 if unreadable.
std::uint64_t parse_size(std::string_view s) {
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{}) return 0;
    const std::string_view unit(ptr, static_cast<std::size_t>(s.data() + s.size() - ptr));
    if (unit.empty()) return v;
    switch (unit.front()) {
        case 'K':
        case 'k':
            return v << 10;
        case 'M':
        case 'm':
            return v << 20;
        case 'G':
        case 'g':
            return v << 30;
        default:
            return 0;
    }
}

/// "value" of the first "key<spaces>: value" line of a /proc file, or "".
std::string proc_field(const std::string& path, std::string_view key) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.starts_with(key)) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos || trim(std::string_view(line).substr(0, colon)) != key) continue;
        return trim(std::string_view(line).substr(colon + 1));
    }
    return {};
}

}  // namespace

MachineInfo machine_info() {
    MachineInfo m;
    m.cpu = proc_field("/proc/cpuinfo", "model name");
    if (m.cpu.empty()) m.cpu = "unknown";
    m.cores = std::thread::hardware_concurrency();
    for (int i = 0; i < 16; ++i) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
        const std::string level = first_line(dir + "level");
        if (level.empty()) break;
        const std::string type = first_line(dir + "type");
        const std::uint64_t bytes = parse_size(first_line(dir + "size"));
        if (level == "1" && type == "Data") m.l1d_bytes = bytes;
        if (level == "2" && type != "Instruction") m.l2_bytes = bytes;
        if (level == "3" && type != "Instruction") m.l3_bytes = bytes;
    }
    // "MemTotal:  24567890 kB"
    const std::string mem = proc_field("/proc/meminfo", "MemTotal");
    m.memory_bytes = parse_size(mem.substr(0, mem.find(' '))) << 10;
    const std::string avail = proc_field("/proc/meminfo", "MemAvailable");
    m.available_memory_bytes = parse_size(avail.substr(0, avail.find(' '))) << 10;
    m.compiler = __VERSION__;
    // "always [madvise] never": the bracketed word is the mode in force.
    const std::string thp = first_line("/sys/kernel/mm/transparent_hugepage/enabled");
    if (const auto a = thp.find('['), b = thp.find(']'); a != std::string::npos && b != std::string::npos && b > a)
        m.transparent_hugepages = thp.substr(a + 1, b - a - 1);
    return m;
}

}  // namespace batchbloom::cli

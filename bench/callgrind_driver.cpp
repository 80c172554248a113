// One bulk call on one filter, for bench/callgrind_ipk.sh to count its instructions under
// callgrind: the call runs inside measured_call(), which the script collects alone
// (--toggle-collect), so building the filter and the keys is not counted.
//
//   batchbloom_callgrind_driver SHAPE N K OP
//
//   SHAPE  split256 | word512 | line512
//   N      keys (the filter is sized for N at 1% FPR)
//   K      hash functions; 0: the k Params::for_fpr gives, else 10 bits per key with this k
//   OP     insert | contains | insert_hashes | contains_hashes
//
// One thread, the direct batch path; the engine is BATCHBLOOM_BACKEND's (environment.hpp).
// A probe asks for N keys of which half were inserted.
#include <batchbloom/filter.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace bb = batchbloom;

namespace {

bool parse_shape(const std::string& s, bb::Shape& out) {
    if (s == "split256") out = bb::Shape::split256;
    else if (s == "word512") out = bb::Shape::word512;
    else if (s == "line512") out = bb::Shape::line512;
    else return false;
    return true;
}

}  // namespace

// Not inlined and with C linkage, so callgrind can name it (--toggle-collect=measured_call).
extern "C" [[gnu::noinline]] void measured_call(bb::Filter& f, const std::string& op, const std::vector<std::uint64_t>& keys,
                                                std::vector<std::uint8_t>& out) {
    if (op == "insert") f.insert(std::span<const std::uint64_t>(keys));
    else if (op == "insert_hashes") f.insert_hashes(keys);
    else if (op == "contains") f.contains(std::span<const std::uint64_t>(keys), std::span<std::uint8_t>(out));
    else f.contains_hashes(keys, out);
}

int main(int argc, char** argv) try {
    bb::Shape shape{};
    if (argc != 5 || !parse_shape(argv[1], shape)) {
        std::fprintf(stderr, "usage: %s split256|word512|line512 N K insert|contains|insert_hashes|contains_hashes\n", argv[0]);
        return 2;
    }
    const std::uint64_t n = std::strtoull(argv[2], nullptr, 10);
    const unsigned k = static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10));
    const std::string op = argv[4];
    const bool probe = op == "contains" || op == "contains_hashes";
    if (n == 0 || (!probe && op != "insert" && op != "insert_hashes")) {
        std::fprintf(stderr, "batchbloom_callgrind_driver: bad N or OP\n");
        return 2;
    }
    bb::Params params = bb::Params::for_fpr(n, 0.01, shape);
    if (k != 0) params = bb::Params::make(shape, bb::Params::for_bits_per_key(n, 10, shape).blocks, k);
    bb::Filter f(params);
    f.set_threads(1);
    f.set_batch_path(bb::BatchPath::direct);
    // Keys and hashes alike: a random-looking 64-bit sequence (the hashes' entry points take it as hashes).
    std::vector<std::uint64_t> keys(n);
    for (std::uint64_t i = 0; i < n; ++i) keys[i] = bb::mix64(i, 12345);
    std::vector<std::uint8_t> out(probe ? n : 0);
    if (probe) {
        // Half the probed keys are in the filter: every other one is inserted first.
        std::vector<std::uint64_t> half;
        for (std::uint64_t i = 0; i < n; i += 2) half.push_back(keys[i]);
        if (op == "contains") f.insert(std::span<const std::uint64_t>(half));
        else f.insert_hashes(half);
    }
    measured_call(f, op, keys, out);
    std::size_t hits = 0;
    for (const std::uint8_t o : out) hits += o;
    std::printf("%s n=%llu k=%u %s hits=%zu\n", argv[1], static_cast<unsigned long long>(n), params.k, op.c_str(), hits);
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "batchbloom_callgrind_driver: error: %s\n", e.what());
    return 1;
}

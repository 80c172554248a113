// libFuzzer target for the blocked filter's reader, Filter::load(std::istream&), on files that
// are not compressed (fuzz_zstd.cpp covers the zstd-framed ones).
//
// Checked on every input, and again with its checksums recomputed (fuzz::resealed):
//   * load returns a filter or throws batchbloom::Error; a seekable and an unseekable stream
//     over the same bytes agree (accepted or not, the same filter, the same bytes consumed);
//   * an accepted filter re-saves to exactly the bytes it was read from, which load back equal;
//   * load_any accepts the input exactly when load accepts all of it, as the same Filter;
//   * an accepted filter answers probes (bulk and single-key agree), its estimates do not
//     crash, and keys inserted into it are then found.
// Inputs are small (run_fuzz.sh: -max_len), and run_fuzz.sh caps single allocations
// (-malloc_limit_mb) to catch a loader that allocates what a header claims rather than what
// the input holds.
#include <string>

#include "format/zstd_stream.hpp"
#include "fuzz_common.hpp"

namespace fuzz {


void write_seeds(const std::filesystem::path& dir) {
    struct Seed {
        Shape shape;
        std::uint64_t blocks;
        unsigned k;
        batchbloom::Hashing hashing;
        unsigned keys;
    };
    const Seed seeds[] = {
        {Shape::word512, 1, 8, {HashKind::xxh3, 0}, 0},
        {Shape::word512, 4, 8, {HashKind::xxh3, 0}, 20},
        {Shape::split256, 3, 8, {HashKind::murmur3, 0x9E3779B9}, 15},
        {Shape::line512, 2, 5, {HashKind::xxh3, 0x0123456789ABCDEFULL}, 10},
        {Shape::split256, 1, 16, {HashKind::murmur3, 1}, 3},
        {Shape::line512, 8, 12, {HashKind::murmur3, 0xFFFFFFFF}, 60},
    };
    int n = 0;
    for (const Seed& s : seeds) {
        Filter f(Params::make(s.shape, s.blocks, s.k), s.hashing);
        for (unsigned i = 0; i < s.keys; ++i) {
            // Integer keys only, string keys only, or both: the key-kinds byte takes each value.
            if (n % 3 != 1) f.insert(std::uint64_t{i} * 0x9E3779B97F4A7C15ULL);
            if (n % 3 != 0) f.insert(std::string_view("key" + std::to_string(i)));
        }
        write_seed(dir, "blocked-" + std::to_string(n++) + ".bbf", saved(f));
    }
}

namespace {

void check(std::string_view input) {
    const auto a = load_both_ways<Filter>(input, "Filter::load", [](std::istream& in) { return Filter::load(in); });
    check_load_any(load_any_of(input), a.filter, input, a.consumed);
    if (!a.filter) return;
    const Filter& f = *a.filter;
    check_round_trip(f, input, a.consumed, "Filter");
    check_probes_and_inserts(f);
    (void)f.fill_ratio();
    (void)f.current_fpr();
    succeeds("estimated_cardinality", [&] { (void)f.estimated_cardinality(); });
}

}  // namespace

void fuzz_one(std::string_view input) {
    // A zstd frame is fuzz_zstd's; here it would only be rejected by its frame checksum.
    if (batchbloom::io::is_zstd(input)) return;
    check(input);
    if (const auto sealed = resealed(input)) check(*sealed);
}

}  // namespace fuzz

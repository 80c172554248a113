// libFuzzer target for the classic Bloom filter's two readers: its batchbloom file
// (ClassicFilter::load) and Apache Spark's serialized BloomFilter (ClassicFilter::read_spark /
// from_spark_bytes). Spark's form has no checksum, so most mutations of it load: what this
// target checks there is that they load consistently.
//
// Checked on every input:
//   * both readers return a filter or throw batchbloom::Error; a seekable and an unseekable
//     stream over the same bytes agree (accepted or not, the same filter, the same bytes read);
//   * a filter read from a batchbloom file re-saves to exactly the bytes it was read from (with
//     the checksums recomputed too: fuzz::resealed), which load back equal;
//   * a filter read from Spark's form writes exactly the bytes it was read from back in that
//     form; from_spark_bytes accepts the input exactly when read_spark accepts all of it;
//   * load_any (which picks the form from the first bytes) agrees with the matching reader;
//   * an accepted filter answers probes (bulk and single-key agree), and keys inserted into
//     it are then found.
#include <string>

#include "fuzz_common.hpp"

namespace fuzz {

using batchbloom::ClassicFilter;
using batchbloom::ClassicHashing;
using batchbloom::ClassicParams;
using batchbloom::ClassicScheme;

void write_seeds(const std::filesystem::path& dir) {
    auto fill = [](ClassicFilter& f, unsigned keys) {
        for (unsigned i = 0; i < keys; ++i) {
            f.insert(std::uint64_t{i} * 0x9E3779B97F4A7C15ULL);
            f.insert(std::string_view("key" + std::to_string(i)));
        }
    };
    ClassicFilter a(ClassicParams{100, 3}, ClassicHashing{ClassicScheme::double_hashing, batchbloom::HashKind::murmur3, 5});
    fill(a, 10);
    ClassicFilter b(ClassicParams{64, 1});
    ClassicFilter v1 = ClassicFilter::spark(20, 0.05, ClassicScheme::spark_v1);
    fill(v1, 20);
    ClassicFilter v2 = ClassicFilter::spark(30, 0.03, ClassicScheme::spark_v2, -12345);
    fill(v2, 25);
    const ClassicFilter empty_v2 = ClassicFilter::spark(5, 0.1);
    write_seed(dir, "classic-0.bbf", saved(a));
    write_seed(dir, "classic-1.bbf", saved(b));
    write_seed(dir, "classic-2.bbf", saved(v1));
    write_seed(dir, "classic-3.bbf", saved(v2));
    int n = 0;
    for (const ClassicFilter& f : {v1, v2, empty_v2}) {
        const auto bytes = f.to_spark_bytes();
        write_seed(dir, "spark-" + std::to_string(n++) + ".bin",
                   std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    }
}

namespace {

// Spark's form starts with a big-endian int32 version, 1 or 2 (what load_any looks at).
bool looks_like_spark(std::string_view input) {
    return input.size() >= 4 && input[0] == 0 && input[1] == 0 && input[2] == 0 && (input[3] == 1 || input[3] == 2);
}

void check_batchbloom_form(std::string_view input) {
    const auto a = load_both_ways<ClassicFilter>(input, "ClassicFilter::load",
                                                 [](std::istream& in) { return ClassicFilter::load(in); });
    if (!looks_like_spark(input)) check_load_any(load_any_of(input), a.filter, input, a.consumed);
    if (!a.filter) return;
    check_round_trip(*a.filter, input, a.consumed, "ClassicFilter");
    check_probes_and_inserts(*a.filter);
}

void check_spark_form(std::string_view input) {
    const auto a = load_both_ways<ClassicFilter>(input, "ClassicFilter::read_spark",
                                                 [](std::istream& in) { return ClassicFilter::read_spark(in); });
    std::optional<ClassicFilter> whole;
    succeeds("from_spark_bytes", [&] { whole.emplace(ClassicFilter::from_spark_bytes(as_bytes(input))); });
    if (whole.has_value() != (a.filter && a.consumed == input.size()))
        fail("from_spark_bytes and read_spark disagree on the whole input");
    if (whole && !(*whole == *a.filter)) fail("from_spark_bytes and read_spark read different filters");
    if (looks_like_spark(input)) check_load_any(load_any_of(input), a.filter, input, a.consumed);
    if (!a.filter) return;
    const auto again = a.filter->to_spark_bytes();
    if (again.size() != a.consumed || std::memcmp(again.data(), input.data(), again.size()) != 0)
        fail("a Spark filter writes other bytes than it was read from");
    check_probes_and_inserts(*a.filter);
}

}  // namespace

void fuzz_one(std::string_view input) {
    check_spark_form(input);
    check_batchbloom_form(input);
    if (const auto sealed = resealed(input)) check_batchbloom_form(*sealed);
}

}  // namespace fuzz

#include "adapters/family_cli.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <batchbloom/counting.hpp>
#include <batchbloom/deletable.hpp>

#include "common/common_options.hpp"
#include "common/key_input.hpp"
#include "common/text_format.hpp"
#include "common/stdout_output.hpp"

namespace batchbloom::cli {

namespace {

constexpr std::size_t batch_keys = std::size_t(1) << 16;

void print_common(const std::string& path, FileKind kind, const Params& p, const Hashing& h) {
    std::printf("file:                   %s\n", path.c_str());
    std::printf("type:                   %s\n", std::string(to_string(kind)).c_str());
    std::printf("shape:                  %s\n", std::string(to_string(p.shape)).c_str());
    std::printf("blocks:                 %llu\n", static_cast<unsigned long long>(p.blocks));
    std::printf("k:                      %u\n", p.k);
    std::printf("hash:                   %s\n", std::string(to_string(h.kind)).c_str());
    std::printf("seed:                   %llu\n", static_cast<unsigned long long>(h.seed));
}

// Fill, cardinality estimate and FPR of the plain bits (counting: the counter > 0 view).
void print_bits(const Filter& f) {
    std::printf("fill ratio:             %s\n", format_fixed(f.fill_ratio(), 6).c_str());
    std::printf("estimated cardinality:  %s\n", format_fixed(f.estimated_cardinality(), 0).c_str());
    std::printf("FPR at current fill:    %s\n", format_fpr(f.current_fpr()).c_str());
}

}  // namespace

OptionSpec region_bits_option() {
    return {"region-bits", "R",
            "deletable: bits per collision region, a power of two (default " +
                std::to_string(DeletableFilter::default_region_bits) + ")"};
}
OptionSpec growth_option() { return {"growth", "S", "scalable: capacity factor per added stage (default 2)"}; }
OptionSpec tightening_option() {
    return {"tightening", "R", "scalable: FPR factor per added stage, in (0, 1) (default 0.85)"};
}

bool family_format_requested(const ParsedArgs& args) {
    const auto f = args.value("format");
    const bool family = f && (*f == "counting" || *f == "deletable" || *f == "scalable");
    if (!family && args.has("region-bits")) throw UsageError("--region-bits needs --format deletable");
    if (!family && (args.has("growth") || args.has("tightening")))
        throw UsageError("--growth and --tightening need --format scalable");
    return family;
}

std::vector<std::uint64_t> read_hashes(std::string_view source, bool u64, const Hashing& hashing, KeyKinds* kinds) {
    KeyReader reader(source, u64 ? KeyFormat::u64 : KeyFormat::text);
    std::vector<std::uint64_t> hashes;
    KeyBatch batch;
    KeyKinds seen = KeyKinds::none();
    while (reader.next(batch, batch_keys)) seen = seen | append_hashes(batch, hashing, hashes);
    if (kinds != nullptr) *kinds = *kinds | seen;
    return hashes;
}

int build_family(const ParsedArgs& args) {
    const std::string format(*args.value("format"));
    const auto out = args.value("out");
    if (!out) throw UsageError("build needs --out FILE");
    if (format != "deletable" && args.has("region-bits")) throw UsageError("--region-bits needs --format deletable");
    if (format != "scalable" && (args.has("growth") || args.has("tightening")))
        throw UsageError("--growth and --tightening need --format scalable");
    const Sizing sizing = read_sizing(args);
    const Shape shape = read_shape(args);
    const Hashing hashing = read_hashing(args);
    const auto n_option = args.u64("n");
    if (n_option && *n_option == 0) throw UsageError("--n must be at least 1");

    // The filter holds the set of keys read: each distinct key is inserted once.
    KeyKinds kinds = KeyKinds::none();
    std::vector<std::uint64_t> hashes = read_hashes(args.positional(0).value_or("-"), args.has("u64"), hashing, &kinds);
    const std::uint64_t keys_read = hashes.size();
    std::sort(hashes.begin(), hashes.end());
    hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
    const std::uint64_t n = n_option ? *n_option : hashes.size();
    if (n == 0) throw std::runtime_error("no keys in the input (give --n to build an empty filter)");
    const std::filesystem::path path{std::string(*out)};

    std::string what;
    if (format == "scalable") {
        if (sizing.kind != Sizing::Kind::fpr) throw UsageError("a scalable filter is sized by --fpr");
        ScalableParams sp;
        sp.initial_capacity = n;
        sp.initial_fpr = sizing.value;
        sp.growth = args.real("growth").value_or(2.0);
        sp.tightening = args.real("tightening").value_or(0.85);
        sp.shape = shape;
        ScalableFilter f(sp, hashing);
        f.insert_hashes(hashes);
        f.add_key_kinds(kinds);
        write_output(path.string(), [&](std::ostream& o) { f.save(o); });
        what = std::to_string(f.stages().size()) + " stage(s), " + std::to_string(f.bytes()) +
               " bytes, FPR bound " + format_number(f.fpr_bound(), 4);
    } else {
        const Params params = sizing.params(n, shape);
        if (format == "counting") {
            CountingFilter f(params, hashing);
            f.insert_hashes(hashes);
            f.add_key_kinds(kinds);
            write_output(path.string(), [&](std::ostream& o) { f.save(o); });
            what = std::to_string(f.bytes().size()) + " bytes of 4-bit counters";
        } else {
            const auto region_bits = args.u64("region-bits", DeletableFilter::default_region_bits);
            if (region_bits > 4096) throw UsageError("--region-bits is too large");
            DeletableFilter f(params, static_cast<unsigned>(region_bits), hashing);
            for (auto h : hashes) f.insert_hash(h);
            f.add_key_kinds(kinds);
            write_output(path.string(), [&](std::ostream& o) { f.save(o); });
            what = std::to_string(f.regions()) + " regions of " + std::to_string(region_bits) + " bits, " +
                   format_number(100.0 * double(f.collided_regions()) / double(f.regions()), 3) + "% collided";
        }
        what += ", " + std::to_string(params.blocks) + " blocks, k=" + std::to_string(params.k) + ", predicted FPR " +
                format_number(predicted_fpr(params, n), 4);
    }
    std::fprintf(stderr, "batchbloom: wrote %s (%s filter): %llu keys read, %llu distinct, %s\n", path.c_str(),
                 format.c_str(), static_cast<unsigned long long>(keys_read),
                 static_cast<unsigned long long>(hashes.size()), what.c_str());
    return 0;
}

void print_family_sizes(const Params& p, std::uint64_t n) {
    const unsigned r = DeletableFilter::default_region_bits;
    std::printf("counting filter bytes:  %s (4-bit counters, 'build --format counting')\n",
                format_bytes(4 * p.bytes()).c_str());
    std::printf("deletable filter bytes: %s (%u-bit regions, %s of the keys deletable at n)\n",
                format_bytes(p.bytes() + (p.bits() / r + 63) / 64 * 8).c_str(), r,
                format_fixed(100.0 * predicted_deletability(p, r, n), 1).append("%").c_str());
}

bool is_family_filter_file(const std::filesystem::path& path) {
    try {
        const FileKind k = file_kind(path);
        return k == FileKind::counting || k == FileKind::deletable || k == FileKind::scalable;
    } catch (const Error&) {
        return false;  // not a batchbloom file, or unreadable: the plain loader reports it
    }
}

int info_family(const std::string& path) {
    const FileKind kind = file_kind(path);
    if (kind == FileKind::counting) {
        const auto f = CountingFilter::load(std::filesystem::path(path));
        print_common(path, kind, f.params(), f.hashing());
        std::printf("bytes:                  %s (4-bit counters; plain view %s)\n",
                    format_bytes(f.bytes().size()).c_str(), format_bytes(f.params().bytes()).c_str());
        std::printf("saturated counters:     %llu\n", static_cast<unsigned long long>(f.saturated_counters()));
        print_bits(f.to_filter());
    } else if (kind == FileKind::deletable) {
        const auto f = DeletableFilter::load(std::filesystem::path(path));
        print_common(path, kind, f.params(), f.hashing());
        std::printf("bytes:                  %s (+ %s collision bitmap)\n", format_bytes(f.params().bytes()).c_str(),
                    format_bytes(8 * f.collisions().size()).c_str());
        std::printf("regions:                %llu of %u bits, %llu with collisions (%s%%)\n",
                    static_cast<unsigned long long>(f.regions()), f.region_bits(),
                    static_cast<unsigned long long>(f.collided_regions()),
                    format_fixed(100.0 * double(f.collided_regions()) / double(f.regions()), 2).c_str());
        print_bits(f.filter());
    } else {
        const auto f = ScalableFilter::load(std::filesystem::path(path));
        const auto& sp = f.params();
        print_common(path, kind, f.stages().front().params(), f.hashing());
        std::printf("bytes:                  %s in %zu stage(s)\n", format_bytes(f.bytes()).c_str(), f.stages().size());
        std::printf("keys inserted:          %llu\n", static_cast<unsigned long long>(f.size()));
        std::printf("growth, tightening:     %s, %s (initial capacity %llu at FPR %s)\n",
                    format_number(sp.growth, 4).c_str(), format_number(sp.tightening, 4).c_str(),
                    static_cast<unsigned long long>(sp.initial_capacity), format_number(sp.initial_fpr, 4).c_str());
        std::printf("predicted FPR now:      %s (bound at any size %s)\n", format_fpr(f.predicted_fpr()).c_str(),
                    format_fpr(f.fpr_bound()).c_str());
        for (std::size_t i = 0; i < f.stages().size(); ++i) {
            const Params& p = f.stages()[i].params();
            std::printf("  stage %-3zu %llu / %llu keys, %llu blocks, k=%u, target FPR %s\n", i,
                        static_cast<unsigned long long>(f.stage_sizes()[i]),
                        static_cast<unsigned long long>(f.stage_capacity(i)), static_cast<unsigned long long>(p.blocks),
                        p.k, format_number(f.stage_fpr(i), 4).c_str());
        }
    }
    return 0;
}

FilterProbe FilterProbe::load(const std::filesystem::path& path) {
    if (!is_family_filter_file(path)) return FilterProbe(Filter::load(path));
    switch (file_kind(path)) {
        case FileKind::counting: return FilterProbe(CountingFilter::load(path).to_filter());
        case FileKind::deletable: return FilterProbe(DeletableFilter::load(path).filter());
        default: return FilterProbe(ScalableFilter::load(path));
    }
}

const Hashing& FilterProbe::hashing() const {
    return std::visit([](const auto& f) -> const Hashing& { return f.hashing(); }, f_);
}

void FilterProbe::contains_hashes(std::span<const std::uint64_t> hashes, std::span<std::uint8_t> out) const {
    std::visit([&](const auto& f) { f.contains_hashes(hashes, out); }, f_);
}

}  // namespace batchbloom::cli

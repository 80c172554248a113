#include "adapters/blocked_layout.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include <batchbloom/deletable.hpp>

#include "common/text_format.hpp"

namespace batchbloom::cli {

OptionSpec region_bits_option() {
    return {"region-bits", "R",
            "deletable: bits per collision region, a power of two (default " +
                std::to_string(DeletableFilter::default_region_bits) + ")"};
}
OptionSpec growth_option() { return {"growth", "S", "scalable: capacity factor per added stage (default 2)"}; }
OptionSpec tightening_option() {
    return {"tightening", "R", "scalable: FPR factor per added stage, in (0, 1) (default 0.85; the first stage gets --fpr x (1 - R))"};
}

void check_blocked_layout_options(const ParsedArgs& args, std::string_view type) {
    if (type != "deletable" && args.has("region-bits")) throw UsageError("--region-bits needs --format deletable");
    if (type != "scalable" && (args.has("growth") || args.has("tightening")))
        throw UsageError("--growth and --tightening need --format scalable");
    if (type != "blocked" && args.has("zstd")) throw UsageError("--zstd compresses blocked filters only");
}

void describe_blocked_layout(const std::string& path, std::string_view type, const Params& p, const Hashing& h) {
    std::printf("file:                   %s\n", path.c_str());
    std::printf("type:                   %s\n", std::string(type).c_str());
    std::printf("shape:                  %s\n", std::string(to_string(p.shape)).c_str());
    std::printf("blocks:                 %llu\n", static_cast<unsigned long long>(p.blocks));
    std::printf("k:                      %u\n", p.k);
    std::printf("hash:                   %s\n", std::string(to_string(h.kind)).c_str());
    std::printf("seed:                   %llu\n", static_cast<unsigned long long>(h.seed));
}

void describe_bits(const Filter& bits) {
    const double est = estimated_keys_of(bits);
    std::printf("fill ratio:             %s\n", format_fixed(bits.fill_ratio(), 6).c_str());
    std::printf("estimated cardinality:  %s\n", format_fixed(est, 0).c_str());
    std::printf("FPR at current fill:    %s\n", format_fpr(bits.current_fpr()).c_str());
    std::printf("bits per estimated key: %s\n",
                std::isfinite(est) && est >= 1.0 ? format_fixed(double(bits.params().bits()) / est, 3).c_str() : "n/a");
}

double estimated_keys_of(const Filter& bits) {
    try {
        return bits.estimated_cardinality();
    } catch (const Error&) {
        return std::numeric_limits<double>::infinity();
    }
}

std::string blocks_layout(const Params& p) {
    return std::to_string(p.blocks) + " " + std::string(to_string(p.shape)) + " blocks, k=" + std::to_string(p.k);
}

}  // namespace batchbloom::cli

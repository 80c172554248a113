// The deletable filter (DeletableFilter) in the CLI: `build --format deletable`, insert, erase,
// and probes and `info` of its files.
#include <cstdio>

#include <batchbloom/deletable.hpp>

#include "adapters/blocked_layout.hpp"
#include "adapters/library_file.hpp"
#include "common/common_options.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

class DeletableFile final : public HashedFile<DeletableFilter> {
public:
    using HashedFile::HashedFile;

    std::string type_name() const override { return "deletable"; }
    bool can_erase() const override { return true; }
    EraseCounts erase(const TypedKeys& keys) override {
        EraseCounts c;
        std::vector<EraseResult> results;
        for_each_run(keys, [&](auto run) {
            results.resize(run.size());
            f_.erase(run, results);
            for (const EraseResult r : results) {
                switch (r) {
                    case EraseResult::erased: ++c.erased; break;
                    case EraseResult::absent: ++c.absent; break;
                    case EraseResult::not_deletable: ++c.not_deletable; break;
                }
            }
        });
        return c;
    }

    void describe(const std::string& path) const override {
        describe_blocked_layout(path, "deletable", f_.params(), f_.hashing());
        std::printf("bytes:                  %s (+ %s collision bitmap)\n", format_bytes(f_.params().bytes()).c_str(),
                    format_bytes(8 * f_.collisions().size()).c_str());
        std::printf("regions:                %llu of %u bits, %llu with collisions (%s%%)\n",
                    static_cast<unsigned long long>(f_.regions()), f_.region_bits(),
                    static_cast<unsigned long long>(f_.collided_regions()), collided_percent(3).c_str());
        describe_bits(f_.filter());
    }

    double current_fpr() const override { return f_.filter().current_fpr(); }
    double estimated_keys() const override { return estimated_keys_of(f_.filter()); }
    double predicted_fpr(std::uint64_t n) const override { return batchbloom::predicted_fpr(f_.params(), n); }
    std::string layout() const override {
        return std::to_string(f_.regions()) + " regions of " + std::to_string(f_.region_bits()) + " bits, " +
               collided_percent(3) + "% collided, " + blocks_layout(f_.params());
    }

private:
    std::string collided_percent(int digits) const {
        return format_number(100.0 * double(f_.collided_regions()) / double(f_.regions()), digits);
    }
};

std::unique_ptr<FilterFile> create_deletable(const ParsedArgs& args, std::uint64_t n) {
    const auto region_bits = args.u64("region-bits", DeletableFilter::default_region_bits);
    if (region_bits > 4096) throw UsageError("--region-bits is too large");
    return std::make_unique<DeletableFile>(DeletableFilter(read_sizing(args).params(n, read_shape(args)),
                                                           static_cast<unsigned>(region_bits), read_hashing(args)));
}

void print_deletable_size(const Params& p, std::uint64_t n) {
    const unsigned r = DeletableFilter::default_region_bits;
    std::printf("deletable filter bytes: %s (%u-bit regions, %s of the keys deletable at n)\n",
                format_bytes(p.bytes() + (p.bits() / r + 63) / 64 * 8).c_str(), r,
                format_fixed(100.0 * predicted_deletability(p, r, n), 1).append("%").c_str());
}

}  // namespace

const FilterType deletable_type = blocked_layout_type("deletable", create_deletable, true, print_deletable_size);

std::unique_ptr<FilterFile> open_deletable(DeletableFilter f) {
    return std::make_unique<DeletableFile>(std::move(f));
}

}  // namespace batchbloom::cli

// The scalable filter (ScalableFilter) in the CLI: `build --format scalable`, insert, and
// probes and `info` of its files.
#include <cstdio>

#include <batchbloom/scalable.hpp>

#include "adapters/blocked_layout.hpp"
#include "adapters/library_file.hpp"
#include "common/common_options.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

class ScalableFile final : public HashedFile<ScalableFilter> {
public:
    using HashedFile::HashedFile;

    std::string type_name() const override { return "scalable"; }

    void describe(const std::string& path) const override {
        const auto& sp = f_.params();
        describe_blocked_layout(path, "scalable", f_.stages().front().params(), f_.hashing());
        std::printf("bytes:                  %s in %zu stage(s)\n", format_bytes(f_.bytes()).c_str(), f_.stages().size());
        std::printf("keys inserted:          %llu\n", static_cast<unsigned long long>(f_.size()));
        std::printf("growth, tightening:     %s, %s (initial capacity %llu at FPR %s)\n",
                    format_number(sp.growth, 4).c_str(), format_number(sp.tightening, 4).c_str(),
                    static_cast<unsigned long long>(sp.initial_capacity), format_number(sp.initial_fpr, 4).c_str());
        std::printf("predicted FPR now:      %s (bound at any size %s)\n", format_fpr(f_.predicted_fpr()).c_str(),
                    format_fpr(f_.fpr_bound()).c_str());
        for (std::size_t i = 0; i < f_.stages().size(); ++i) {
            const Params& p = f_.stages()[i].params();
            std::printf("  stage %-3zu %llu / %llu keys, %llu blocks, k=%u, target FPR %s\n", i,
                        static_cast<unsigned long long>(f_.stage_sizes()[i]),
                        static_cast<unsigned long long>(f_.stage_capacity(i)), static_cast<unsigned long long>(p.blocks),
                        p.k, format_number(f_.stage_fpr(i), 4).c_str());
        }
    }

    bool grows() const override { return true; }
    double current_fpr() const override { return f_.predicted_fpr(); }
    double estimated_keys() const override { return double(f_.size()); }
    double predicted_fpr(std::uint64_t) const override { return f_.predicted_fpr(); }
    std::string layout() const override {
        return std::to_string(f_.stages().size()) + " stage(s), " + std::to_string(f_.bytes()) + " bytes, FPR bound " +
               format_number(f_.fpr_bound(), 4);
    }
};

std::unique_ptr<FilterFile> create_scalable(const ParsedArgs& args, std::uint64_t n) {
    const Sizing sizing = read_sizing(args);
    if (sizing.kind != Sizing::Kind::fpr) throw UsageError("a scalable filter is sized by --fpr");
    // --fpr is the whole filter's bound at any size, as Python's fpr= (the first stage gets
    // P x (1 - tightening)); it was the first stage's, which left the whole at up to 6.67x P.
    const ScalableParams sp =
        ScalableParams::for_total_fpr(n, sizing.value, args.real("growth").value_or(2.0),
                                      args.real("tightening").value_or(0.85), read_shape(args));
    return std::make_unique<ScalableFile>(ScalableFilter(sp, read_hashing(args)));
}

}  // namespace

const FilterType scalable_type = blocked_layout_type("scalable", create_scalable, true);

std::unique_ptr<FilterFile> open_scalable(ScalableFilter f) {
    return std::make_unique<ScalableFile>(std::move(f));
}

}  // namespace batchbloom::cli

// The blocked filter (Filter) in the CLI: `build` (the default --format), every command that
// reads filters, set algebra and fold, zstd-compressed files.
#include <cstdio>

#include <batchbloom/filter.hpp>

#include "adapters/blocked_layout.hpp"
#include "adapters/library_file.hpp"
#include "common/common_options.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

class BlockedFile final : public HashedFile<Filter> {
public:
    BlockedFile(Filter f, SaveOptions save) : HashedFile(std::move(f)), save_(save) {}

    std::string type_name() const override { return "blocked"; }
    void write(std::ostream& out) const override { f_.save(out, save_); }

    void describe(const std::string& path) const override {
        describe_blocked_layout(path, "blocked", f_.params(), f_.hashing());
        std::printf("bytes:                  %s\n", format_bytes(f_.params().bytes()).c_str());
        describe_bits(f_);
    }

    void combine(SetOp op, const FilterFile& other) override { combine_filters(op, other); }
    std::unique_ptr<FilterFile> folded() const override { return std::make_unique<BlockedFile>(f_.fold(), save_); }

    double current_fpr() const override { return f_.current_fpr(); }
    double estimated_keys() const override { return estimated_keys_of(f_); }
    double predicted_fpr(std::uint64_t n) const override { return batchbloom::predicted_fpr(f_.params(), n); }
    std::string layout() const override {
        return std::to_string(f_.params().bytes()) + " bytes, " + blocks_layout(f_.params());
    }

private:
    SaveOptions save_;
};

std::unique_ptr<FilterFile> create_blocked(const ParsedArgs& args, std::uint64_t n) {
    SaveOptions save;
    if (const auto level = args.u64("zstd")) {
        if (*level < 1 || *level > 22) throw UsageError("--zstd expects a level from 1 to 22");
        save = {Compression::zstd, static_cast<int>(*level)};
    }
    return std::make_unique<BlockedFile>(Filter(read_sizing(args).params(n, read_shape(args)), read_hashing(args)),
                                         save);
}

}  // namespace

const FilterType blocked_type = blocked_layout_type("blocked", create_blocked, false);

std::unique_ptr<FilterFile> open_blocked(Filter f) {
    return std::make_unique<BlockedFile>(std::move(f), SaveOptions{});
}

}  // namespace batchbloom::cli

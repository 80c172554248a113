// The counting filter (CountingFilter) in the CLI: `build --format counting`, insert, erase,
// and probes and `info` of its files.
#include <cstdio>

#include <batchbloom/counting.hpp>

#include "adapters/blocked_layout.hpp"
#include "adapters/library_file.hpp"
#include "common/common_options.hpp"
#include "common/text_format.hpp"

namespace batchbloom::cli {

namespace {

class CountingFile final : public HashedFile<CountingFilter> {
public:
    using HashedFile::HashedFile;

    std::string type_name() const override { return "counting"; }
    bool can_erase() const override { return true; }
    EraseCounts erase(const TypedKeys& keys) override {
        std::uint64_t erased = 0;
        for_each_run(keys, [&](auto run) { erased += f_.erase(run); });
        return {.erased = erased, .absent = keys.ints.size() + keys.strings.size() - erased, .not_deletable = 0};
    }

    void describe(const std::string& path) const override {
        describe_blocked_layout(path, "counting", f_.params(), f_.hashing());
        std::printf("bytes:                  %s (4-bit counters; blocked view %s)\n",
                    format_bytes(f_.bytes().size()).c_str(), format_bytes(f_.params().bytes()).c_str());
        std::printf("saturated counters:     %llu\n", static_cast<unsigned long long>(f_.saturated_counters()));
        describe_bits(f_.to_filter());
    }

    double current_fpr() const override { return f_.to_filter().current_fpr(); }
    double estimated_keys() const override { return estimated_keys_of(f_.to_filter()); }
    double predicted_fpr(std::uint64_t n) const override { return batchbloom::predicted_fpr(f_.params(), n); }
    std::string layout() const override {
        return std::to_string(f_.bytes().size()) + " bytes of 4-bit counters, " + blocks_layout(f_.params());
    }
};

std::unique_ptr<FilterFile> create_counting(const ParsedArgs& args, std::uint64_t n) {
    return std::make_unique<CountingFile>(
        CountingFilter(read_sizing(args).params(n, read_shape(args)), read_hashing(args)));
}

void print_counting_size(const Params& p, std::uint64_t) {
    std::printf("counting filter bytes:  %s (4-bit counters, 'build --format counting')\n",
                format_bytes(4 * p.bytes()).c_str());
}

}  // namespace

const FilterType counting_type = blocked_layout_type("counting", create_counting, true, print_counting_size);

std::unique_ptr<FilterFile> open_counting(CountingFilter f) {
    return std::make_unique<CountingFile>(std::move(f));
}

}  // namespace batchbloom::cli

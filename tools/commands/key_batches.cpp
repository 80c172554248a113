#include "commands/key_batches.hpp"

namespace batchbloom::cli {

std::vector<OptionSpec> rewrite_options() {
    return {u64_option(), key_type_option(),
            {"out", "FILE2", "write the result here instead of replacing FILE (atomically)"}, quiet_option()};
}

std::vector<PositionalSpec> rewrite_positionals(const std::string& file) {
    return {{"FILE", file, true},
            {"INPUT", "key file, or - for stdin (default: stdin); read like 'query' reads it", false}};
}

}  // namespace batchbloom::cli

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

std::string rewrite_lock_note() {
    return "Commands that rewrite one FILE at once take turns: each holds an advisory lock (flock) on\n"
           "FILE from before it reads it until the new FILE is in place, so none loses another's\n"
           "update. Readers need no lock: FILE is replaced atomically. The lock orders batchbloom's\n"
           "commands (and programs that flock FILE), not other writers, and does not hold over NFS.";
}

}  // namespace batchbloom::cli

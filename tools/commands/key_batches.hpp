#pragma once
// The loop of the commands that run a key file against a filter file (query, insert, erase).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "adapters/filter_adapter.hpp"
#include "common/args.hpp"
#include "common/common_options.hpp"
#include "common/key_input.hpp"
#include "common/progress.hpp"

namespace batchbloom::cli {

/// What insert and erase, which rewrite FILE with the keys of INPUT, take: their options
/// (--u64, --key-type, --out, --quiet) and FILE (described by `file`) and INPUT.
std::vector<OptionSpec> rewrite_options();
std::vector<PositionalSpec> rewrite_positionals(const std::string& file);
/// The paragraph of their --help on the lock that serializes rewrites of one FILE.
std::string rewrite_lock_note();

/// Reads INPUT (the second positional argument; --u64 for binary keys) in batches, types each
/// batch's keys with `typing` and calls body(batch, keys), with the progress line (--quiet:
/// none) until the input ends. Returns the number of keys read.
template <class Body>
std::uint64_t for_each_key_batch(const ParsedArgs& args, KeyTyping& typing, Body&& body) {
    KeyReader reader(args.positional(1).value_or("-"), read_key_format(args));
    Progress progress(reader, args);
    KeyBatch batch;
    TypedKeys keys;
    while (reader.next(batch, key_batch_size)) {
        split_keys(batch, typing.type(), reader, keys);
        typing.check(keys);
        body(std::as_const(batch), std::as_const(keys));
        progress.update();
    }
    progress.finish();
    return reader.keys_read();
}

}  // namespace batchbloom::cli

#pragma once
// The classic Bloom filter in the CLI: `build --format classic|spark|spark-v1` writes one,
// and `query` / `info` accept classic files in either form (batchbloom file or Spark's
// serialized BloomFilter), recognised by their first bytes.
#include <string>

#include "common/args.hpp"

namespace batchbloom::cli {

OptionSpec filter_format_option();
/// True when --format asks for a classic filter (classic, spark, spark-v1); UsageError if the
/// value is unknown.
bool classic_format_requested(const ParsedArgs& args);

int build_classic(const ParsedArgs& args);
int query_classic(const ParsedArgs& args);
int info_classic(const std::string& path);

}  // namespace batchbloom::cli

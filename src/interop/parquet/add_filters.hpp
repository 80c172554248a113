#pragma once
// add_filters() below its lock, for callers that hold the lock themselves (the dataset add
// takes it before deciding whether a file needs work).
#include <filesystem>
#include <optional>
#include <vector>

#include "batchbloom/parquet.hpp"

namespace batchbloom::parquet {

/// add_filters() without taking the lock on `in` (the caller holds it, or writes elsewhere) and
/// without checking `options`: the caller has called options.validate().
/// Returns nullopt, and writes nothing, when `out` is `in` and there is nothing to add: every
/// chunk of the named columns has a filter and options.replace is not set.
std::optional<std::vector<AddedFilter>> add_filters_unlocked(const std::filesystem::path& in,
                                                             const std::filesystem::path& out, const AddOptions& options);

}  // namespace batchbloom::parquet

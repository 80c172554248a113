#pragma once
// The library's environment variables (batchbloom/environment.hpp), read once and kept until
// reload_environment().
#include <optional>
#include <string>

namespace batchbloom::detail {

struct Environment {
    std::optional<std::string> backend;     // BATCHBLOOM_BACKEND, if set and not empty
    std::optional<std::string> batch_path;  // BATCHBLOOM_BATCH_PATH, if set
};

/// The values as last read; safe to call from any number of threads. The reference stays valid
/// for the life of the process (a reload publishes a new snapshot and keeps the old one).
const Environment& environment();

}  // namespace batchbloom::detail

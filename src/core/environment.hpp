#pragma once
// The library's environment variables (batchbloom/environment.hpp), read and parsed once and
// kept until reload_environment().
#include <optional>
#include <string>

#include "batchbloom/backend.hpp"
#include "batchbloom/batch_tuning.hpp"
#include "batchbloom/error.hpp"

namespace batchbloom::detail {

/// A variable as last read: what it names, or, for a value that names nothing, the message each
/// call that needs it throws (a misspelt setting is an error, not ignored).
template <class T>
struct Setting {
    std::optional<T> value;  // unset: the variable was not set
    std::string error;       // not empty: the value names nothing

    /// The value, or std::nullopt where the variable is unset; throws Error for one that names nothing.
    const std::optional<T>& get() const {
        if (!error.empty()) throw Error(error);
        return value;
    }
};

struct Environment {
    Setting<Backend> backend;       // BATCHBLOOM_BACKEND, if set and not empty
    Setting<BatchPath> batch_path;  // BATCHBLOOM_BATCH_PATH, if set
};

/// The values as last read; safe to call from any number of threads. The reference stays valid
/// for the life of the process (a reload publishes a new snapshot and keeps the old one).
const Environment& environment();

}  // namespace batchbloom::detail

#pragma once
// A progress line on stderr while a command reads a long key input: keys read, bytes read,
// keys per second and, when the input's size is known, the estimated time left. Shown only
// when stderr is a terminal and --quiet is not given: drawn after the first batch, redrawn a
// few times a second in place ('\r') and erased when the input ends, so logs and pipes never
// see it.
#include <chrono>

#include "common/args.hpp"
#include "common/key_input.hpp"

namespace batchbloom::cli {

/// --quiet: no progress line and no summary on stderr (warnings and errors still appear).
OptionSpec quiet_option();

class Progress {
public:
    /// Enabled when `args` has no --quiet and stderr is a terminal.
    Progress(const KeyReader& reader, const ParsedArgs& args);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    /// Call after each batch; redraws the line when enough time has passed.
    void update();
    /// Erases the line (also done by the destructor).
    void finish();

private:
    const KeyReader& reader_;
    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace batchbloom::cli

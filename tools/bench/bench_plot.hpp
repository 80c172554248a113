#pragma once
// `batchbloom bench --plot`: runs tools/bench/plot_bench.py (built into the program) with python3 and
// matplotlib. The interpreter is `python3` from PATH, or $BATCHBLOOM_PYTHON when set.
#include <filesystem>

namespace batchbloom::cli {

/// Throws std::runtime_error with a message that says what to install (pip install matplotlib)
/// when python3 cannot be run or cannot import matplotlib. Cheap: call it before a long run.
void check_plot_tools();

/// Draws the results in `json` into `image`. Throws std::runtime_error if the script fails.
void run_plot_script(const std::filesystem::path& json, const std::filesystem::path& image);

}  // namespace batchbloom::cli

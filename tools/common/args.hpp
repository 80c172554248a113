#pragma once
// A small command-line parser for the batchbloom subcommands.
//
// Each subcommand describes itself with a CommandSpec (its options and positional arguments);
// parse_args() checks an argument list against it and returns the values found. Options are
// written `--name VALUE` or `--name=VALUE`; flags take no value; `--` ends the options; a lone
// `-` is a positional argument (it means stdin). Every mistake throws UsageError, which the
// program reports with exit status 2.
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace batchbloom::cli {

/// A mistake in the command line (as opposed to a failure while running the command).
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct OptionSpec {
    std::string name;     ///< without the leading "--"
    std::string metavar;  ///< empty for a flag (an option without a value)
    std::string help;
    bool repeatable = false;  ///< may be given more than once (ParsedArgs::values)
    bool takes_value() const { return !metavar.empty(); }
};

struct PositionalSpec {
    std::string name;
    std::string help;
    bool required = true;
    bool repeatable = false;  ///< the last positional only: takes every argument left
};

struct CommandSpec {
    std::string name;      ///< the subcommand, e.g. "build"
    std::string synopsis;  ///< one usage line without the program and command name
    std::string summary;   ///< one sentence
    std::vector<OptionSpec> options;
    std::vector<PositionalSpec> positionals;  ///< required ones first
    std::string notes;     ///< free text printed after the option list (may be empty)
};

/// The values found on one command line.
class ParsedArgs {
public:
    /// True when --help / -h was given (nothing else is checked then).
    bool help_requested() const { return help_; }

    bool has(std::string_view option) const;
    /// The option's value, if given (the first one, for a repeatable option).
    std::optional<std::string_view> value(std::string_view option) const;
    /// Every value of the option, in command-line order.
    std::vector<std::string_view> values(std::string_view option) const;
    /// The i-th positional argument, if given.
    std::optional<std::string_view> positional(std::size_t i) const;
    std::size_t positional_count() const { return positionals_.size(); }

    /// Typed accessors: the option's value parsed strictly, or `fallback` if it was not given.
    std::uint64_t u64(std::string_view option, std::uint64_t fallback) const;
    std::optional<std::uint64_t> u64(std::string_view option) const;
    std::optional<double> real(std::string_view option) const;

private:
    friend ParsedArgs parse_args(const CommandSpec& spec, std::span<const std::string_view> args);
    bool help_ = false;
    std::vector<std::pair<std::string, std::string>> values_;  // flags have an empty value
    std::vector<std::string> positionals_;
};

/// Parses `args` (the words after the subcommand name) against `spec`.
ParsedArgs parse_args(const CommandSpec& spec, std::span<const std::string_view> args);

/// The help text of a command: usage line, summary, arguments and options.
std::string usage_text(const CommandSpec& spec);

/// Strict number parsing for option values; `what` names the option in the error message.
/// parse_u64 accepts decimal digits only; parse_double accepts a finite decimal number.
std::uint64_t parse_u64(std::string_view text, std::string_view what);
double parse_double(std::string_view text, std::string_view what);

}  // namespace batchbloom::cli

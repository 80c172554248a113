#include "common/args.hpp"
#include "common/text_format.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

namespace batchbloom::cli {

namespace {

const OptionSpec* find_option(const CommandSpec& spec, std::string_view name) {
    for (const auto& o : spec.options)
        if (o.name == name) return &o;
    return nullptr;
}

}  // namespace

bool ParsedArgs::has(std::string_view option) const {
    return std::any_of(values_.begin(), values_.end(), [&](const auto& kv) { return kv.first == option; });
}

std::optional<std::string_view> ParsedArgs::value(std::string_view option) const {
    for (const auto& [name, val] : values_)
        if (name == option) return std::string_view(val);
    return std::nullopt;
}

std::vector<std::string_view> ParsedArgs::values(std::string_view option) const {
    std::vector<std::string_view> out;
    for (const auto& [name, val] : values_)
        if (name == option) out.emplace_back(val);
    return out;
}

std::optional<std::string_view> ParsedArgs::positional(std::size_t i) const {
    if (i < positionals_.size()) return std::string_view(positionals_[i]);
    return std::nullopt;
}

std::uint64_t ParsedArgs::u64(std::string_view option, std::uint64_t fallback) const {
    return u64(option).value_or(fallback);
}

std::optional<std::uint64_t> ParsedArgs::u64(std::string_view option) const {
    if (auto v = value(option)) return parse_u64(*v, "--" + std::string(option));
    return std::nullopt;
}

std::optional<double> ParsedArgs::real(std::string_view option) const {
    if (auto v = value(option)) return parse_double(*v, "--" + std::string(option));
    return std::nullopt;
}

ParsedArgs parse_args(const CommandSpec& spec, std::span<const std::string_view> args) {
    ParsedArgs out;
    bool options_done = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        if (options_done || arg == "-" || !arg.starts_with("-")) {
            out.positionals_.emplace_back(arg);
            continue;
        }
        if (arg == "--") {
            options_done = true;
            continue;
        }
        if (arg == "--help" || arg == "-h") {
            out.help_ = true;
            return out;
        }
        if (!arg.starts_with("--"))
            throw UsageError("unknown option " + in_quotes(arg) + " for '" + spec.name + "' (options are spelled --name)");

        std::string_view name = arg.substr(2);
        std::optional<std::string_view> inline_value;
        if (auto eq = name.find('='); eq != std::string_view::npos) {
            inline_value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        const OptionSpec* opt = find_option(spec, name);
        if (opt == nullptr)
            throw UsageError("unknown option " + in_quotes("--" + std::string(name)) + " for '" + spec.name + "'");
        if (!opt->repeatable && out.has(name)) throw UsageError("option --" + std::string(name) + " given more than once");

        std::string val;
        if (opt->takes_value()) {
            if (inline_value) {
                val = *inline_value;
            } else if (i + 1 < args.size()) {
                val = args[++i];
            } else {
                throw UsageError("option --" + opt->name + " needs a value (" + opt->metavar + ")");
            }
            if (val.empty()) throw UsageError("option --" + opt->name + " needs a non-empty value (" + opt->metavar + ")");
        } else if (inline_value) {
            throw UsageError("option --" + opt->name + " takes no value");
        }
        out.values_.emplace_back(std::string(name), std::move(val));
    }

    std::size_t required = 0;
    for (const auto& p : spec.positionals) required += p.required ? 1 : 0;
    if (out.positionals_.size() < required)
        throw UsageError("missing argument " + spec.positionals[out.positionals_.size()].name + " for '" + spec.name +
                         "'");
    const bool repeats = !spec.positionals.empty() && spec.positionals.back().repeatable;
    if (!repeats && out.positionals_.size() > spec.positionals.size())
        throw UsageError("unexpected argument " + in_quotes(out.positionals_[spec.positionals.size()]) + " for '" +
                         spec.name + "'");
    return out;
}

std::string usage_text(const CommandSpec& spec) {
    std::string s = "usage: batchbloom " + spec.name;
    if (!spec.synopsis.empty()) s += " " + spec.synopsis;
    s += "\n\n" + spec.summary + "\n";

    auto row = [&s](const std::string& left, const std::string& help) {
        constexpr std::size_t width = 26;
        s += "  " + left;
        if (left.size() + 2 < width) {
            s.append(width - left.size() - 2, ' ');
        } else {
            s += "\n";
            s.append(width, ' ');
        }
        s += help + "\n";
    };

    if (!spec.positionals.empty()) {
        s += "\narguments:\n";
        for (const auto& p : spec.positionals) row(p.name, p.help);
    }
    s += "\noptions:\n";
    for (const auto& o : spec.options) row("--" + o.name + (o.takes_value() ? " " + o.metavar : ""), o.help);
    row("-h, --help", "show this help and exit");
    if (!spec.notes.empty()) s += "\n" + spec.notes + (spec.notes.ends_with('\n') ? "" : "\n");
    return s;
}

std::uint64_t parse_u64(std::string_view text, std::string_view what) {
    std::uint64_t v = 0;
    const char* first = text.data();
    const char* last = first + text.size();
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec == std::errc::result_out_of_range)
        throw UsageError(std::string(what) + " value " + in_quotes(text) + " is too large");
    if (text.empty() || ec != std::errc{} || ptr != last)
        throw UsageError(std::string(what) + " expects a non-negative integer, got " + in_quotes(text));
    return v;
}

double parse_double(std::string_view text, std::string_view what) {
    double v = 0;
    const char* first = text.data();
    const char* last = first + text.size();
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (text.empty() || ec != std::errc{} || ptr != last || !std::isfinite(v))
        throw UsageError(std::string(what) + " expects a finite number, got " + in_quotes(text));
    return v;
}

}  // namespace batchbloom::cli

// batchbloom: command-line front end of the batchbloom library.
//
// Exit status: 0 on success, 1 when a command fails (bad input file, library error, ...),
// 2 for a usage error (unknown command or option, missing or malformed value).
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <batchbloom/version.hpp>

#include "common/args.hpp"
#include "commands/commands.hpp"

namespace batchbloom::cli {

namespace {

// bench is a subsystem of its own (tools/bench/); its entry is made here.
const Command bench_command = {"bench", "measure insert/probe throughput and FPR of the engines", bench_spec, run_bench};

// In the order of the program's usage.
const Command* const commands[] = {&size_command,  &build_command, &query_command,     &insert_command,
                                   &erase_command, &info_command,  &bench_command,     &union_command,
                                   &intersect_command, &fold_command, &join_command, &parquet_command};

std::string program_usage() {
    std::string s = "usage: batchbloom <command> [options]\n\nBlocked Bloom filters from the command line.\n\ncommands:\n";
    for (const Command* c : commands) {
        s += "  " + std::string(c->name);
        s.append(10 - c->name.size(), ' ');
        s += std::string(c->summary) + "\n";
    }
    s += "\n'batchbloom <command> --help' describes a command's options.\n"
         "Exit status: 0 success, 1 error, 2 usage error.\n";
    return s;
}

const Command* find_command(std::string_view name) {
    for (const Command* c : commands)
        if (c->name == name) return c;
    return nullptr;
}

int run(const std::vector<std::string_view>& argv) {
    if (argv.empty()) {
        std::fputs(program_usage().c_str(), stderr);
        return 2;
    }
    const std::string_view first = argv[0];
    if (first == "--help" || first == "-h" || first == "help") {
        if (first == "help" && argv.size() > 1) {
            const Command* c = find_command(argv[1]);
            if (c == nullptr) throw UsageError("unknown command '" + std::string(argv[1]) + "'");
            std::fputs(usage_text(c->spec()).c_str(), stdout);
        } else {
            std::fputs(program_usage().c_str(), stdout);
        }
        return 0;
    }
    if (first == "--version") {
        std::printf("batchbloom %s\n", BATCHBLOOM_VERSION_STRING);
        return 0;
    }
    const Command* cmd = find_command(first);
    if (cmd == nullptr)
    {
        std::string names;
        for (const Command* c : commands) names += (names.empty() ? "" : ", ") + std::string(c->name);
        throw UsageError("unknown command '" + std::string(first) + "' (commands: " + names + ")");
    }

    try {
        const CommandSpec spec = cmd->spec();
        const std::vector<std::string_view> rest(argv.begin() + 1, argv.end());
        const ParsedArgs args = parse_args(spec, rest);
        if (args.help_requested()) {
            std::fputs(usage_text(spec).c_str(), stdout);
            return 0;
        }
        return cmd->run(args);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "batchbloom: error: %s\nTry 'batchbloom %s --help'.\n", e.what(),
                     std::string(cmd->name).c_str());
        return 2;
    }
}

}  // namespace

}  // namespace batchbloom::cli

int main(int argc, char** argv) {
    using namespace batchbloom::cli;
    try {
        const std::vector<std::string_view> args(argv + 1, argv + argc);
        return run(args);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "batchbloom: error: %s\nTry 'batchbloom --help'.\n", e.what());
        return 2;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "batchbloom: error: out of memory\n");
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "batchbloom: error: %s\n", e.what());
        return 1;
    } catch (...) {
        std::fprintf(stderr, "batchbloom: error: unknown exception\n");
        return 1;
    }
}

#include "bench/bench_plot.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace batchbloom::cli {

extern const char plot_bench_script[];  // bench_plot_script.cpp, generated from plot_bench.py

namespace {

std::string python() {
    const char* env = std::getenv("BATCHBLOOM_PYTHON");
    return env != nullptr && *env != '\0' ? env : "python3";
}

const char* const install_hint =
    "--plot needs python3 with matplotlib: install it with `pip install matplotlib` "
    "(or `apt-get install python3-matplotlib`), or leave out --plot";

/// Runs `argv` with stdin fed from `input` (or /dev/null when null) and, when `quiet`, stdout
/// and stderr sent to /dev/null. Returns the exit status; -1 if the program could not be
/// started (errno_out says why), -2 if it died from a signal.
int run_program(const std::vector<std::string>& args, const char* input, bool quiet, int& errno_out) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    int fds[2] = {-1, -1};
    if (input != nullptr && ::pipe2(fds, O_CLOEXEC) != 0) {
        errno_out = errno;
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (input != nullptr)
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    else
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (quiet) {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&actions, 1, 2);
    }
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (input != nullptr) ::close(fds[0]);
    if (rc != 0) {
        if (input != nullptr) ::close(fds[1]);
        errno_out = rc;
        return -1;
    }
    if (input != nullptr) {
        // A child that exits before reading its input must not kill this program with
        // SIGPIPE: the write fails with EPIPE instead, and the exit status tells what happened.
        struct sigaction ignore {
        }, old{};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        ::sigaction(SIGPIPE, &ignore, &old);
        const std::size_t len = std::strlen(input);
        for (std::size_t done = 0; done < len;) {
            const ssize_t n = ::write(fds[1], input + done, len - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            done += static_cast<std::size_t>(n);
        }
        ::close(fds[1]);
        ::sigaction(SIGPIPE, &old, nullptr);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            errno_out = errno;
            return -1;
        }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return -2;
}

}  // namespace

void check_plot_tools() {
    const std::string py = python();
    int err = 0;
    const int rc = run_program({py, "-c", "import matplotlib"}, nullptr, true, err);
    if (rc == -1)
        throw std::runtime_error(std::string(install_hint) + " (cannot run " + py + ": " + std::strerror(err) + ")");
    if (rc == 127) throw std::runtime_error(std::string(install_hint) + " (" + py + " not found)");
    if (rc != 0) throw std::runtime_error(std::string(install_hint) + " (" + py + " cannot import matplotlib)");
}

void run_plot_script(const std::filesystem::path& json, const std::filesystem::path& image) {
    const std::string py = python();
    int err = 0;
    const int rc = run_program({py, "-", json.string(), image.string()}, plot_bench_script, false, err);
    if (rc == -1) throw std::runtime_error("cannot run " + py + " for --plot: " + std::strerror(err));
    if (rc != 0)
        throw std::runtime_error("the plot script failed (" + py + " exit status " + std::to_string(rc) + "); " +
                                 "no plot written to " + image.string());
}

}  // namespace batchbloom::cli

// lock_if_rewritten, behind every CLI command that rewrites one of its inputs: the output named
// as an input is locked however often other writers replace the file at that name meanwhile.
#include <batchbloom/file_lock.hpp>
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

}  // namespace

TEST(FileLock, AnOutputNamedAsAnInputIsLockedWhileOtherWritersReplaceIt) {
    const fs::path dir = fresh_dir("batchbloom-file-lock");
    const fs::path path = dir / "shared.bbf", link = dir / "link.bbf";
    write(path, "0");
    fs::create_symlink(path, link);
    // Another writer's saves: a new file renamed over the name, as write_file does, over and over.
    std::atomic<bool> stop{false};
    std::thread replacer([&] {
        for (int i = 0; !stop; ++i) {
            const fs::path tmp = dir / ("tmp-" + std::to_string(i % 2));
            write(tmp, std::to_string(i));
            fs::rename(tmp, path);
        }
    });
    int unlocked = 0, unlocked_by_link = 0;
    for (int i = 0; i < 2000; ++i) {
        unlocked += !batchbloom::lock_if_rewritten(path, {path}).held();
        unlocked_by_link += !batchbloom::lock_if_rewritten(link, {path}).held();
    }
    stop = true;
    replacer.join();
    // Two stats of one name a rename apart once looked like two files, and the command ran
    // unlocked (16 writers into one file lost 2 of their 64 rounds).
    EXPECT_EQ(unlocked, 0);
    EXPECT_EQ(unlocked_by_link, 0);
    // A different file is not the output: no lock.
    write(dir / "other.bbf", "x");
    EXPECT_FALSE(batchbloom::lock_if_rewritten(dir / "other.bbf", {path}).held());
    fs::remove_all(dir);
}

// Filter::map (filter.hpp, "Mapped filters"): a saved filter opened read-only over a memory
// mapping answers bit for bit as the loaded file on every engine and path; its file is checked
// as load() checks it; it cannot be written; it survives a rename over its file; and two
// processes probe one file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <batchbloom/classic.hpp>
#include <batchbloom/concurrent.hpp>
#include <batchbloom/counting.hpp>
#include <batchbloom/filter.hpp>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "support.hpp"

namespace bb = batchbloom;
namespace fs = std::filesystem;
using bb::Filter;
using bb::Params;
using bb::Shape;

namespace {

// A filter of `n` keys (parity 0) saved at `path`; returns it.
Filter saved_filter(const fs::path& path, const Params& p, std::size_t n, std::uint64_t seed = 1) {
    Filter f(p);
    f.insert(std::span<const std::uint64_t>(bb::testing::random_keys(n, seed, 0)));
    f.save(path);
    return f;
}

using bb::testing::message_of;

void write_bytes(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

class MappedEngine : public ::testing::TestWithParam<std::string> {
protected:
    bb::Backend backend() const { return bb::parse_backend(GetParam()); }
};

std::string engine_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace

INSTANTIATE_TEST_SUITE_P(Available, MappedEngine, ::testing::ValuesIn(bb::available_backends()), engine_name);

// Every probe output, on both paths, with several thread counts, odd batch sizes and spans
// that start at odd offsets: the mapping answers exactly as the loaded file.
TEST_P(MappedEngine, ProbesBitExactWithLoad) {
    const auto path = bb::testing::process_temp_path("probe-" + GetParam() + ".bbf");
    const std::pair<Shape, unsigned> shapes[] = {{Shape::word512, 8}, {Shape::split256, 5}, {Shape::line512, 11}};
    for (const auto& [shape, k] : shapes) {
        for (const std::uint64_t blocks : {1ULL, 3ULL, 1001ULL}) {
            const Params p = Params::make(shape, blocks, k);
            saved_filter(path, p, 40 * blocks + 7, blocks);
            const Filter loaded = Filter::load(path);
            Filter mapped = Filter::map(path);
            ASSERT_TRUE(mapped.mapped());
            ASSERT_FALSE(loaded.mapped());
            ASSERT_EQ(mapped, loaded);
            mapped.set_backend(backend());
            EXPECT_EQ(mapped.key_kinds(), loaded.key_kinds());
            EXPECT_EQ(mapped.fill_ratio(), loaded.fill_ratio());
            EXPECT_EQ(mapped.current_fpr(), loaded.current_fpr());

            // present keys (parity 0) and absent ones (parity 1), interleaved
            std::vector<std::uint64_t> probe = bb::testing::random_keys(40 * blocks + 7, blocks, 0);
            const auto absent = bb::testing::random_keys(5003, blocks + 99, 1);
            probe.insert(probe.end(), absent.begin(), absent.end());
            std::vector<std::uint32_t> probe32(probe.size());
            for (std::size_t i = 0; i < probe.size(); ++i) probe32[i] = static_cast<std::uint32_t>(probe[i] >> 7);
            std::vector<std::string> strings;
            for (std::size_t i = 0; i < 999; ++i) strings.push_back("key-" + std::to_string(probe[i]));
            std::vector<std::uint64_t> hashes(probe.size());
            for (std::size_t i = 0; i < probe.size(); ++i) hashes[i] = loaded.hash(probe[i]);

            for (const bb::BatchPath path_kind : {bb::BatchPath::direct, bb::BatchPath::partitioned}) {
                for (const unsigned threads : {1u, 3u}) {
                    mapped.set_batch_path(path_kind);
                    mapped.set_threads(threads);
                    for (const std::size_t skip : {std::size_t(0), std::size_t(1), std::size_t(3)}) {
                        const std::span<const std::uint64_t> keys = std::span<const std::uint64_t>(probe).subspan(skip);
                        const std::span<const std::uint32_t> keys32 = std::span<const std::uint32_t>(probe32).subspan(skip);
                        std::vector<std::uint8_t> want(keys.size()), got(keys.size());
                        loaded.contains(keys, want);
                        mapped.contains(keys, got);
                        ASSERT_EQ(got, want) << GetParam() << " skip " << skip;
                        std::vector<std::uint64_t> want_bits((keys.size() + 63) / 64), got_bits(want_bits.size());
                        loaded.contains_bitmap(keys, want_bits);
                        mapped.contains_bitmap(keys, got_bits);
                        ASSERT_EQ(got_bits, want_bits);
                        ASSERT_EQ(mapped.count(keys), loaded.count(keys));
                        loaded.contains(keys32, want);
                        mapped.contains(keys32, got);
                        ASSERT_EQ(got, want);
                        ASSERT_EQ(mapped.count(keys32), loaded.count(keys32));
                        const auto h = std::span<const std::uint64_t>(hashes).subspan(skip);
                        loaded.contains_hashes(h, want);
                        mapped.contains_hashes(h, got);
                        ASSERT_EQ(got, want);
                        ASSERT_EQ(mapped.count_hashes(h), loaded.count_hashes(h));
                    }
                    std::vector<std::uint8_t> want(strings.size()), got(strings.size());
                    loaded.contains(std::span<const std::string>(strings), want);
                    mapped.contains(std::span<const std::string>(strings), got);
                    ASSERT_EQ(got, want);
                    ASSERT_EQ(mapped.count(std::span<const std::string>(strings)),
                              loaded.count(std::span<const std::string>(strings)));
                }
            }
            for (std::size_t i = 0; i < 200; ++i) {
                ASSERT_EQ(mapped.contains(probe[i]), loaded.contains(probe[i]));
                ASSERT_EQ(mapped.contains(std::string_view(strings[i])), loaded.contains(std::string_view(strings[i])));
            }
            // every present key is found
            EXPECT_EQ(mapped.count(std::span<const std::uint64_t>(probe).first(40 * blocks + 7)), 40 * blocks + 7);
        }
    }
}

// Probes from several caller threads at once on one mapping (the mapping is only read).
TEST_P(MappedEngine, ConcurrentProbesFromCallerThreads) {
    const auto path = bb::testing::process_temp_path("threads-" + GetParam() + ".bbf");
    const Filter loaded = saved_filter(path, Params::make(Shape::word512, 4099, 8), 100000);
    Filter mapped = Filter::map(path);
    mapped.set_backend(backend());
    mapped.set_threads(1);
    const auto probe = bb::testing::random_keys(30001, 5, 1);
    std::vector<std::uint8_t> want(probe.size());
    loaded.contains(std::span<const std::uint64_t>(probe), want);
    std::vector<std::vector<std::uint8_t>> got(4, std::vector<std::uint8_t>(probe.size()));
    std::vector<std::thread> threads;
    for (auto& g : got) threads.emplace_back([&] { mapped.contains(std::span<const std::uint64_t>(probe), g); });
    for (auto& t : threads) t.join();
    for (const auto& g : got) EXPECT_EQ(g, want);
    const bb::ConcurrentFilter view(mapped);
    EXPECT_EQ(view.count(std::span<const std::uint64_t>(probe)), loaded.count(std::span<const std::uint64_t>(probe)));
}

TEST(Mapped, VerifyRejectsACorruptPayloadAndVerifyFalseMapsIt) {
    const auto path = bb::testing::process_temp_path("corrupt.bbf");
    const Filter original = saved_filter(path, Params::make(Shape::word512, 64, 8), 500);
    std::string bytes = bb::testing::file_contents(path);
    bytes[64 + 1000] = static_cast<char>(bytes[64 + 1000] ^ 0x10);  // one payload bit
    write_bytes(path, bytes);
    EXPECT_NE(message_of<bb::FormatError>([&] { (void)Filter::map(path); }).find("payload checksum mismatch"),
              std::string::npos);
    EXPECT_THROW((void)Filter::map(path, true), bb::FormatError);
    const Filter trusted = Filter::map(path, false);
    EXPECT_TRUE(trusted.mapped());
    EXPECT_NE(trusted, original);  // exactly the corrupt bytes, as asked
    EXPECT_EQ(0, std::memcmp(trusted.bytes().data(), bytes.data() + 64, trusted.bytes().size()));
    // the header is checked either way
    bytes[24] = static_cast<char>(bytes[24] ^ 1);  // blocks, under the header checksum
    write_bytes(path, bytes);
    EXPECT_NE(message_of<bb::FormatError>([&] { (void)Filter::map(path, false); }).find("header checksum mismatch"),
              std::string::npos);
}

TEST(Mapped, ShortTruncatedAndLongFilesAreClearErrors) {
    const auto path = bb::testing::process_temp_path("short.bbf");
    saved_filter(path, Params::make(Shape::split256, 100, 8), 300);
    const std::string bytes = bb::testing::file_contents(path);
    const struct {
        std::string content;
        std::string expect;
    } cases[] = {
        {"", "empty input"},
        {bytes.substr(0, 40), "truncated header"},
        {bytes.substr(0, 64), "truncated payload: 0 of 3200 bytes"},
        {bytes.substr(0, bytes.size() - 1), "truncated payload: 3199 of 3200 bytes"},
        {bytes + "x", "trailing data: 1 bytes after the payload"},
        {"not a filter at all, but long enough to hold a header of sixty-four bytes", "bad magic"},
    };
    for (const auto& c : cases) {
        write_bytes(path, c.content);
        for (const bool verify : {true, false}) {
            const std::string msg = message_of<bb::FormatError>([&] { (void)Filter::map(path, verify); });
            EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
            EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;  // names the file
        }
    }
    EXPECT_NE(message_of<bb::Error>([&] { (void)Filter::map(path.parent_path() / "no-such-file.bbf"); })
                  .find("cannot open"),
              std::string::npos);
    EXPECT_NE(message_of<bb::Error>([&] { (void)Filter::map(path.parent_path()); }).find("not a regular file"),
              std::string::npos);
}

TEST(Mapped, OtherKindsAndCompressedFilesAreRefused) {
    const auto path = bb::testing::process_temp_path("kinds.bbf");
    bb::CountingFilter counting(Params::make(Shape::word512, 8, 4));
    counting.save(path);
    EXPECT_NE(message_of<bb::FormatError>([&] { (void)Filter::map(path); }).find("counting"), std::string::npos);
    bb::ClassicFilter classic(bb::ClassicParams::for_fpr(100, 0.01));
    classic.save(path);
    EXPECT_NE(message_of<bb::FormatError>([&] { (void)Filter::map(path); }).find("classic"), std::string::npos);
    const Filter plain = saved_filter(path, Params::make(Shape::word512, 8, 4), 10);
    plain.save(path, {bb::Compression::zstd});
    const std::string msg = message_of<bb::FormatError>([&] { (void)Filter::map(path); });
    EXPECT_NE(msg.find("compressed (zstd)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("load()"), std::string::npos) << msg;
    EXPECT_EQ(Filter::load(path), plain);  // what the message says works
}

TEST(Mapped, WritesThrowAndEverythingElseWorks) {
    const auto path = bb::testing::process_temp_path("readonly.bbf");
    const Params p = Params::make(Shape::word512, 128, 8);
    const Filter original = saved_filter(path, p, 1000);
    Filter mapped = Filter::map(path);
    const std::vector<std::uint64_t> keys{1, 2, 3};
    const std::vector<std::uint32_t> keys32{1, 2, 3};
    const std::vector<std::string_view> strings{"a", "b"};
    const std::vector<std::string> owned{"a", "b"};
    const auto expect_read_only = [&](auto&& fn, const std::string& op) {
        const std::string msg = message_of<bb::Error>(fn);
        EXPECT_NE(msg.find(op + ": the filter is mapped read-only; load() for a writable copy"), std::string::npos)
            << op << ": " << msg;
    };
    expect_read_only([&] { mapped.insert(std::uint64_t{7}); }, "insert");
    expect_read_only([&] { mapped.insert(std::string_view("x")); }, "insert");
    expect_read_only([&] { mapped.insert(std::span<const std::uint64_t>(keys)); }, "insert");
    expect_read_only([&] { mapped.insert(std::span<const std::uint32_t>(keys32)); }, "insert");
    expect_read_only([&] { mapped.insert(std::span<const std::string_view>(strings)); }, "insert");
    expect_read_only([&] { mapped.insert(std::span<const std::string>(owned)); }, "insert");
    expect_read_only([&] { mapped.insert_hash(7); }, "insert");
    expect_read_only([&] { mapped.insert_hashes(keys); }, "insert");
    expect_read_only([&] { mapped.clear(); }, "clear");
    expect_read_only([&] { mapped |= original; }, "union");
    expect_read_only([&] { mapped &= original; }, "intersection");
    expect_read_only([&] { mapped.add_key_kinds(bb::KeyKinds::only_bytes()); }, "add_key_kinds");
    expect_read_only([&] { (void)mapped.mutable_bytes(); }, "mutable_bytes");
    bb::ConcurrentFilter view(mapped);
    expect_read_only([&] { view.insert(std::span<const std::uint64_t>(keys)); }, "insert");
    expect_read_only([&] { view.insert_hash(7); }, "insert");
    EXPECT_EQ(mapped, original);  // nothing changed
    EXPECT_EQ(mapped.key_kinds(), original.key_kinds());

    // reads, and the operations that make new filters
    EXPECT_EQ(mapped.fold(), original.fold());
    EXPECT_EQ(mapped | original, original);
    EXPECT_EQ(original | mapped, original);
    EXPECT_EQ(mapped & original, original);
    EXPECT_GT(mapped.estimated_cardinality(), 900.0);
    Filter target(p);
    target |= mapped;  // a mapped filter as the operand
    EXPECT_EQ(target, original);

    // save writes a normal file
    const auto copy_path = bb::testing::process_temp_path("readonly-copy.bbf");
    mapped.save(copy_path);
    EXPECT_EQ(bb::testing::file_contents(copy_path), bb::testing::file_contents(path));
    std::ostringstream out;
    mapped.save(out, {bb::Compression::zstd});
    std::istringstream in(out.str());
    EXPECT_EQ(Filter::load(in), original);

    // a copy is owning and writable; the mapping is untouched by writes to it
    Filter copy = mapped;
    EXPECT_FALSE(copy.mapped());
    EXPECT_EQ(copy, mapped);
    copy.insert(std::uint64_t{0xabcdef});
    copy.clear();
    EXPECT_EQ(copy.fill_ratio(), 0.0);
    EXPECT_EQ(mapped, original);
    Filter assigned(Params::make(Shape::word512, 1, 8));
    assigned = mapped;
    EXPECT_FALSE(assigned.mapped());
    EXPECT_EQ(assigned, original);
}

TEST(Mapped, MoveCarriesTheMappingAndFollowsTheMovedFromRule) {
    const auto path = bb::testing::process_temp_path("move.bbf");
    const Filter original = saved_filter(path, Params::make(Shape::line512, 50, 7), 300);
    Filter mapped = Filter::map(path);
    Filter moved(std::move(mapped));
    EXPECT_TRUE(moved.mapped());
    EXPECT_EQ(moved, original);
    // the moved-from filter follows the rule of every moved-from filter ("After a move")
    EXPECT_FALSE(mapped.mapped());  // NOLINT(bugprone-use-after-move): the rule under test
    EXPECT_EQ(mapped.params().blocks, 0u);
    EXPECT_FALSE(mapped.contains(std::uint64_t{1}));
    mapped.clear();
    EXPECT_THROW(mapped.insert(std::uint64_t{1}), bb::Error);
    mapped = std::move(moved);
    EXPECT_TRUE(mapped.mapped());
    EXPECT_EQ(mapped, original);
    mapped = std::move(mapped);  // self-move leaves it as it was
    EXPECT_TRUE(mapped.mapped());
    EXPECT_EQ(mapped, original);
    // assigning an owning filter over a mapped one unmaps it and makes it writable
    mapped = Filter(original);
    EXPECT_FALSE(mapped.mapped());
    mapped.insert(std::uint64_t{1});
}

// save() replaces a file by rename: a mapping of the old file keeps the old filter, whole.
TEST(Mapped, RenameReplaceLeavesTheMappingValid) {
    const auto path = bb::testing::process_temp_path("replaced.bbf");
    const Params p = Params::make(Shape::word512, 2000, 8);
    const Filter old_filter = saved_filter(path, p, 20000, 1);
    const Filter mapped = Filter::map(path);
    const Filter new_filter = saved_filter(path, p, 20000, 2);  // same size, other keys, renamed over
    ASSERT_NE(old_filter, new_filter);
    EXPECT_EQ(mapped, old_filter);
    const auto keys = bb::testing::random_keys(20000, 1, 0);
    EXPECT_EQ(mapped.count(std::span<const std::uint64_t>(keys)), keys.size());
    EXPECT_EQ(Filter::map(path), new_filter);  // a new map sees the new file
    fs::remove(path);                          // even unlinked, the old pages stay
    EXPECT_EQ(mapped, old_filter);
}

// A mapping inherited across fork and one made by another process read the same file; both
// answer correctly. (The child probes on one thread: no thread pool crosses the fork.)
TEST(Mapped, TwoProcessesProbeOneFile) {
    const auto path = bb::testing::process_temp_path("shared.bbf");
    const Filter original = saved_filter(path, Params::make(Shape::split256, 3000, 8), 30000);
    Filter mapped = Filter::map(path);
    mapped.set_threads(1);
    const auto present = bb::testing::random_keys(30000, 1, 0);
    const auto absent = bb::testing::random_keys(30000, 9, 1);
    const std::size_t false_positives = original.count(std::span<const std::uint64_t>(absent));
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        int bad = 0;
        if (mapped.count(std::span<const std::uint64_t>(present)) != present.size()) bad |= 1;
        if (mapped.count(std::span<const std::uint64_t>(absent)) != false_positives) bad |= 2;
        Filter own = Filter::map(path);
        own.set_threads(1);
        if (own != original || own.count(std::span<const std::uint64_t>(present)) != present.size()) bad |= 4;
        _exit(bad);
    }
    EXPECT_EQ(mapped.count(std::span<const std::uint64_t>(present)), present.size());
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_EQ(mapped, original);
}

// A file truncated in place under a mapping: the probe that reads a lost page throws
// FormatError instead of dying of SIGBUS (Linux), and so does every probe after it; a SIGBUS
// that is not about a mapping of ours still ends the process. Opening the truncated file is a
// FormatError.
TEST(Mapped, TruncationInPlaceUnderAMappingIsAFormatError) {
    const auto path = bb::testing::process_temp_path("truncated-under.bbf");
    const Params p = Params::make(Shape::word512, 4096, 8);  // 256 KiB: many pages
    saved_filter(path, p, 10000);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        Filter mapped = Filter::map(path);
        mapped.set_threads(2);
        fs::resize_file(path, 64);  // another writer, in place
        const auto keys = bb::testing::random_keys(100000, 3, 0);
        std::vector<std::uint8_t> out(keys.size());
        int caught = 0;
        for (int round = 0; round < 2; ++round) {
            const std::string msg =
                message_of<bb::FormatError>([&] { mapped.contains(std::span<const std::uint64_t>(keys), out); });
            caught += msg.find("truncated while mapped") != std::string::npos;
        }
        caught += !message_of<bb::FormatError>([&] { (void)mapped.contains(std::uint64_t{7}); }).empty();
        _exit(caught == 3 ? 0 : 10 + caught);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << "the probe died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), 0);
    // Another SIGBUS (not a fault in a mapping of ours) is still the default action.
    const auto whole = bb::testing::process_temp_path("whole-under.bbf");
    saved_filter(whole, p, 100);
    const pid_t other = fork();
    ASSERT_GE(other, 0);
    if (other == 0) {
        const Filter guarded = Filter::map(whole);  // the handler is installed
        (void)guarded.contains(std::uint64_t{1});
        ::raise(SIGBUS);
        _exit(0);  // not reached
    }
    ASSERT_EQ(waitpid(other, &status, 0), other);
    const bool sigbus = WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS;
    const bool sanitizer_exit = WIFEXITED(status) && WEXITSTATUS(status) != 0;  // its handler ran first
    EXPECT_TRUE(sigbus || sanitizer_exit) << "status " << status;
    EXPECT_NE(message_of<bb::FormatError>([&] { (void)Filter::map(path); }).find("truncated payload"), std::string::npos);
}

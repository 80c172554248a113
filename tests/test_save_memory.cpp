// Saving streams: beyond the filter itself, a save of any type and form holds a few buffers,
// never a second copy of the filter (a 3.6 GB Spark-form filter once peaked at 7 GB while
// saved), and loading Spark's form reads the words into the filter in place. Each case runs in
// a forked child, which measures its own peak resident size (getrusage) before and after: a
// buffer as large as the filter, written and freed, shows as that much growth.
#include <batchbloom/any_filter.hpp>
#include <batchbloom/atomic_file.hpp>
#include <batchbloom/batchbloom.hpp>
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <ostream>
#include <sstream>
#include <vector>

#include "support.hpp"

namespace {

namespace bb = batchbloom;

constexpr std::uint64_t filter_bytes = std::uint64_t(64) << 20;
// A save's own buffers (the stream's, zstd's context at level 3) stay far below this.
constexpr std::int64_t save_allowance = std::int64_t(filter_bytes / 4);

std::int64_t peak_rss_bytes() {
    rusage r{};
    ::getrusage(RUSAGE_SELF, &r);
    return std::int64_t(r.ru_maxrss) * 1024;  // KiB on Linux
}

/// How much the peak resident size grew while `fn` ran, in a child process (so that earlier
/// peaks of this one hide nothing); -1 if the child failed.
std::int64_t peak_growth(const std::function<void()>& fn) {
    int fds[2];
    if (::pipe(fds) != 0) return -1;
    const pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        ::close(fds[0]);
        std::int64_t growth = -1;
        try {
            const std::int64_t before = peak_rss_bytes();
            fn();
            growth = peak_rss_bytes() - before;
        } catch (...) {
        }
        const bool sent = ::write(fds[1], &growth, sizeof growth) == ssize_t(sizeof growth);
        ::_exit(sent ? 0 : 1);
    }
    ::close(fds[1]);
    std::int64_t growth = -1;
    if (::read(fds[0], &growth, sizeof growth) != ssize_t(sizeof growth)) growth = -1;
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? growth : -1;
}

std::vector<std::uint64_t> some_keys() {
    std::vector<std::uint64_t> keys(100'000);
    for (std::uint64_t i = 0; i < keys.size(); ++i) keys[i] = i * 0x9E3779B97F4A7C15ULL;
    return keys;
}

/// Saves through write_file to /dev/null: the same stream a file gets, without the disk.
void expect_streamed(const char* what, std::uint64_t bytes, const std::function<void(std::ostream&)>& save) {
    ASSERT_GE(bytes, filter_bytes) << what;
    const std::int64_t growth = peak_growth([&] { bb::write_file("/dev/null", save); });
    ASSERT_GE(growth, 0) << what << ": the save failed";
    EXPECT_LT(growth, save_allowance) << what << ": saving " << bytes << " bytes grew the peak resident size by "
                                      << growth << " bytes";
}

const bb::Params blocked_params = bb::Params::make(bb::Shape::word512, filter_bytes / 64, 7);

TEST(SaveMemory, BlockedPlainAndZstd) {
    bb::Filter f(blocked_params);
    f.insert(some_keys());
    expect_streamed("blocked", f.bytes().size(), [&](std::ostream& o) { f.save(o); });
    expect_streamed("blocked, zstd", f.bytes().size(),
                    [&](std::ostream& o) { f.save(o, bb::SaveOptions{bb::Compression::zstd, 3}); });
}

TEST(SaveMemory, CountingDeletableScalable) {
    const auto quarter = bb::Params::make(bb::Shape::word512, filter_bytes / 64 / 4, 7);
    bb::CountingFilter c(quarter);  // four bit planes
    c.insert(some_keys());
    expect_streamed("counting", 4 * quarter.bytes(), [&](std::ostream& o) { c.save(o); });
    {
        bb::DeletableFilter d(blocked_params);
        d.insert(some_keys());
        expect_streamed("deletable", blocked_params.bytes(), [&](std::ostream& o) { d.save(o); });
    }
    bb::ScalableParams sp = bb::ScalableParams::for_total_fpr(60'000'000, 0.01);
    bb::ScalableFilter s(sp);
    s.insert(some_keys());
    expect_streamed("scalable", s.stages().front().bytes().size(), [&](std::ostream& o) { s.save(o); });
}

TEST(SaveMemory, ClassicAndSparkForms) {
    const bb::ClassicParams p{filter_bytes * 8, 7};
    bb::ClassicFilter c(p);
    c.insert(some_keys());
    expect_streamed("classic", p.bytes(), [&](std::ostream& o) { c.save(o); });
    bb::ClassicFilter s(p, bb::ClassicHashing{bb::ClassicScheme::spark_v2, bb::HashKind::xxh3, 7});
    s.insert(some_keys());
    expect_streamed("Spark's form", p.bytes(), [&](std::ostream& o) { s.write_spark(o); });
}

// Loading holds the filter; Spark's big-endian words are read into it and swapped in place,
// not read into a buffer of their own first.
TEST(SaveMemory, LoadingSparksFormReadsInPlace) {
    const bb::ClassicParams p{filter_bytes * 8, 7};
    const bb::testing::TempDir dir;
    const auto path = dir.path() / "spark.bin";
    {
        bb::ClassicFilter s(p, bb::ClassicHashing{bb::ClassicScheme::spark_v2, bb::HashKind::xxh3, 7});
        s.insert(some_keys());
        bb::write_file(path, [&](std::ostream& o) { s.write_spark(o); });
    }
    const std::int64_t growth = peak_growth([&] {
        // (No probe here: a forked child must not start the OpenMP threads its parent ran.)
        const bb::AnyFilter f = bb::load_any(path);
        if (std::get<bb::ClassicFilter>(f).params().bits != p.bits) throw bb::Error("a different filter");
    });
    ASSERT_GE(growth, 0) << "the load failed";
    EXPECT_LT(growth, std::int64_t(p.bytes()) + save_allowance)
        << "loading " << p.bytes() << " bytes grew the peak resident size by " << growth << " bytes";
}

/// Asserts that `load` (which must load a filter of `bytes`) grew the peak resident size by
/// less than 1.5 times the filter: no second copy of it (which made it 2x and more). Beside the
/// filter: the first eighth of an unsized stream's payload (format.md, step 6), zstd's window,
/// and under AddressSanitizer its shadow of the filter (an eighth again).
void expect_loaded_in_place(const char* what, std::uint64_t bytes, const std::function<void()>& load) {
    const std::int64_t growth = peak_growth(load);
    ASSERT_GE(growth, 0) << what << ": the load failed";
    EXPECT_LT(growth, std::int64_t(bytes) + std::int64_t(bytes / 2))
        << what << ": loading " << bytes << " bytes grew the peak resident size by " << growth << " bytes";
}

// Issue 45, row 9: a zstd file decompressed into a buffer of its own and was then copied into
// the filter, and an unseekable stream (a pipe, a Python file object) was read into a buffer
// first: twice the filter at the peak. Both now read into the filter's storage.
TEST(SaveMemory, LoadingZstdAndUnseekableStreamsReadsInPlace) {
    const bb::testing::TempDir dir;
    const auto path = dir.path() / "z.bbf";
    std::string plain;
    {
        bb::Filter f(blocked_params);
        f.insert(some_keys());
        f.save(path, bb::SaveOptions{bb::Compression::zstd, 1});
        std::ostringstream out;
        f.save(out);
        plain = std::move(out).str();
    }
    expect_loaded_in_place("zstd, load_any", filter_bytes, [&] {
        if (bb::kind_of(bb::load_any(path)) != bb::FileKind::blocked) throw bb::Error("a different filter");
    });
    expect_loaded_in_place("zstd, Filter::load", filter_bytes, [&] {
        if (bb::Filter::load(path).bytes().size() != filter_bytes) throw bb::Error("a different filter");
    });
    // (The stream's bytes exist before the child is forked: they are not its growth.)
    bb::testing::OneWayBuf buf(std::move(plain));
    expect_loaded_in_place("unseekable stream", filter_bytes, [&] {
        std::istream in(&buf);
        if (bb::Filter::load(in).bytes().size() != filter_bytes) throw bb::Error("a different filter");
    });
}

}  // namespace

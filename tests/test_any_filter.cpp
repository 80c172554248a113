// load_any: every file kind (and Spark's form, and zstd) comes back as its own type, from a
// path and from bytes; what is no filter is a FormatError naming the problem.
#include <gtest/gtest.h>

#include <batchbloom/any_filter.hpp>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <fstream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "support.hpp"

namespace bb = batchbloom;
using bb::testing::file_contents;
using bb::testing::TempDir;

namespace {

const std::vector<std::uint64_t> keys = bb::testing::random_keys(2000, 7, 0);

std::span<const std::byte> as_bytes(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

void write(const std::filesystem::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

/// Saves f, loads it back with load_any from the file and from its bytes: same type, equal.
template <class F, class Save>
void expect_round_trip(const F& f, bb::FileKind kind, Save save) {
    TempDir dir;
    const auto path = dir.path() / "f.bin";
    save(f, path);
    for (const bb::AnyFilter& any : {bb::load_any(path), bb::load_any(as_bytes(file_contents(path)))}) {
        ASSERT_TRUE(std::holds_alternative<F>(any)) << "variant index " << any.index();
        EXPECT_TRUE(std::get<F>(any) == f);
        EXPECT_EQ(bb::kind_of(any), kind);
    }
}

std::string saved_bytes(const bb::Filter& f) {
    std::ostringstream out;
    f.save(out);
    return std::move(out).str();
}

}  // namespace

// Every kind's own file through load_any is FileProperties' (test_file_properties.cpp); a blocked
// filter may also come in a zstd frame.
TEST(LoadAny, ZstdFramedBlockedFilterFromPathAndBytes) {
    bb::Filter blocked(bb::Params::for_fpr(2000, 0.01, bb::Shape::split256), {bb::HashKind::murmur3, 9});
    blocked.insert(std::span<const std::uint64_t>(keys));
    expect_round_trip(blocked, bb::FileKind::blocked, [](const bb::Filter& f, const std::filesystem::path& p) {
        f.save(p, {bb::Compression::zstd});
    });
}

namespace {

/// load_any of `bytes` through a pipe, by the path a shell hands over for one (/dev/fd/N, as
/// `<(...)` and /dev/stdin are): a writer thread feeds it, so nothing can be read twice.
bb::AnyFilter load_any_from_pipe(const std::string& bytes, bb::FileForm* form = nullptr) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe");
    std::thread writer([&] {
        std::size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t w = ::write(fds[1], bytes.data() + done, bytes.size() - done);
            if (w <= 0) break;  // the reader gave up (EPIPE: SIGPIPE is ignored below)
            done += std::size_t(w);
        }
        ::close(fds[1]);
    });
    const auto old = std::signal(SIGPIPE, SIG_IGN);
    try {
        auto any = bb::load_any("/dev/fd/" + std::to_string(fds[0]), {}, form);
        ::close(fds[0]);
        writer.join();
        std::signal(SIGPIPE, old);
        return any;
    } catch (...) {
        ::close(fds[0]);
        writer.join();
        std::signal(SIGPIPE, old);
        throw;
    }
}

}  // namespace

// Issue 45, row 11: load_any read the first bytes to tell the kind and then opened the path
// again, so a pipe lost them ("empty input: not a batchbloom filter"). One read now serves both.
TEST(LoadAny, PipesLoadLikeFilesInEveryForm) {
    bb::Filter blocked(bb::Params::for_fpr(2000, 0.01));
    blocked.insert(std::span<const std::uint64_t>(keys));
    std::ostringstream zstd;
    blocked.save(zstd, {bb::Compression::zstd});
    bb::CountingFilter counting(bb::Params::for_fpr(2000, 0.01));
    counting.insert(std::span<const std::uint64_t>(keys));
    std::ostringstream counted;
    counting.save(counted);
    bb::ClassicFilter spark(bb::ClassicParams::spark(2000, 0.01),
                            bb::ClassicHashing{bb::ClassicScheme::spark_v2, bb::HashKind::xxh3, 3});
    spark.insert(std::span<const std::uint64_t>(keys));
    std::ostringstream sparked;
    spark.write_spark(sparked);

    bb::FileForm form{};
    EXPECT_TRUE(std::get<bb::Filter>(load_any_from_pipe(saved_bytes(blocked), &form)) == blocked);
    EXPECT_EQ(form, bb::FileForm::batchbloom);
    EXPECT_TRUE(std::get<bb::Filter>(load_any_from_pipe(zstd.str(), &form)) == blocked);
    EXPECT_EQ(form, bb::FileForm::zstd);
    EXPECT_TRUE(std::get<bb::CountingFilter>(load_any_from_pipe(counted.str())) == counting);
    EXPECT_TRUE(std::get<bb::ClassicFilter>(load_any_from_pipe(sparked.str(), &form)) == spark);
    EXPECT_EQ(form, bb::FileForm::spark);
    // What a file refuses, a pipe refuses alike: bytes after the filter, a cut filter.
    EXPECT_THROW(load_any_from_pipe(saved_bytes(blocked) + "x"), bb::FormatError);
    EXPECT_THROW(load_any_from_pipe(saved_bytes(blocked).substr(0, 100)), bb::FormatError);
    EXPECT_THROW(load_any_from_pipe(zstd.str() + "x"), bb::FormatError);
}

// The blocked kind had another name; code written against it still compiles and means the
// same byte in the header.
TEST(LoadAny, KindNames) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    static_assert(bb::FileKind::plain == bb::FileKind::blocked);
#pragma GCC diagnostic pop
    static_assert(static_cast<int>(bb::FileKind::blocked) == 1);
    EXPECT_EQ(bb::to_string(bb::FileKind::blocked), "blocked");
    EXPECT_EQ(bb::to_string(bb::FileKind::counting), "counting");
    EXPECT_EQ(bb::to_string(static_cast<bb::FileKind>(2)), "unknown");
}

// The one sniffer (the CLI's and load_any's): the first bytes alone, from a path or from bytes.
TEST(LoadAny, FileFormFromTheFirstBytes) {
    const bb::Filter f(bb::Params::for_fpr(100, 0.01));
    std::ostringstream zstd;
    f.save(zstd, {bb::Compression::zstd});
    const bb::ClassicFilter spark = bb::ClassicFilter::spark(100, 0.02, bb::ClassicScheme::spark_v1, 0);
    const auto spark_bytes = spark.to_spark_bytes();
    const std::string saved = saved_bytes(f);
    const std::pair<std::string, bb::FileForm> cases[] = {
        {saved, bb::FileForm::batchbloom},
        {saved.substr(0, 4), bb::FileForm::batchbloom},  // cut short: still the blocked loader's to judge
        {zstd.str(), bb::FileForm::zstd},
        {std::string(reinterpret_cast<const char*>(spark_bytes.data()), spark_bytes.size()), bb::FileForm::spark},
        {"not a filter", bb::FileForm::unknown},
        {"", bb::FileForm::unknown},
    };
    TempDir dir;
    for (const auto& [bytes, form] : cases) {
        EXPECT_EQ(bb::file_form(as_bytes(bytes)), form) << bytes.size() << " bytes";
        write(dir.path() / "f", bytes);
        EXPECT_EQ(bb::file_form(dir.path() / "f"), form) << bytes.size() << " bytes";
    }
    EXPECT_THROW(bb::file_form(dir.path() / "missing"), bb::Error);
}

TEST(LoadAny, SparkSerializedFilters) {
    for (const auto scheme : {bb::ClassicScheme::spark_v1, bb::ClassicScheme::spark_v2}) {
        bb::ClassicFilter f = bb::ClassicFilter::spark(2000, 0.02, scheme, scheme == bb::ClassicScheme::spark_v2 ? -5 : 0);
        f.insert(std::span<const std::uint64_t>(keys));
        expect_round_trip(f, bb::FileKind::classic, [](const bb::ClassicFilter& g, const std::filesystem::path& p) {
            std::ofstream out(p, std::ios::binary);
            g.write_spark(out);
        });
        const bb::AnyFilter any = bb::load_any(std::span<const std::byte>(f.to_spark_bytes()));
        EXPECT_EQ(std::get<bb::ClassicFilter>(any).key_kinds(), bb::KeyKinds::not_recorded());
    }
}

TEST(LoadAny, WhatIsNoFilterIsAFormatErrorNamingTheProblem) {
    TempDir dir;
    auto message = [](auto&& load) -> std::string {
        try {
            load();
        } catch (const bb::FormatError& e) {
            return e.what();
        }
        return "no FormatError";
    };
    const std::string junk = "not a filter at all";
    write(dir.path() / "junk", junk);
    EXPECT_NE(message([&] { bb::load_any(dir.path() / "junk"); }).find("junk': not a filter of any kind"),
              std::string::npos);
    EXPECT_NE(message([&] { bb::load_any(as_bytes(junk)); }).find("Spark"), std::string::npos);
    EXPECT_NE(message([&] { bb::load_any(std::span<const std::byte>()); }).find("not a filter"), std::string::npos);
    write(dir.path() / "empty", "");
    EXPECT_NE(message([&] { bb::load_any(dir.path() / "empty"); }).find("empty"), std::string::npos);

    bb::Filter f(bb::Params::for_fpr(100, 0.01));
    const std::string good = saved_bytes(f);
    // Cut, extended, a header cut short, a corrupt header, an unknown kind.
    EXPECT_NE(message([&] { bb::load_any(as_bytes(good.substr(0, good.size() - 1))); }).find("blocked filter: truncated"),
              std::string::npos);
    EXPECT_NE(message([&] { bb::load_any(as_bytes(good + "x")); }).find("trailing"), std::string::npos);
    write(dir.path() / "long", good + "x");
    EXPECT_NE(message([&] { bb::load_any(dir.path() / "long"); }).find("trailing"), std::string::npos);
    EXPECT_NE(message([&] { bb::load_any(as_bytes(good.substr(0, 20))); }).find("truncated header"), std::string::npos);
    std::string bad = good;
    bad[30] ^= 1;
    EXPECT_NE(message([&] { bb::load_any(as_bytes(bad)); }).find("header checksum"), std::string::npos);
    bad = good;
    bad[10] = 9;  // an unknown kind with a valid checksum
    const std::uint64_t sum = bb::xxh3_64(bad.data(), 56, 0);
    bad.replace(56, 8, reinterpret_cast<const char*>(&sum), 8);
    EXPECT_NE(message([&] { bb::load_any(as_bytes(bad)); }).find("unsupported filter kind 9"), std::string::npos);
    // A Spark prefix with a bad word count.
    const std::string spark_cut("\0\0\0\x02\0\0\0\x03\0\0\0\0\0\0\0\x05", 16);
    EXPECT_NE(message([&] { bb::load_any(as_bytes(spark_cut)); }).find("Spark BloomFilter: truncated"), std::string::npos);

    EXPECT_THROW(bb::load_any(dir.path() / "missing.bbf"), bb::Error);
    EXPECT_THROW(bb::load_any(dir.path()), bb::Error);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "missing.bbf"));
}

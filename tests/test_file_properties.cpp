// What every filter type's file must do, one test per property over every type that saves
// (Filter, CountingFilter, DeletableFilter, ScalableFilter, ClassicFilter): round trips through
// streams, files and load_any; truncation, bit flips, trailing bytes and other kinds' files
// rejected as FormatError naming the problem; bad paths named; damaged-then-resealed files
// loaded or refused with Error and nothing else; the committed golden files loaded and saved to
// the same bytes. A Kind<F> says how to make filters of a type worth saving and what its golden
// files hold; what only one kind has (the blocked header's layout, hostile lengths, Spark's form,
// zstd frames) is tested in that kind's own file. Their engine and thread settings are the
// object's, never the file's.
#include <gtest/gtest.h>

#include <batchbloom/batchbloom.hpp>
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <variant>
#include <vector>

#include "filter_types.hpp"
#include "format/file_header.hpp"
#include "support.hpp"

namespace {

namespace bb = batchbloom;
namespace fs = std::filesystem;
using bb::testing::file_contents;
using bb::testing::mentions;
using bb::testing::rejects;
using bb::testing::TempDir;
using bb::testing::Via;

constexpr std::size_t header_size = 64;
constexpr Via both_ways[] = {Via::seekable, Via::unseekable};

/// Integer keys, and a few byte strings, into a filter of any type. Every Kind's samples are
/// filled filters and, last, an empty one.
template <class F>
void fill(F& f, std::size_t n, std::uint64_t seed) {
    f.insert(bb::testing::random_keys(n, seed, 0));
    for (std::string_view s : {"", "a", "batchbloom", "with\0zero"}) f.insert(s);
}

/// A committed file of tests/data/golden (README.md there says how they were made): it loads
/// as its type, holds the integer keys i * 7919 (i from `ints_from` below 200) and, if `strings`,
/// "key-0" to "key-99", and `check` holds for it.
template <class F>
struct Golden {
    const char* file;
    std::size_t ints_from;
    bool strings;
    std::function<void(const F&)> check;
};

template <class F>
struct Kind;

template <>
struct Kind<bb::Filter> {
    static constexpr bb::FileKind kind = bb::FileKind::blocked;
    static std::vector<bb::Filter> samples() {
        std::vector<bb::Filter> v;
        for (const bb::Shape shape : bb::testing::all_shapes)
            for (const bb::Hashing h : {bb::Hashing{bb::HashKind::xxh3, 0}, bb::Hashing{bb::HashKind::xxh3, ~0ULL},
                                        bb::Hashing{bb::HashKind::murmur3, 0x9E3779B9}}) {
                const std::uint64_t seed = v.size();
                fill(v.emplace_back(bb::Params::make(shape, 21, 6), h), 300, seed);
            }
        v.emplace_back(bb::Params::make(bb::Shape::word512, 4, 8));
        return v;
    }
    static std::uint64_t payload_bytes(const bb::Filter& f) { return f.params().bytes(); }
    static std::vector<Golden<bb::Filter>> golden() {
        auto params_are = [](bb::Params p, bb::Hashing h) {
            return [=](const bb::Filter& f) {
                EXPECT_EQ(f.params(), p);
                EXPECT_EQ(f.hashing(), h);
            };
        };
        return {{"blocked_word512.bbf", 0, true, params_are(bb::Params::make(bb::Shape::word512, 16, 8), {})},
                {"blocked_split256_murmur3.bbf", 0, true,
                 params_are(bb::Params::make(bb::Shape::split256, 20, 8), {bb::HashKind::murmur3, 42})},
                {"blocked_line512.bbf", 0, false,
                 params_are(bb::Params::make(bb::Shape::line512, 12, 6), {bb::HashKind::xxh3, 7})}};
    }
};

template <>
struct Kind<bb::CountingFilter> {
    static constexpr bb::FileKind kind = bb::FileKind::counting;
    static std::vector<bb::CountingFilter> samples() {
        std::vector<bb::CountingFilter> v;
        for (const bb::Shape shape : bb::testing::all_shapes) {
            auto& c = v.emplace_back(bb::Params::make(shape, 50, 6), bb::Hashing{bb::HashKind::murmur3, 5});
            const auto keys = bb::testing::random_keys(2000, v.size(), 0);
            c.insert(keys);
            c.erase(std::span(keys).first(100));  // counters of 2 and more
        }
        v.emplace_back(bb::Params::make(bb::Shape::word512, 4, 8));
        return v;
    }
    static std::uint64_t payload_bytes(const bb::CountingFilter& f) { return 4 * f.params().bytes(); }
    static std::vector<Golden<bb::CountingFilter>> golden() {
        return {{"counting.bbf", 50, true,
                 [](const bb::CountingFilter& f) { EXPECT_EQ(f.params(), bb::Params::make(bb::Shape::word512, 8, 8)); }}};
    }
};

template <>
struct Kind<bb::DeletableFilter> {
    static constexpr bb::FileKind kind = bb::FileKind::deletable;
    static std::vector<bb::DeletableFilter> samples() {
        std::vector<bb::DeletableFilter> v;
        for (const unsigned region_bits : {4u, 1u, 512u}) {
            auto& d = v.emplace_back(bb::Params::make(bb::Shape::word512, 30, 8), region_bits,
                                     bb::Hashing{bb::HashKind::murmur3, 3});
            const auto keys = bb::testing::random_keys(600, 6, 0);
            d.insert(keys);
            d.erase(std::span(keys).first(100));
        }
        v.emplace_back(bb::Params::make(bb::Shape::word512, 4, 8));
        return v;
    }
    static std::uint64_t payload_bytes(const bb::DeletableFilter& f) {
        return f.params().bytes() + 8 * ((f.params().bits() / f.region_bits() + 63) / 64);
    }
    static std::vector<Golden<bb::DeletableFilter>> golden() {
        return {{"deletable.bbf", 50, true, [](const bb::DeletableFilter& f) { EXPECT_EQ(f.region_bits(), 8u); }}};
    }
};

template <>
struct Kind<bb::ScalableFilter> {
    static constexpr bb::FileKind kind = bb::FileKind::scalable;
    static std::vector<bb::ScalableFilter> samples() {
        bb::ScalableParams p{.initial_capacity = 64, .initial_fpr = 0.02, .growth = 3, .tightening = 0.5};
        p.shape = bb::Shape::split256;
        std::vector<bb::ScalableFilter> v;
        fill(v.emplace_back(p, bb::Hashing{bb::HashKind::xxh3, 9}), 1000, 0);
        EXPECT_EQ(v.back().stages().size(), 4u);  // 64 + 192 + 576 < 1000 keys
        fill(v.emplace_back(bb::ScalableParams{.initial_capacity = 500}, bb::Hashing{bb::HashKind::murmur3, 1}), 100, 1);
        EXPECT_EQ(v.back().stages().size(), 1u);
        v.emplace_back(bb::ScalableParams{.initial_capacity = 10});
        return v;
    }
    static std::uint64_t payload_bytes(const bb::ScalableFilter& f) {
        std::uint64_t n = 48 + 8 * f.stages().size();
        for (const auto& s : f.stages()) n += s.params().bytes();
        return n;
    }
    static std::vector<Golden<bb::ScalableFilter>> golden() {
        return {{"scalable.bbf", 0, true, [](const bb::ScalableFilter& f) {
                     EXPECT_EQ(f.stages().size(), 3u);
                     EXPECT_EQ(f.size(), 300u);
                 }}};
    }
};

template <>
struct Kind<bb::ClassicFilter> {
    static constexpr bb::FileKind kind = bb::FileKind::classic;
    static std::vector<bb::ClassicFilter> samples() {
        std::vector<bb::ClassicFilter> v;
        // Spark's schemes take whole words and (spark_v1) no seed.
        fill(v.emplace_back(bb::ClassicParams{10'007, 4},
                            bb::ClassicHashing{bb::ClassicScheme::double_hashing, bb::HashKind::murmur3, 77}),
             1000, 0);
        fill(v.emplace_back(bb::ClassicParams{10'048, 4}, bb::ClassicHashing{bb::ClassicScheme::spark_v1}), 1000, 1);
        fill(v.emplace_back(bb::ClassicParams{10'048, 4},
                            bb::ClassicHashing{bb::ClassicScheme::spark_v2, bb::HashKind::xxh3, 77}),
             1000, 2);
        v.emplace_back(bb::ClassicParams{100, 3});
        return v;
    }
    static std::uint64_t payload_bytes(const bb::ClassicFilter& f) { return f.params().bytes(); }
    static std::vector<Golden<bb::ClassicFilter>> golden() {
        return {{"classic_double_hashing.bbf", 0, true,
                 [](const bb::ClassicFilter& f) {
                     EXPECT_EQ(f.params(), (bb::ClassicParams{3000, 5}));
                 }},
                {"classic_spark_v2.bbf", 200, false,
                 [](const bb::ClassicFilter& f) { EXPECT_EQ(f.hashing().scheme, bb::ClassicScheme::spark_v2); }}};
    }
};

using FileTypes = bb::testing::FilterTypes;

template <class F>
std::string saved(const F& f) {
    std::ostringstream out(std::ios::binary);
    f.save(out);
    return std::move(out).str();
}

void write(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good());
}

std::span<const std::byte> as_bytes(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

template <class F>
class FileProperties : public ::testing::Test {
protected:
    /// The file of the first sample: the subject of the rejection tests.
    static std::string good() { return saved(Kind<F>::samples().front()); }
    static std::string kind_name() { return std::string(bb::to_string(Kind<F>::kind)); }
};
struct TypeNames {
    template <class F>
    static std::string GetName(int) {
        std::string name(bb::to_string(Kind<F>::kind));
        name[0] = static_cast<char>(name[0] - 'a' + 'A');
        return name;
    }
};
TYPED_TEST_SUITE(FileProperties, FileTypes, TypeNames);

TYPED_TEST(FileProperties, SaveLoadRoundTripThroughStreamsFilesAndLoadAny) {
    using F = TypeParam;
    using K = Kind<F>;
    TempDir dir;
    const fs::path p = dir.path() / "f.bbf";
    for (const F& f : K::samples()) {
        const std::string s = saved(f);
        ASSERT_EQ(s.size(), header_size + K::payload_bytes(f));
        EXPECT_EQ(saved(F(f)), s) << "a copy saves to other bytes";
        for (const Via via : both_ways) {
            const F g = bb::testing::load_via<F>(s, via);
            EXPECT_TRUE(g == f) << name(via);
            EXPECT_EQ(saved(g), s) << "re-saving a loaded filter changes its bytes";
        }
        f.save(p);
        EXPECT_EQ(file_contents(p), s) << "a file holds exactly what save(ostream) writes";
        EXPECT_TRUE(F::load(p) == f);
        std::ifstream in(p, std::ios::binary);
        EXPECT_TRUE(F::load(in) == f);
        EXPECT_EQ(bb::file_kind(p), K::kind);
        EXPECT_EQ(bb::file_form(p), bb::FileForm::batchbloom);
        for (const bb::AnyFilter& any : {bb::load_any(p), bb::load_any(as_bytes(s))}) {
            ASSERT_TRUE(std::holds_alternative<F>(any)) << "variant index " << any.index();
            EXPECT_TRUE(std::get<F>(any) == f);
            EXPECT_EQ(bb::kind_of(any), K::kind);
        }
        EXPECT_TRUE(bb::load_exactly<F>(as_bytes(s)) == f);
    }
}

// The engine and the thread count are settings of the object, held the same way by every type
// (BulkSettings, the scalable and deletable filters' included): reported as set, kept by a copy, an assignment and a move, never part of the
// filter's value (== ignores them) nor of its file (a loaded filter has the defaults).
TYPED_TEST(FileProperties, EngineAndThreadsAreTheObjectsSettingsNotTheFiles) {
    using F = TypeParam;
    static_assert(std::is_base_of_v<bb::BulkSettings, F>);
    F f = Kind<F>::samples().front();
    EXPECT_EQ(f.backend(), bb::Backend::automatic);
    EXPECT_EQ(f.threads(), 0u);
    const F plain(f);
    f.set_backend(bb::Backend::scalar);
    f.set_threads(3);
    EXPECT_TRUE(f == plain);
    const auto has_them = [](const F& g) { return g.backend() == bb::Backend::scalar && g.threads() == 3u; };
    EXPECT_TRUE(has_them(f));
    F copy(f);
    EXPECT_TRUE(has_them(copy));
    F assigned = Kind<F>::samples().back();
    assigned = f;
    EXPECT_TRUE(has_them(assigned));
    const F moved(std::move(copy));
    EXPECT_TRUE(has_them(moved));
    F move_assigned = Kind<F>::samples().back();
    move_assigned = std::move(assigned);
    EXPECT_TRUE(has_them(move_assigned));
    std::istringstream in(saved(f), std::ios::binary);
    const F loaded = F::load(in);
    EXPECT_TRUE(loaded == f);
    EXPECT_EQ(loaded.backend(), bb::Backend::automatic);
    EXPECT_EQ(loaded.threads(), 0u);
}

// A loaded filter holds the keys it was saved with and takes more.
TYPED_TEST(FileProperties, ALoadedFilterHoldsItsKeysAndTakesMore) {
    using F = TypeParam;
    const auto keys = bb::testing::random_keys(300, 77, 0);
    const auto more = bb::testing::random_keys(300, 78, 0);
    F f = Kind<F>::samples().front();
    f.insert(keys);
    f.insert(std::string_view("a key"));
    for (const Via via : both_ways) {
        F g = bb::testing::load_via<F>(saved(f), via);
        EXPECT_EQ(g.count(keys), keys.size()) << name(via);
        EXPECT_TRUE(g.contains(std::string_view("a key"))) << name(via);
        g.insert(more);
        g.insert(std::string_view("another key"));
        EXPECT_EQ(g.count(more), more.size()) << name(via);
        EXPECT_EQ(g.count(keys), keys.size()) << name(via);
        EXPECT_TRUE(g.contains(std::string_view("another key"))) << name(via);
    }
}

// load(istream) reads exactly one filter, so several can follow each other in one stream.
TYPED_TEST(FileProperties, StreamLoadStopsAtTheEndOfTheFilter) {
    using F = TypeParam;
    const auto samples = Kind<F>::samples();
    ASSERT_GE(samples.size(), 2u);
    std::string all;
    for (const F& f : samples) all += saved(f);
    all += "tail";
    for (const Via via : both_ways) {
        bb::testing::OneWayBuf buf(all);
        std::istringstream seekable(all, std::ios::binary);
        std::istream one_way(&buf);
        std::istream& in = via == Via::seekable ? static_cast<std::istream&>(seekable) : one_way;
        for (const F& f : samples) EXPECT_TRUE(F::load(in) == f) << name(via);
        std::string rest;
        in >> rest;
        EXPECT_EQ(rest, "tail") << name(via);
    }
}

TYPED_TEST(FileProperties, EveryTruncationIsAFormatErrorSayingSo) {
    using F = TypeParam;
    const std::string good = this->good();
    const std::size_t payload = good.size() - header_size;
    std::vector<std::size_t> cuts;
    for (std::size_t len = 1; len <= std::min(header_size + 64, good.size() - 1); ++len) cuts.push_back(len);
    for (const std::size_t in_payload : {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65}, payload / 3,
                                         payload / 2, payload - 64, payload - 2, payload - 1})
        if (in_payload > 0 && in_payload < payload) cuts.push_back(header_size + in_payload);
    for (const Via via : both_ways) {
        EXPECT_TRUE(rejects<F>("", {"empty"}, via));
        for (const std::size_t len : cuts) {
            // A prefix shorter than the magic reads as a bad magic; any longer prefix is truncated.
            if (len < 8)
                EXPECT_TRUE(rejects<F>(good.substr(0, len), {"truncat", "magic"}, via)) << "length " << len;
            else
                EXPECT_TRUE(rejects<F>(good.substr(0, len), {"truncat"}, via)) << "length " << len;
        }
    }
}

// Both checksums see every bit: the magic and version are named before the header checksum.
TYPED_TEST(FileProperties, EveryBitFlipIsAFormatErrorSayingSo) {
    using F = TypeParam;
    const std::string good = this->good();
    std::vector<std::size_t> bytes;
    for (std::size_t at = 0; at < header_size; ++at) bytes.push_back(at);
    const std::size_t payload = good.size() - header_size;
    for (const std::size_t in_payload : {std::size_t{1}, std::size_t{63}, std::size_t{64}, payload / 2, payload - 1})
        bytes.push_back(header_size + in_payload);
    for (std::size_t at = header_size; at < good.size(); at += 97) bytes.push_back(at);
    for (const Via via : both_ways) {
        for (const std::size_t at : bytes) {
            for (unsigned bit = 0; bit < 8; ++bit) {
                std::string s = good;
                s[at] = static_cast<char>(s[at] ^ (1 << bit));
                const std::vector<const char*> words = at < 8    ? std::vector<const char*>{"magic"}
                                                       : at < 10 ? std::vector<const char*>{"version"}
                                                       : at < header_size
                                                           ? std::vector<const char*>{"header checksum"}
                                                           : std::vector<const char*>{"payload checksum"};
                EXPECT_TRUE(rejects<F>(s, words, via)) << "byte " << at << " bit " << bit;
            }
        }
    }
}

// From a path or from bytes (load_any, load_exactly) nothing may follow the filter; a stream
// load reads one filter and leaves the rest.
TYPED_TEST(FileProperties, TrailingBytesAreRejectedNamingTheFile) {
    using F = TypeParam;
    TempDir dir;
    const std::string good = this->good();
    const fs::path p = dir.path() / "trailing.bbf";
    for (const std::string& extra : {std::string(1, '\0'), std::string("x"), std::string(64, '\0'), good}) {
        write(p, good + extra);
        const std::string m = bb::testing::message_of<bb::FormatError>([&] { (void)F::load(p); });
        EXPECT_TRUE(mentions(m, {"trailing"})) << extra.size() << " bytes: " << m;
        EXPECT_TRUE(mentions(m, {p.string().c_str()})) << "the message should name the file: " << m;
        EXPECT_THROW((void)bb::load_any(p), bb::FormatError);
        EXPECT_THROW((void)bb::load_any(as_bytes(good + extra)), bb::FormatError);
        EXPECT_THROW((void)bb::load_exactly<F>(as_bytes(good + extra)), bb::FormatError);
        std::ifstream in(p, std::ios::binary);
        EXPECT_NO_THROW((void)F::load(in));
    }
}

// Every loader of another kind refuses this kind's file, naming the kind it holds.
TYPED_TEST(FileProperties, OtherKindsLoadersNameTheKindTheFileHolds) {
    using F = TypeParam;
    const std::string good = this->good();
    const std::string holds = "holds a " + this->kind_name() + " filter";
    auto refuse = [&]<class U>(std::type_identity<U>) {
        if constexpr (!std::is_same_v<U, F>) {
            for (const Via via : both_ways) {
                EXPECT_TRUE(rejects<U>(good, {holds.c_str()}, via)) << typeid(U).name();
            }
        }
    };
    [&]<class... U>(::testing::Types<U...>*) { (refuse(std::type_identity<U>{}), ...); }(static_cast<FileTypes*>(nullptr));
}

// A missing file, a directory and a path in a missing directory are Errors naming the path; a
// truncated or empty file is a FormatError naming the file; a save replaces a file whole, and a
// failed one leaves nothing behind.
TYPED_TEST(FileProperties, PathsAreNamedAndSavesAreWholeOrNothing) {
    using F = TypeParam;
    TempDir dir;
    const F f = Kind<F>::samples().front();
    const std::string good = saved(f);
    const fs::path missing = dir.path() / "no-such-file.bbf";
    EXPECT_TRUE(mentions(bb::testing::message_of<bb::Error>([&] { (void)F::load(missing); }), {missing.c_str()}));
    EXPECT_THROW((void)F::load(dir.path() / "missing-dir" / "x.bbf"), bb::Error);
    EXPECT_THROW((void)F::load(dir.path()), bb::Error);

    const fs::path cut = dir.path() / "cut.bbf";
    write(cut, good.substr(0, good.size() - 1));
    const std::string m = bb::testing::message_of<bb::FormatError>([&] { (void)F::load(cut); });
    EXPECT_TRUE(mentions(m, {"truncat"})) << m;
    EXPECT_TRUE(mentions(m, {cut.c_str()})) << m;
    write(cut, "");
    EXPECT_THROW((void)F::load(cut), bb::FormatError);
    fs::remove(cut);

    const fs::path in_missing_dir = dir.path() / "does-not-exist" / "f.bbf";
    EXPECT_TRUE(mentions(bb::testing::message_of<bb::Error>([&] { f.save(in_missing_dir); }), {in_missing_dir.c_str()}));
    EXPECT_FALSE(fs::exists(dir.path() / "does-not-exist"));

    const fs::path p = dir.path() / "filter.bbf";
    write(p, std::string(100000, 'o'));  // longer than the new content
    f.save(p);
    EXPECT_EQ(file_contents(p), good);
    EXPECT_TRUE(F::load(p) == f);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"filter.bbf"});

    fs::create_directory(dir.path() / "sub");
    EXPECT_THROW(f.save(dir.path() / "sub"), bb::Error);
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"filter.bbf", "sub"}));
    EXPECT_TRUE(fs::is_empty(dir.path() / "sub"));

    std::ostringstream failed;
    failed.setstate(std::ios::badbit);
    EXPECT_THROW(f.save(failed), bb::Error);
}

// Random damage with both checksums recomputed (the codec's reseal), so the loader must judge
// the damaged fields itself: it loads a filter or throws batchbloom::Error, never anything else.
TYPED_TEST(FileProperties, DamagedResealedFilesLoadOrThrowError) {
    using F = TypeParam;
    const std::string good = this->good();
    bb::testing::KeyGen g(static_cast<std::uint64_t>(Kind<F>::kind));
    std::size_t loaded = 0;
    for (int round = 0; round < 300; ++round) {
        std::string f = good;
        const unsigned flips = 1 + unsigned(g.next() % 3);
        for (unsigned i = 0; i < flips; ++i) {
            const std::uint64_t r = g.next();
            // Mostly the header and the first payload bytes (the scalable metadata), where the
            // parsing is; sometimes anywhere.
            const std::size_t at = r % 4 == 0 ? (r >> 8) % f.size() : (r >> 8) % std::min<std::size_t>(f.size(), 160);
            f[at] = static_cast<char>(f[at] ^ static_cast<char>(1u << ((r >> 40) % 8)));
        }
        if (g.next() % 8 == 0) f.resize(header_size + (g.next() % (f.size() - header_size)));
        bb::io::reseal(std::as_writable_bytes(std::span(f)));
        std::stringstream in(f);
        try {
            (void)F::load(in);
            ++loaded;
        } catch (const bb::Error&) {
        } catch (const std::exception& e) {
            ADD_FAILURE() << "round " << round << ": " << typeid(e).name() << ": " << e.what();
        }
    }
    EXPECT_LT(loaded, 300u);  // the damage was seen at least sometimes
}

// Files written by an earlier version still load, hold their keys, read their key kinds as not
// recorded, and save again to the same bytes.
TYPED_TEST(FileProperties, GoldenFilesLoadAndSaveToTheSameBytes) {
    using F = TypeParam;
    const std::string dir = std::string(BATCHBLOOM_TEST_DATA_DIR) + "/golden/";
    for (const Golden<F>& golden : Kind<F>::golden()) {
        SCOPED_TRACE(golden.file);
        const std::string path = dir + golden.file;
        const F f = F::load(path);
        golden.check(f);
        EXPECT_EQ(f.key_kinds(), bb::KeyKinds::not_recorded());
        for (std::uint64_t i = golden.ints_from; i < 200; ++i) EXPECT_TRUE(f.contains(i * 7919)) << i;
        for (int i = 0; golden.strings && i < 100; ++i) {
            EXPECT_TRUE(f.contains(std::string_view("key-" + std::to_string(i)))) << i;
        }
        EXPECT_EQ(saved(f), file_contents(path));
        EXPECT_EQ(bb::file_kind(path), Kind<F>::kind);
    }
}

}  // namespace

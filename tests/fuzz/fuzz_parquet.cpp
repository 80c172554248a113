// libFuzzer target for the Parquet reader: the Thrift compact footer parser, the Bloom filter
// header parser, and parquet::Reader on a whole file.
//
// Contract checked on every input:
//   * parse_file_metadata, SplitBlockFilter::deserialize and Reader either succeed or throw
//     batchbloom::Error (normally FormatError); any other exception, a crash or a sanitizer
//     report is a bug;
//   * a deserialized filter re-serializes to a header + bitset that deserializes back equal,
//     and finds values inserted into it;
//   * every Bloom filter the Reader returns for a column chunk passes the same checks.
//
// The input is tried three ways: as a footer, as a Bloom filter header + bitset, and as a file
// (written to a scratch file, since Reader reads files). Seeds: tests/data/tiny_*.parquet
// (run_fuzz.sh copies them into the corpus).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <unistd.h>

#include "batchbloom/parquet.hpp"

namespace {

namespace pq = batchbloom::parquet;

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "fuzz_parquet: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

template <class F>
void expect_error_or_success(const char* what, F&& f) {
    try {
        f();
    } catch (const batchbloom::Error&) {
    } catch (const std::exception& e) {
        fail(std::string(what) + " threw a non-batchbloom exception: " + e.what());
    } catch (...) {
        fail(std::string(what) + " threw a non-std exception");
    }
}

void check_filter(pq::SplitBlockFilter f) {
    const auto again = pq::SplitBlockFilter::deserialize(f.serialize());
    if (!(again == f)) fail("a filter does not survive serialize + deserialize");
    const std::int64_t v64 = 0x1234'5678'9ABC;
    const std::int32_t v32 = -77;
    f.insert(std::span<const std::int64_t>(&v64, 1));
    f.insert(std::span<const std::int32_t>(&v32, 1));
    if (!f.contains(v64) || !f.contains(v32)) fail("an inserted value is not found");
    (void)f.fill_ratio();
}

const std::filesystem::path& scratch_file() {
    static const std::filesystem::path p =
        std::filesystem::temp_directory_path() / ("fuzz_parquet_" + std::to_string(::getpid()) + ".parquet");
    return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);

    expect_error_or_success("parse_file_metadata", [&] { (void)pq::parse_file_metadata(input); });
    expect_error_or_success("SplitBlockFilter::deserialize", [&] {
        std::size_t used = 0;
        auto f = pq::SplitBlockFilter::deserialize(input, &used);
        if (used > size) fail("deserialize consumed more bytes than it was given");
        check_filter(std::move(f));
    });

    {
        std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
        if (!out.flush()) fail("cannot write the scratch file");
    }
    expect_error_or_success("Reader", [&] {
        const pq::Reader reader(scratch_file());
        const auto& groups = reader.metadata().row_groups;
        for (std::size_t rg = 0; rg < groups.size(); ++rg) {
            for (const auto& c : groups[rg].columns) {
                expect_error_or_success("Reader::bloom_filter", [&] {
                    if (auto f = reader.bloom_filter(rg, c.path)) check_filter(std::move(*f));
                });
            }
        }
    });
    return 0;
}

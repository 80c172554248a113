// libFuzzer target for the Parquet reader: the Thrift compact footer parser and rewriter, the
// Bloom filter header parser, parquet::Reader on a whole file, and the page decoder that
// parquet add reads column values with.
//
// Contract checked on every input:
//   * parse_file_metadata, rewrite_footer, SplitBlockFilter::deserialize, Reader and
//     hash_chunk_values either succeed or throw batchbloom::Error (normally FormatError); any
//     other exception, a crash or a sanitizer report is a bug;
//   * a footer that parses rewrites (with no change) to one that parses to the same row
//     groups and columns;
//   * a deserialized filter re-serializes to a header + bitset that deserializes back equal,
//     and finds values inserted into it;
//   * every Bloom filter the Reader returns for a column chunk passes the same checks.
//
// The input is tried four ways: as a footer, as a Bloom filter header + bitset, as a file
// (written to a scratch file, since Reader reads files), and as a file whose column chunks'
// pages are decoded in memory. Seeds: tests/data/tiny_*.parquet (run_fuzz.sh copies them into
// the corpus).
#include <unistd.h>

#include "batchbloom/parquet.hpp"
#include "fuzz_common.hpp"
#include "interop/parquet/chunk_filter.hpp"
#include "interop/parquet/column_values.hpp"
#include "interop/parquet/footer_rewrite.hpp"

namespace fuzz {

// The seeds are tests/data/tiny_*.parquet, which run_fuzz.sh copies into the corpus.
void write_seeds(const std::filesystem::path&) {}

namespace {

namespace pq = batchbloom::parquet;

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

void check_rewrite(std::span<const std::byte> footer) {
    pq::FileMetadata before;
    try {
        before = pq::parse_file_metadata(footer);
    } catch (const batchbloom::Error&) {
        return;
    }
    const auto after = pq::parse_file_metadata(pq::rewrite_footer(footer, {}));
    if (after.num_rows != before.num_rows || after.row_groups.size() != before.row_groups.size())
        fail("a rewritten footer parses differently");
    for (std::size_t g = 0; g < before.row_groups.size(); ++g) {
        const auto& a = after.row_groups[g].columns;
        const auto& b = before.row_groups[g].columns;
        if (a.size() != b.size()) fail("a rewritten footer has other columns");
        for (std::size_t c = 0; c < a.size(); ++c)
            if (a[c].path != b[c].path || a[c].bloom_filter_offset != b[c].bloom_filter_offset ||
                a[c].data_page_offset != b[c].data_page_offset)
                fail("a rewritten footer changed a column chunk");
    }
}

// What parquet add does to each column chunk, minus the writing.
void decode_chunks(std::span<const std::byte> file) {
    if (file.size() < 12) return;
    std::uint32_t n;
    std::memcpy(&n, file.data() + file.size() - 8, 4);
    if (n > file.size() - 12) return;
    const std::uint64_t data_end = file.size() - 8 - n;
    const auto meta = pq::parse_file_metadata(file.subspan(data_end, n));
    for (const auto& group : meta.row_groups) {
        for (const auto& c : group.columns) {
            // Chunks that claim more values than fit the fuzzer's memory limit are left out; a
            // small exact limit sends the larger ones through the estimating path too.
            if (c.num_values > (std::int64_t(1) << 20)) continue;
            succeeds("hash_chunk_values", [&] {
                pq::check_hashable(c);
                const std::uint64_t at = pq::pages_offset(c, data_end);
                pq::ChunkFilterBuilder builder(std::uint64_t(c.num_values), 0.01, std::nullopt, 4096);
                const auto values = pq::hash_chunk_values(file.subspan(at, std::size_t(c.total_compressed_size)), c, builder);
                const auto result = builder.finish();
                if (values > c.num_values) fail("more values than the chunk holds");
                if (result.exact && result.distinct > values) fail("more distinct values than values");
            });
        }
    }
}

}  // namespace

void fuzz_one(std::string_view bytes) {
    const auto input = as_bytes(bytes);
    const std::size_t size = bytes.size();

    succeeds("parse_file_metadata", [&] { (void)pq::parse_file_metadata(input); });
    succeeds("rewrite_footer", [&] { check_rewrite(input); });
    succeeds("decode_chunks", [&] { decode_chunks(input); });
    succeeds("SplitBlockFilter::deserialize", [&] {
        std::size_t used = 0;
        auto f = pq::SplitBlockFilter::deserialize(input, &used);
        if (used > size) fail("deserialize consumed more bytes than it was given");
        check_filter(std::move(f));
    });

    {
        std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(size));
        if (!out.flush()) fail("cannot write the scratch file");
    }
    succeeds("Reader", [&] {
        const pq::Reader reader(scratch_file());
        const auto& groups = reader.metadata().row_groups;
        for (std::size_t rg = 0; rg < groups.size(); ++rg) {
            for (const auto& c : groups[rg].columns) {
                succeeds("Reader::bloom_filter", [&] {
                    if (auto f = reader.bloom_filter(rg, c.path)) check_filter(std::move(*f));
                });
            }
        }
    });
}

}  // namespace fuzz

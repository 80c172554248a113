// The classic filter's two serialized forms.
//
// 1. batchbloom file: the common header (format/file_header.hpp; bytes in docs/format.md), whose
//    fields the classic kind reads as scheme, hash kind, seed, bits m and k, then the m bits as
//    64-bit words.
//
// 2. Spark's BloomFilter.writeTo (java.io.DataOutputStream, big-endian): int32 version (1 or
//    2), int32 k, version 2 only: int32 seed, int32 number of words, then the words as int64.
//
// Every field is checked before anything is allocated; Spark's words are read in bounded
// chunks, so a corrupt count cannot make the loader allocate more than the input really holds.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <istream>
#include <ostream>
#include <sstream>
#include <string>

#include "batchbloom/classic.hpp"
#include "batchbloom/atomic_file.hpp"
#include "batchbloom/file_kind.hpp"
#include "filters/storage.hpp"
#include "format/file_io.hpp"

namespace batchbloom {

namespace {

using namespace io;

// Spark's n big-endian words into `words`. A stream that says how much it holds must hold them
// all, and they are read in place; from one that cannot say (a pipe), they arrive in a vector
// that grows only as data does, so a corrupt count cannot make the loader allocate more than
// the input holds.
FormatError truncated_spark(std::uint64_t got, std::uint64_t words) {
    return FormatError("truncated payload: " + std::to_string(got) + " of " + std::to_string(words * 8) + " bytes");
}

/// The `n` words of a Spark filter from `in` as it stores them (big-endian), where its size is
/// unknown (a pipe): read in chunks as they arrive, so a word count the stream does not hold
/// ends as "truncated" rather than as an allocation of what it claims.
std::vector<std::uint64_t> read_spark_words_as_they_come(std::istream& in, std::uint64_t n) {
    constexpr std::uint64_t chunk = std::uint64_t(1) << 17;  // 1 MiB of words
    std::vector<std::uint64_t> read;
    while (read.size() < n) {
        const std::size_t have = read.size();
        const auto want = static_cast<std::size_t>(std::min(n - have, chunk));
        read.resize(have + want);
        if (const std::size_t got = read_up_to(in, read.data() + have, want * 8); got != want * 8)
            throw truncated_spark(have * 8 + got, n);
    }
    return read;
}

// Words past m must be zero (the bit operations rely on it).
void check_tail(const ClassicFilter& f) {
    const std::uint64_t bits = f.params().bits;
    if (bits % 64 != 0 && (f.words().back() >> (bits % 64)) != 0)
        throw FormatError("corrupt payload: bits set past the filter's " + std::to_string(bits) + " bits");
}

// ---- batchbloom file ----------------------------------------------------------------------------

ClassicFilter load_batchbloom(std::istream& in) {
    const FileHeader h = read_header(in, FileKind::classic);
    const ClassicParams p = h.classic_params();
    check_payload_length(h, p.bytes(), std::to_string(p.bits) + " bits");
    PayloadReader payload(in, h);
    ClassicFilter f(p, h.classic_hashing());
    f.add_key_kinds(h.key_kinds);
    payload.read(std::as_writable_bytes(f.mutable_words()));
    payload.finish();
    check_tail(f);
    return f;
}

// ---- Spark ------------------------------------------------------------------------------------

std::int32_t read_be32(std::istream& in, const char* field) {
    std::array<unsigned char, 4> b{};
    if (read_up_to(in, b.data(), 4) != 4) throw FormatError(std::string("truncated Spark filter: no ") + field);
    return static_cast<std::int32_t>(std::uint32_t(b[0]) << 24 | std::uint32_t(b[1]) << 16 |
                                     std::uint32_t(b[2]) << 8 | std::uint32_t(b[3]));
}

void put_be32(std::string& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

// Spark's fields before the words: version, k, (version 2) seed, number of words.
std::string spark_prefix(const ClassicParams& params, const ClassicHashing& hashing, std::size_t words) {
    if (hashing.scheme == ClassicScheme::double_hashing)
        throw Error("only spark_v1 / spark_v2 filters have Spark's serialized form (this one is double_hashing)");
    std::string out;
    put_be32(out, hashing.scheme == ClassicScheme::spark_v1 ? 1 : 2);
    put_be32(out, params.k);
    if (hashing.scheme == ClassicScheme::spark_v2) put_be32(out, static_cast<std::uint32_t>(hashing.seed));
    put_be32(out, static_cast<std::uint32_t>(words));
    return out;
}

// The words big-endian, as Spark's DataOutputStream writes them, into `dst` (8 bytes a word).
void put_be64(std::span<const std::uint64_t> words, std::byte* dst) {
    for (const std::uint64_t w : words) {
        const std::uint64_t be = __builtin_bswap64(w);
        std::memcpy(dst, &be, 8);
        dst += 8;
    }
}

}  // namespace

void ClassicFilter::save(std::ostream& out) const {
    if (words_.empty()) detail::throw_moved_from("save");
    const std::span<const std::byte> payload[] = {std::as_bytes(words())};
    io::write_filter(out, io::FileHeader::classic(params_, hashing_, key_kinds_), payload);
}

void ClassicFilter::save(const std::filesystem::path& path) const {
    if (words_.empty()) detail::throw_moved_from("save");  // before the path is touched
    write_file(path, [this](std::ostream& out) { save(out); });
}

ClassicFilter ClassicFilter::load(std::istream& in) { return io::load_stream<ClassicFilter>(in, load_batchbloom); }

ClassicFilter ClassicFilter::load(const std::filesystem::path& path) {
    return io::load_file<ClassicFilter>(path, load_batchbloom);
}

std::vector<std::byte> ClassicFilter::to_spark_bytes() const {
    if (words_.empty()) detail::throw_moved_from("to_spark_bytes");
    const std::string prefix = spark_prefix(params_, hashing_, words().size());
    std::vector<std::byte> bytes(prefix.size() + params_.bytes());
    std::memcpy(bytes.data(), prefix.data(), prefix.size());
    put_be64(words(), bytes.data() + prefix.size());
    return bytes;
}

void ClassicFilter::write_spark(std::ostream& out) const {
    if (words_.empty()) detail::throw_moved_from("write_spark");
    const std::string prefix = spark_prefix(params_, hashing_, words().size());
    out.write(prefix.data(), static_cast<std::streamsize>(prefix.size()));
    // A chunk at a time: the byte-swapped copy never exists whole (a filter may be gigabytes).
    std::array<std::byte, std::size_t(1) << 16> chunk;
    for (std::size_t i = 0; i < words().size() && out; i += chunk.size() / 8) {
        const auto piece = words().subspan(i, std::min(chunk.size() / 8, words().size() - i));
        put_be64(piece, chunk.data());
        out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(piece.size() * 8));
    }
    if (!out) throw Error("cannot write the Spark filter: the output stream failed");
}

ClassicFilter ClassicFilter::read_spark(std::istream& in) {
    const std::int32_t version = read_be32(in, "version");
    if (version != 1 && version != 2)
        throw FormatError("not a Spark Bloom filter: version " + std::to_string(version) + " (supported: 1, 2)");
    const std::int32_t k = read_be32(in, "hash function count");
    if (k < 1 || k > std::int32_t(ClassicParams::max_k))
        throw FormatError("Spark filter with " + std::to_string(k) + " hash functions (supported: 1.." +
                          std::to_string(ClassicParams::max_k) + ")");
    const std::int32_t seed = version == 2 ? read_be32(in, "seed") : 0;
    const std::int32_t words = read_be32(in, "word count");
    if (words < 1) throw FormatError("Spark filter with " + std::to_string(words) + " words");
    const ClassicParams p{std::uint64_t(words) * 64, static_cast<unsigned>(k)};
    const ClassicHashing h{version == 1 ? ClassicScheme::spark_v1 : ClassicScheme::spark_v2, HashKind::xxh3,
                           static_cast<std::uint32_t>(seed)};
    // The stream must hold the words before the filter is allocated for them: read in place
    // where its size is known, else as they arrive (a pipe).
    const std::uint64_t n = std::uint64_t(words);
    const std::int64_t left = io::remaining(in);
    if (left >= 0 && std::uint64_t(left) < n * 8) throw truncated_spark(std::uint64_t(left), n);
    io::check_load_limit(n * 8);
    std::vector<std::uint64_t> arrived;
    if (left < 0) arrived = read_spark_words_as_they_come(in, n);
    ClassicFilter f(p, h);
    const auto dst = f.mutable_words();  // m = 64 x words: no bits past m
    if (left < 0) {
        std::copy(arrived.begin(), arrived.end(), dst.begin());
    } else if (const std::size_t got = read_up_to(in, dst.data(), n * 8); got != n * 8) {
        throw truncated_spark(got, n);
    }
    for (auto& w : dst) w = __builtin_bswap64(w);
    f.add_key_kinds(KeyKinds::not_recorded());  // Spark's form has no place for them
    return f;
}

ClassicFilter ClassicFilter::from_spark_bytes(std::span<const std::byte> bytes, const KeyKinds& kinds) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    auto f = read_spark(in);
    io::expect_end(in);
    f.key_kinds_ = kinds;
    return f;
}

bool is_classic_filter_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    HeaderBytes b{};
    const Sniffed s = sniff({b.data(), in ? read_up_to(in, b.data(), b.size()) : 0});
    return s.form == FileForm::spark || s.kind == static_cast<std::uint8_t>(FileKind::classic);
}

ClassicFilter load_classic_filter_file(const std::filesystem::path& path) {
    if (file_form(path) != FileForm::spark) return ClassicFilter::load(path);
    return io::load_file<ClassicFilter>(path, [](std::istream& in) { return ClassicFilter::read_spark(in); });
}

}  // namespace batchbloom

// The classic filter's two serialized forms.
//
// 1. batchbloom file (format version 1, FileKind::classic = 6), little-endian, 64-byte header:
//    the family header of src/format/family_file.hpp with the classic filter's own fields
//
//   offset size field
//        0    8 magic "BATCHBLM"
//        8    2 format version (1)
//       10    1 filter kind (6 = classic Bloom filter)
//       11    1 scheme (ClassicScheme)
//       12    1 hash kind (HashKind; double_hashing only, else 0)
//       13    1 reserved, zero
//       14    1 key kinds (0: not recorded; else 0x80 | 1 integers | 2 byte strings)
//       15    1 reserved, zero
//       16    8 seed
//       24    8 bits (m)
//       32    8 payload length in bytes (= ceil(m / 64) * 8)
//       40    8 XXH3-64 of the payload
//       48    4 k
//       52    4 reserved, zero
//       56    8 XXH3-64 of bytes 0..55
//       64      payload: the 64-bit words
//
// 2. Spark's BloomFilter.writeTo (java.io.DataOutputStream, big-endian): int32 version (1 or
//    2), int32 k, version 2 only: int32 seed, int32 number of words, then the words as int64.
//
// Every field is checked before anything is allocated, and words are read in bounded chunks,
// so a corrupt length cannot make the loader allocate more than the input really holds.
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
#include "format/family_file.hpp"
#include "format/header_bytes.hpp"

namespace batchbloom {

namespace {

using namespace io;  // the header layout shared by every file kind
constexpr auto kind_classic = static_cast<std::uint8_t>(FileKind::classic);

// n words, byte-swapped if big-endian; the vector grows only as data arrives.
std::vector<std::uint64_t> read_words(std::istream& in, std::uint64_t n, bool big_endian) {
    constexpr std::uint64_t chunk = std::uint64_t(1) << 17;  // 1 MiB of words
    std::vector<std::uint64_t> words;
    while (words.size() < n) {
        const std::size_t have = words.size();
        const auto want = static_cast<std::size_t>(std::min(n - have, chunk));
        words.resize(have + want);
        const std::size_t got = read_up_to(in, words.data() + have, want * 8);
        if (got != want * 8)
            throw FormatError("truncated payload: " + std::to_string(have * 8 + got) + " of " + std::to_string(n * 8) +
                              " bytes");
    }
    if (big_endian)
        for (auto& w : words) w = __builtin_bswap64(w);
    return words;
}

ClassicFilter make_filled(const ClassicParams& p, const ClassicHashing& h, const std::vector<std::uint64_t>& words) {
    ClassicFilter f(p, h);
    if (p.bits % 64 != 0 && (words.back() >> (p.bits % 64)) != 0)
        throw FormatError("corrupt payload: bits set past the filter's " + std::to_string(p.bits) + " bits");
    std::copy(words.begin(), words.end(), f.mutable_words().begin());
    return f;
}

// ---- batchbloom file ----------------------------------------------------------------------------

Header make_header(const ClassicFilter& f) {
    const auto& p = f.params();
    const auto& h = f.hashing();
    Header hd{};
    std::memcpy(hd.data(), magic.data(), magic.size());
    put<std::uint16_t>(hd, 8, format_version);
    put<std::uint8_t>(hd, 10, kind_classic);
    put<std::uint8_t>(hd, 11, static_cast<std::uint8_t>(h.scheme));
    put<std::uint8_t>(hd, 12, h.scheme == ClassicScheme::double_hashing ? static_cast<std::uint8_t>(h.kind) : 0);
    put<std::uint8_t>(hd, key_kinds_offset, encode_key_kinds(f.key_kinds()));
    put<std::uint64_t>(hd, 16, h.seed);
    put<std::uint64_t>(hd, 24, p.bits);
    put<std::uint64_t>(hd, 32, p.bytes());
    put<std::uint64_t>(hd, 40, xxh3_64(f.words().data(), p.bytes(), 0));
    put<std::uint32_t>(hd, 48, p.k);
    put<std::uint64_t>(hd, 56, xxh3_64(hd.data(), 56, 0));
    return hd;
}

ClassicFilter load_batchbloom(std::istream& in) {
    Header hd{};
    check_header(hd, read_up_to(in, hd.data(), header_size));
    if (const auto kind = get<std::uint8_t>(hd, 10); kind != kind_classic)
        throw FormatError("filter kind " + std::to_string(kind) + " is not a classic Bloom filter (kind 6)");
    if (get<std::uint8_t>(hd, 13) != 0 || get<std::uint8_t>(hd, 15) != 0 || get<std::uint32_t>(hd, 52) != 0)
        throw FormatError("corrupt header: reserved fields are not zero");
    const ClassicParams p{get<std::uint64_t>(hd, 24), get<std::uint32_t>(hd, 48)};
    ClassicHashing h{static_cast<ClassicScheme>(get<std::uint8_t>(hd, 11)),
                     static_cast<HashKind>(get<std::uint8_t>(hd, 12)), get<std::uint64_t>(hd, 16)};
    if (h.scheme != ClassicScheme::double_hashing) {
        if (get<std::uint8_t>(hd, 12) != 0) throw FormatError("corrupt header: hash kind set for a Spark scheme");
        h.kind = HashKind::xxh3;
    }
    try {
        validate(h, p);
    } catch (const Error& e) {
        throw FormatError(std::string("invalid header: ") + e.what());
    }
    if (get<std::uint64_t>(hd, 32) != p.bytes())
        throw FormatError("corrupt header: payload length " + std::to_string(get<std::uint64_t>(hd, 32)) +
                          " does not match " + std::to_string(p.bits) + " bits");
    const KeyKinds kinds = decode_key_kinds(get<std::uint8_t>(hd, key_kinds_offset));
    const auto words = read_words(in, p.words(), false);
    if (xxh3_64(words.data(), p.bytes(), 0) != get<std::uint64_t>(hd, 40))
        throw FormatError("corrupt payload: payload checksum mismatch");
    ClassicFilter f = make_filled(p, h, words);
    f.add_key_kinds(kinds);
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

}  // namespace

void ClassicFilter::save(std::ostream& out) const {
    if (words_.empty()) detail::throw_moved_from("save");
    const Header hd = make_header(*this);
    out.write(reinterpret_cast<const char*>(hd.data()), header_size);
    out.write(reinterpret_cast<const char*>(words_.data()), static_cast<std::streamsize>(params_.bytes()));
    if (!out) throw Error("cannot write the filter: the output stream failed");
}

void ClassicFilter::save(const std::filesystem::path& path) const {
    if (words_.empty()) detail::throw_moved_from("save");  // before the path is touched
    write_file(path, [this](std::ostream& out) { save(out); });
}

ClassicFilter ClassicFilter::load(std::istream& in) { return load_batchbloom(in); }

ClassicFilter ClassicFilter::load(const std::filesystem::path& path) {
    return detail::load_family_file<ClassicFilter>(path, [](std::istream& in) { return load_batchbloom(in); });
}

std::vector<std::byte> ClassicFilter::to_spark_bytes() const {
    if (words_.empty()) detail::throw_moved_from("to_spark_bytes");
    if (hashing_.scheme == ClassicScheme::double_hashing)
        throw Error("only spark_v1 / spark_v2 filters have Spark's serialized form (this one is double_hashing)");
    std::string out;
    put_be32(out, hashing_.scheme == ClassicScheme::spark_v1 ? 1 : 2);
    put_be32(out, params_.k);
    if (hashing_.scheme == ClassicScheme::spark_v2) put_be32(out, static_cast<std::uint32_t>(hashing_.seed));
    put_be32(out, static_cast<std::uint32_t>(words_.size()));
    std::vector<std::byte> bytes(out.size() + params_.bytes());
    std::memcpy(bytes.data(), out.data(), out.size());
    for (std::size_t i = 0; i < words_.size(); ++i) {
        const std::uint64_t be = __builtin_bswap64(words_[i]);
        std::memcpy(bytes.data() + out.size() + 8 * i, &be, 8);
    }
    return bytes;
}

void ClassicFilter::write_spark(std::ostream& out) const {
    const auto bytes = to_spark_bytes();
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
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
    ClassicFilter f = make_filled(p, h, read_words(in, std::uint64_t(words), true));
    f.add_key_kinds(KeyKinds::not_recorded());  // Spark's form has no place for them
    return f;
}

ClassicFilter ClassicFilter::from_spark_bytes(std::span<const std::byte> bytes) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    auto f = read_spark(in);
    detail::expect_end(in);
    return f;
}

bool is_classic_filter_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::array<unsigned char, 11> b{};
    const std::size_t got = in ? read_up_to(in, b.data(), b.size()) : 0;
    if (got >= 4 && is_spark_version(b.data())) return true;
    return got == b.size() && std::memcmp(b.data(), magic.data(), magic.size()) == 0 && b[10] == kind_classic;
}

ClassicFilter load_classic_filter_file(const std::filesystem::path& path) {
    std::array<unsigned char, 4> b{};
    {
        auto in = detail::open_for_load(path);
        if (read_up_to(in, b.data(), 4) != 4 || !is_spark_version(b.data())) return ClassicFilter::load(path);
    }
    return detail::load_family_file<ClassicFilter>(path, [](std::istream& in) { return ClassicFilter::read_spark(in); });
}

}  // namespace batchbloom

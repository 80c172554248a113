// Parquet split-block Bloom filters: value hashing and the BloomFilterHeader (their sizing,
// optimal_bytes, is with every filter type's in core/params.cpp).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "batchbloom/parquet.hpp"
#include "filters/key_forms_impl.hpp"
#include "interop/parquet/bloom_header.hpp"
#include "interop/parquet/thrift_compact.hpp"
#include "interop/parquet/thrift_ids.hpp"

// xxHash is compiled into this translation unit only (as in hash.cpp), so the installed library
// has no link-time dependency on libxxhash.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace batchbloom::parquet {

namespace {

template <class T>
std::uint64_t hash_plain(T value) noexcept {
    // PLAIN encoding of a fixed-width value is its little-endian bytes, which is the in-memory
    // representation on the little-endian targets batchbloom supports (config.hpp).
    unsigned char le[sizeof(T)];
    std::memcpy(le, &value, sizeof(T));
    return XXH64(le, sizeof(T), 0);
}

Params sbbf_params(std::uint32_t bytes) {
    if (bytes < min_bitset_bytes || bytes > max_bitset_bytes || bytes % block_bytes != 0)
        throw Error("Parquet Bloom filter size must be a multiple of 32 bytes in [32, 134217728]; got " +
                    std::to_string(bytes));
    return Params::make(Shape::split256, bytes / block_bytes, 8);
}

// Hashing a batch in chunks keeps the temporary hash buffer small and cache-resident.
constexpr std::size_t chunk_values = 4096;

// The BloomFilterHeader's three union fields each hold one empty struct (BLOCK, XXHASH,
// UNCOMPRESSED); `name` and the member names are for messages.
void read_union_member(thrift::CompactReader& r, const char* name, const char* expected) {
    r.begin_struct();
    thrift::Field f;
    bool found = false;
    while (r.next_field(f)) {
        if (f.id == ids::bloom_filter_header::only_member && f.type == thrift::Type::structure) {
            found = true;
            r.skip(f.type);
        } else {
            r.fail(std::string("unsupported Bloom filter ") + name + " (field " + std::to_string(f.id) +
                   "; only " + expected + " is defined)");
        }
    }
    if (!found) r.fail(std::string("Bloom filter ") + name + " is empty");
}

}  // namespace

std::uint64_t hash_value(std::int32_t value) noexcept { return hash_plain(value); }
std::uint64_t hash_value(std::int64_t value) noexcept { return hash_plain(value); }
std::uint64_t hash_value(float value) noexcept { return hash_plain(value); }
std::uint64_t hash_value(double value) noexcept { return hash_plain(value); }
std::uint64_t hash_value(std::string_view bytes) noexcept { return XXH64(bytes.data(), bytes.size(), 0); }

std::string_view to_string(Codec codec) {
    switch (codec) {
        case Codec::uncompressed: return "UNCOMPRESSED";
        case Codec::snappy: return "SNAPPY";
        case Codec::gzip: return "GZIP";
        case Codec::lzo: return "LZO";
        case Codec::brotli: return "BROTLI";
        case Codec::lz4: return "LZ4";
        case Codec::zstd: return "ZSTD";
        case Codec::lz4_raw: return "LZ4_RAW";
    }
    return "unknown";
}

std::string_view to_string(PhysicalType type) {
    switch (type) {
        case PhysicalType::boolean: return "BOOLEAN";
        case PhysicalType::int32: return "INT32";
        case PhysicalType::int64: return "INT64";
        case PhysicalType::int96: return "INT96";
        case PhysicalType::float32: return "FLOAT";
        case PhysicalType::float64: return "DOUBLE";
        case PhysicalType::byte_array: return "BYTE_ARRAY";
        case PhysicalType::fixed_len_byte_array: return "FIXED_LEN_BYTE_ARRAY";
    }
    return "unknown";
}

SplitBlockFilter::SplitBlockFilter(std::uint32_t bytes, Backend backend)
    : filter_(sbbf_params(bytes), Hashing{}, backend) {}

SplitBlockFilter SplitBlockFilter::for_ndv(std::uint64_t ndv, double fpp) {
    return SplitBlockFilter(optimal_bytes(ndv, fpp));
}

SplitBlockFilter SplitBlockFilter::from_bitset(std::span<const std::byte> bitset) {
    if (bitset.size() < min_bitset_bytes || bitset.size() > max_bitset_bytes || bitset.size() % block_bytes != 0)
        throw FormatError("Parquet Bloom filter bitset of " + std::to_string(bitset.size()) +
                          " bytes is not a multiple of 32 bytes in [32, 134217728]");
    SplitBlockFilter f(static_cast<std::uint32_t>(bitset.size()));
    std::memcpy(f.filter_.mutable_bytes().data(), bitset.data(), bitset.size());
    return f;
}

BloomHeader read_bloom_header(std::span<const std::byte> data) {
    namespace id = ids::bloom_filter_header;
    thrift::CompactReader r(data, "Parquet Bloom filter header");
    std::optional<std::int32_t> num_bytes;
    bool algorithm = false, hash = false, compression = false;
    r.begin_struct();
    thrift::Field f;
    while (r.next_field(f)) {
        const bool is_struct = f.type == thrift::Type::structure;
        if (f.id == id::num_bytes) {
            num_bytes = r.read_i32(f.type);
        } else if (f.id == id::algorithm && is_struct) {
            read_union_member(r, "algorithm", "BLOCK");
            algorithm = true;
        } else if (f.id == id::hash && is_struct) {
            read_union_member(r, "hash", "XXHASH");
            hash = true;
        } else if (f.id == id::compression && is_struct) {
            read_union_member(r, "compression", "UNCOMPRESSED");
            compression = true;
        } else if (f.id >= id::num_bytes && f.id <= id::compression) {
            r.fail("field " + std::to_string(f.id) + " has the wrong type");
        } else {
            r.skip(f.type);
        }
    }
    if (!num_bytes || !algorithm || !hash || !compression)
        r.fail("missing a required field (numBytes, algorithm, hash, compression)");
    if (*num_bytes < std::int32_t(min_bitset_bytes) || std::uint32_t(*num_bytes) > max_bitset_bytes ||
        *num_bytes % std::int32_t(block_bytes) != 0)
        r.fail("numBytes " + std::to_string(*num_bytes) + " is not a multiple of 32 in [32, 134217728]");
    return {static_cast<std::uint32_t>(*num_bytes), r.position()};
}

SplitBlockFilter SplitBlockFilter::deserialize(std::span<const std::byte> data, std::size_t* consumed) {
    const BloomHeader h = read_bloom_header(data);
    if (data.size() - h.header_bytes < h.num_bytes)
        throw FormatError("Parquet Bloom filter: bitset of " + std::to_string(h.num_bytes) + " bytes is truncated (" +
                          std::to_string(data.size() - h.header_bytes) + " bytes follow the header)");
    if (consumed != nullptr) *consumed = h.header_bytes + h.num_bytes;
    return from_bitset(data.subspan(h.header_bytes, h.num_bytes));
}

std::vector<std::byte> SplitBlockFilter::serialize() const {
    namespace id = ids::bloom_filter_header;
    std::vector<std::byte> out;
    out.reserve(16 + bytes());
    thrift::CompactWriter w(out);
    w.begin_struct();
    w.i32_field(id::num_bytes, static_cast<std::int32_t>(bytes()));
    for (const std::int16_t union_field : {id::algorithm, id::hash, id::compression}) {
        w.field(union_field, thrift::Type::structure);
        w.begin_struct();
        w.field(id::only_member, thrift::Type::structure);  // BLOCK, XXHASH, UNCOMPRESSED: empty structs
        w.begin_struct();
        w.end_struct();
        w.end_struct();
    }
    w.end_struct();
    const auto bits = bitset();
    out.insert(out.end(), bits.begin(), bits.end());
    return out;
}

SplitBlockFilter SplitBlockFilter::fold(std::uint32_t to_bytes) const {
    if (!std::has_single_bit(bytes()) || !std::has_single_bit(to_bytes) || to_bytes < min_bitset_bytes ||
        to_bytes > bytes())
        throw Error("cannot fold a " + std::to_string(bytes()) + "-byte Parquet Bloom filter to " +
                    std::to_string(to_bytes) + " bytes (both must be powers of two, the target no larger)");
    const auto from = bitset();
    SplitBlockFilter out(to_bytes);
    auto to = out.filter_.mutable_bytes();
    const std::size_t ratio = bytes() / to_bytes;  // source blocks per target block
    for (std::size_t b = 0; b < to_bytes / block_bytes; ++b) {
        for (std::size_t w = 0; w < 8; ++w) {
            std::uint32_t word = 0;
            for (std::size_t r = 0; r < ratio; ++r) {
                std::uint32_t part;
                std::memcpy(&part, from.data() + (b * ratio + r) * block_bytes + 4 * w, 4);
                word |= part;
            }
            std::memcpy(to.data() + b * block_bytes + 4 * w, &word, 4);
        }
    }
    return out;
}

double SplitBlockFilter::predicted_fpr() const noexcept {
    const auto bits = bitset();
    const std::size_t blocks = bits.size() / block_bytes;
    double sum = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        double p = 1;
        for (std::size_t w = 0; w < 8; ++w) {
            std::uint32_t word;
            std::memcpy(&word, bits.data() + b * block_bytes + 4 * w, 4);
            p *= std::popcount(word) / 32.0;
        }
        sum += p;
    }
    return blocks == 0 ? 0.0 : sum / double(blocks);
}

template <class T>
void SplitBlockFilter::insert_values(std::span<const T> values) {
    std::array<std::uint64_t, chunk_values> hashes;
    for (std::size_t at = 0; at < values.size(); at += chunk_values) {
        const std::size_t n = std::min(chunk_values, values.size() - at);
        for (std::size_t i = 0; i < n; ++i) hashes[i] = hash_value(values[at + i]);
        filter_.insert_hashes(std::span(hashes.data(), n));
    }
}

template <class T>
void SplitBlockFilter::contains_values(std::span<const T> values, std::span<std::uint8_t> out) const {
    if (out.size() != values.size())
        throw Error("contains: output size " + std::to_string(out.size()) + " != value count " +
                    std::to_string(values.size()));
    std::array<std::uint64_t, chunk_values> hashes;
    for (std::size_t at = 0; at < values.size(); at += chunk_values) {
        const std::size_t n = std::min(chunk_values, values.size() - at);
        for (std::size_t i = 0; i < n; ++i) hashes[i] = hash_value(values[at + i]);
        filter_.contains_hashes(std::span(hashes.data(), n), out.subspan(at, n));
    }
}

void SplitBlockFilter::insert(std::span<const std::int32_t> v) { insert_values(v); }
void SplitBlockFilter::insert(std::span<const std::int64_t> v) { insert_values(v); }
void SplitBlockFilter::insert(std::span<const float> v) { insert_values(v); }
void SplitBlockFilter::insert(std::span<const double> v) { insert_values(v); }
void SplitBlockFilter::insert(std::span<const std::string_view> v) { insert_values(v); }
void SplitBlockFilter::contains(std::span<const std::int32_t> v, std::span<std::uint8_t> out) const {
    contains_values(v, out);
}
void SplitBlockFilter::contains(std::span<const std::int64_t> v, std::span<std::uint8_t> out) const {
    contains_values(v, out);
}
void SplitBlockFilter::contains(std::span<const float> v, std::span<std::uint8_t> out) const {
    contains_values(v, out);
}
void SplitBlockFilter::contains(std::span<const double> v, std::span<std::uint8_t> out) const {
    contains_values(v, out);
}
void SplitBlockFilter::contains(std::span<const std::string_view> v, std::span<std::uint8_t> out) const {
    contains_values(v, out);
}

}  // namespace batchbloom::parquet

// The hash forms (key_forms.hpp): its Filter's, for hashes only (no key forms exist).
template <>
struct batchbloom::detail::Forms<batchbloom::parquet::SplitBlockFilter> {
    using Sbbf = parquet::SplitBlockFilter;
    template <class Key, bool Hashed>
    static void insert_keys(Sbbf& f, std::span<const Key> hashes) {
        static_assert(Hashed);
        f.filter_.insert_hashes(hashes);
    }
    template <class Key, bool Hashed>
    static void contains_keys(const Sbbf& f, std::span<const Key> hashes, std::span<std::uint8_t> out) {
        static_assert(Hashed);
        f.filter_.contains_hashes(hashes, out);
    }
    template <class Key, bool Hashed>
    static std::size_t count_keys(const Sbbf& f, std::span<const Key> hashes) {
        static_assert(Hashed);
        return f.filter_.count_hashes(hashes);
    }
    static void insert_one_hash(Sbbf& f, std::uint64_t hash) { f.filter_.insert_hash(hash); }
    static bool contains_one_hash(const Sbbf& f, std::uint64_t hash) { return f.filter_.contains_hash(hash); }
};

template class batchbloom::HashForms<batchbloom::parquet::SplitBlockFilter>;

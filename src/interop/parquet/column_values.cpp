// A column chunk's pages, decoded only as far as a Bloom filter needs: each non-null value's
// PLAIN bytes, hashed. Dictionary-encoded pages hash each dictionary entry once and mark the
// entries their indices use; null and repetition levels are only counted.
#include "interop/parquet/column_values.hpp"

#include <algorithm>
#include <bit>
#include <memory>
#include <string>

#include "interop/parquet/codecs.hpp"
#include "interop/parquet/encodings.hpp"
#include "interop/parquet/thrift_compact.hpp"
#include "interop/parquet/thrift_ids.hpp"

// xxHash is compiled into this translation unit (as in sbbf.cpp), so the installed library has
// no link-time dependency on libxxhash.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace batchbloom::parquet {

namespace {

using ids::Encoding;
using ids::PageType;

// Real pages are about a megabyte; a page header may ask for more only in proportion to its
// compressed size (no codec Parquet uses expands data more than about 1000-fold in practice).
constexpr std::uint64_t max_page_floor = std::uint64_t(64) << 20;
constexpr std::uint64_t max_expansion = 1100;

// Levels are counted in 32-bit RLE values; no schema nests anywhere near this deep.
constexpr std::int32_t max_level = 1000;

struct PageHeader {
    PageType type = PageType::data_page;
    std::int32_t uncompressed = -1, compressed = -1;
    bool has_data = false, has_dictionary = false, has_v2 = false;
    std::int32_t num_values = -1, num_nulls = 0;
    Encoding encoding = Encoding::plain;
    Encoding definition_encoding = Encoding::rle, repetition_encoding = Encoding::rle;
    std::int32_t definition_bytes = 0, repetition_bytes = 0;  // v2: level sections, uncompressed
    bool is_compressed = true;                                // v2: the values section
};

PageHeader read_page_header(thrift::CompactReader& r) {
    using thrift::Field;
    using thrift::Type;
    PageHeader h;
    const auto encoding = [&](Type t) { return static_cast<Encoding>(r.read_i32(t)); };
    r.begin_struct();
    Field f;
    while (r.next_field(f)) {
        namespace ph = ids::page_header;
        if (f.id == ph::type) {
            h.type = static_cast<PageType>(r.read_i32(f.type));
        } else if (f.id == ph::uncompressed_page_size) {
            h.uncompressed = r.read_i32(f.type);
        } else if (f.id == ph::compressed_page_size) {
            h.compressed = r.read_i32(f.type);
        } else if (f.id == ph::data_page_header && f.type == Type::structure) {
            namespace id = ids::data_page_header;
            h.has_data = true;
            r.begin_struct();
            while (r.next_field(f)) {
                if (f.id == id::num_values) h.num_values = r.read_i32(f.type);
                else if (f.id == id::encoding) h.encoding = encoding(f.type);
                else if (f.id == id::definition_level_encoding) h.definition_encoding = encoding(f.type);
                else if (f.id == id::repetition_level_encoding) h.repetition_encoding = encoding(f.type);
                else r.skip(f.type);
            }
        } else if (f.id == ph::dictionary_page_header && f.type == Type::structure) {
            namespace id = ids::dictionary_page_header;
            h.has_dictionary = true;
            r.begin_struct();
            while (r.next_field(f)) {
                if (f.id == id::num_values) h.num_values = r.read_i32(f.type);
                else if (f.id == id::encoding) h.encoding = encoding(f.type);
                else r.skip(f.type);
            }
        } else if (f.id == ph::data_page_header_v2 && f.type == Type::structure) {
            namespace id = ids::data_page_header_v2;
            h.has_v2 = true;
            r.begin_struct();
            while (r.next_field(f)) {
                if (f.id == id::num_values) h.num_values = r.read_i32(f.type);
                else if (f.id == id::num_nulls) h.num_nulls = r.read_i32(f.type);
                else if (f.id == id::encoding) h.encoding = encoding(f.type);
                else if (f.id == id::definition_levels_byte_length) h.definition_bytes = r.read_i32(f.type);
                else if (f.id == id::repetition_levels_byte_length) h.repetition_bytes = r.read_i32(f.type);
                else if (f.id == id::is_compressed) {
                    if (f.type != Type::bool_true && f.type != Type::bool_false) r.fail("is_compressed is not a bool");
                    h.is_compressed = f.type == Type::bool_true;
                } else r.skip(f.type);
            }
        } else {
            r.skip(f.type);
        }
    }
    if (h.uncompressed < 0 || h.compressed < 0) r.fail("page header without its sizes");
    return h;
}

std::string encoding_name(Encoding e) {
    switch (e) {
        case Encoding::plain: return "PLAIN";
        case Encoding::plain_dictionary: return "PLAIN_DICTIONARY";
        case Encoding::rle: return "RLE";
        case Encoding::bit_packed: return "BIT_PACKED";
        case Encoding::delta_binary_packed: return "DELTA_BINARY_PACKED";
        case Encoding::delta_length_byte_array: return "DELTA_LENGTH_BYTE_ARRAY";
        case Encoding::delta_byte_array: return "DELTA_BYTE_ARRAY";
        case Encoding::rle_dictionary: return "RLE_DICTIONARY";
        case Encoding::byte_stream_split: return "BYTE_STREAM_SPLIT";
    }
    return "encoding " + std::to_string(static_cast<std::int32_t>(e));
}

// Bytes per PLAIN value; 0 for BYTE_ARRAY.
std::size_t value_width(const ColumnChunk& meta) {
    switch (meta.type) {
        case PhysicalType::int32:
        case PhysicalType::float32: return 4;
        case PhysicalType::int64:
        case PhysicalType::float64: return 8;
        case PhysicalType::fixed_len_byte_array: return static_cast<std::size_t>(meta.type_length);
        default: return 0;
    }
}

class ChunkDecoder {
public:
    ChunkDecoder(const ColumnChunk& meta, HashSink& sink) : meta_(meta), sink_(sink) {
        check_hashable(meta);
        width_ = value_width(meta);
    }

    std::int64_t run(std::span<const std::byte> pages) {
        std::size_t at = 0;
        std::int64_t levels_left = meta_.num_values;
        if (levels_left < 0) throw FormatError("column '" + meta_.path + "': negative value count");
        while (levels_left > 0) {
            if (at >= pages.size())
                throw FormatError("column '" + meta_.path + "': its pages end " + std::to_string(levels_left) +
                                  " values short of the chunk's " + std::to_string(meta_.num_values));
            thrift::CompactReader r(pages.subspan(at), "Parquet page header");
            const PageHeader h = read_page_header(r);
            at += r.position();
            if (std::size_t(h.compressed) > pages.size() - at)
                throw FormatError("column '" + meta_.path + "': page of " + std::to_string(h.compressed) +
                                  " bytes runs past the chunk");
            const auto body = pages.subspan(at, std::size_t(h.compressed));
            at += body.size();
            if (h.type == PageType::dictionary_page) {
                dictionary_page(h, body);
            } else if (h.type == PageType::data_page || h.type == PageType::data_page_v2) {
                if (h.num_values < 0 || h.num_values > levels_left)
                    throw FormatError("column '" + meta_.path + "': a page of " + std::to_string(h.num_values) +
                                      " values overruns the chunk's " + std::to_string(meta_.num_values));
                if (h.type == PageType::data_page) data_page_v1(h, body);
                else data_page_v2(h, body);
                levels_left -= h.num_values;
            }
            // Index pages and page types added later carry no values.
        }
        for (std::size_t i = 0; i < dictionary_.size(); ++i)
            if (used_[i]) sink_.add(dictionary_[i]);
        return values_;
    }

private:
    [[noreturn]] void unsupported(const std::string& what) const {
        throw Error("column '" + meta_.path + "': " + what + " cannot be read");
    }

    // The page's bytes after decompression (`raw` when stored uncompressed).
    std::span<const std::byte> inflate(std::span<const std::byte> raw, std::int32_t uncompressed, bool compressed) {
        if (!compressed || meta_.codec == Codec::uncompressed) {
            if (raw.size() != std::size_t(uncompressed))
                throw FormatError("column '" + meta_.path + "': uncompressed page of " + std::to_string(raw.size()) +
                                  " bytes, its header says " + std::to_string(uncompressed));
            return raw;
        }
        const std::uint64_t limit = std::max(max_page_floor, max_expansion * raw.size());
        if (std::uint64_t(uncompressed) > limit)
            throw FormatError("column '" + meta_.path + "': page header claims " + std::to_string(uncompressed) +
                              " bytes from " + std::to_string(raw.size()));
        if (std::size_t(uncompressed) > buffer_size_) {
            buffer_ = std::make_unique_for_overwrite<std::byte[]>(std::size_t(uncompressed));
            buffer_size_ = std::size_t(uncompressed);
        }
        const std::span<std::byte> out(buffer_.get(), std::size_t(uncompressed));
        decompress(meta_.codec, raw, out);
        return out;
    }

    void dictionary_page(const PageHeader& h, std::span<const std::byte> body) {
        if (!h.has_dictionary || h.num_values < 0) throw FormatError("column '" + meta_.path + "': bad dictionary page header");
        if (have_dictionary_) throw FormatError("column '" + meta_.path + "': a second dictionary page");
        if (h.encoding != Encoding::plain && h.encoding != Encoding::plain_dictionary)
            unsupported("a dictionary page in " + encoding_name(h.encoding));
        have_dictionary_ = true;
        const auto data = inflate(body, h.uncompressed, true);
        ByteCursor c(data, "Parquet dictionary page");
        dictionary_.reserve(std::min<std::size_t>(std::size_t(h.num_values), data.size()));
        plain(c, std::uint64_t(h.num_values), [&](std::uint64_t hash) { dictionary_.push_back(hash); });
        used_.assign(dictionary_.size(), 0);
    }

    // Counts the non-null values of `levels` definition levels (RLE-encoded).
    std::uint64_t count_defined(ByteCursor& c, std::uint64_t levels) const {
        std::uint64_t defined = 0;
        const auto max = static_cast<std::uint32_t>(meta_.max_definition_level);
        read_rle_hybrid(c, static_cast<unsigned>(std::bit_width(max)), levels,
                        [&](std::uint32_t level, std::uint64_t repeat) {
                            if (level > max) c.fail("definition level above the column's maximum");
                            if (level == max) defined += repeat;
                        });
        return defined;
    }

    void data_page_v1(const PageHeader& h, std::span<const std::byte> body) {
        if (!h.has_data) throw FormatError("column '" + meta_.path + "': data page without its header");
        const auto data = inflate(body, h.uncompressed, true);
        ByteCursor c(data, "Parquet data page");
        const auto levels = std::uint64_t(h.num_values);
        // Repetition levels, then definition levels, each with a 4-byte length in front.
        if (meta_.max_repetition_level > 0) {
            if (h.repetition_encoding != Encoding::rle) unsupported(encoding_name(h.repetition_encoding) + " levels");
            c.take(c.le_u32());
        }
        std::uint64_t defined = levels;
        if (meta_.max_definition_level > 0) {
            if (h.definition_encoding != Encoding::rle) unsupported(encoding_name(h.definition_encoding) + " levels");
            ByteCursor d(c.take(c.le_u32()), "Parquet definition levels");
            defined = count_defined(d, levels);
        }
        values(h.encoding, data.subspan(c.position()), defined);
    }

    void data_page_v2(const PageHeader& h, std::span<const std::byte> body) {
        if (!h.has_v2 || h.repetition_bytes < 0 || h.definition_bytes < 0 ||
            std::uint64_t(h.repetition_bytes) + std::uint64_t(h.definition_bytes) > body.size() ||
            h.repetition_bytes + std::int64_t(h.definition_bytes) > h.uncompressed)
            throw FormatError("column '" + meta_.path + "': bad data page v2 header");
        const auto levels = std::uint64_t(h.num_values);
        std::uint64_t defined = levels;
        if (meta_.max_definition_level > 0) {
            ByteCursor d(body.subspan(std::size_t(h.repetition_bytes), std::size_t(h.definition_bytes)),
                         "Parquet definition levels");
            defined = count_defined(d, levels);
        }
        const std::size_t level_bytes = std::size_t(h.repetition_bytes) + std::size_t(h.definition_bytes);
        const auto data = inflate(body.subspan(level_bytes), h.uncompressed - static_cast<std::int32_t>(level_bytes),
                                  h.is_compressed);
        values(h.encoding, data, defined);
    }

    void add(std::uint64_t hash) {
        sink_.add(hash);
        ++values_;
    }

    // n PLAIN values; f(hash) for each.
    template <class F>
    void plain(ByteCursor& c, std::uint64_t n, F&& f) {
        if (width_ == 0) {
            for (std::uint64_t i = 0; i < n; ++i) {
                const auto v = c.take(c.le_u32());
                f(XXH64(v.data(), v.size(), 0));
            }
            return;
        }
        if (n > c.remaining() / width_) c.fail(std::to_string(n) + " values run past the page");
        const auto bytes = c.take(static_cast<std::size_t>(n) * width_);
        for (std::size_t i = 0; i < bytes.size(); i += width_) f(XXH64(bytes.data() + i, width_, 0));
    }

    void values(Encoding encoding, std::span<const std::byte> data, std::uint64_t n) {
        if (n == 0) return;
        ByteCursor c(data, "Parquet page values");
        switch (encoding) {
            case Encoding::plain: plain(c, n, [&](std::uint64_t h) { add(h); }); return;
            case Encoding::plain_dictionary:
            case Encoding::rle_dictionary: dictionary_indices(c, n); return;
            case Encoding::delta_binary_packed: delta_integers(data, n); return;
            case Encoding::delta_length_byte_array: delta_lengths(data, n); return;
            case Encoding::delta_byte_array: delta_strings(data, n); return;
            case Encoding::byte_stream_split: byte_stream_split(data, n); return;
            default: break;
        }
        unsupported(encoding_name(encoding) + " values of type " + std::string(to_string(meta_.type)));
    }

    void dictionary_indices(ByteCursor& c, std::uint64_t n) {
        if (!have_dictionary_) throw FormatError("column '" + meta_.path + "': dictionary indices without a dictionary");
        const unsigned bit_width = c.u8();
        read_rle_hybrid(c, bit_width, n, [&](std::uint32_t index, std::uint64_t repeat) {
            if (index >= dictionary_.size())
                c.fail("dictionary index " + std::to_string(index) + " of " + std::to_string(dictionary_.size()));
            used_[index] = 1;
            values_ += static_cast<std::int64_t>(repeat);
        });
    }

    void delta_integers(std::span<const std::byte> data, std::uint64_t n) {
        if (meta_.type != PhysicalType::int32 && meta_.type != PhysicalType::int64)
            unsupported("DELTA_BINARY_PACKED values of type " + std::string(to_string(meta_.type)));
        DeltaBinaryPackedReader r(data, n, "Parquet DELTA_BINARY_PACKED values");
        for (std::uint64_t i = 0; i < n; ++i) {
            const std::uint64_t v = r.next();
            if (width_ == 4) {
                const auto v32 = static_cast<std::uint32_t>(v);
                add(XXH64(&v32, 4, 0));
            } else {
                add(XXH64(&v, 8, 0));
            }
        }
    }

    // Where n DELTA_BINARY_PACKED lengths starting at data end, after checking each one and
    // that their sum fits in what follows them.
    static std::size_t check_lengths(std::span<const std::byte> data, std::uint64_t n, std::uint64_t& total) {
        DeltaBinaryPackedReader r(data, n, "Parquet byte array lengths");
        total = 0;
        for (std::uint64_t i = 0; i < n; ++i) {
            const auto len = static_cast<std::int32_t>(r.next());
            if (len < 0) throw FormatError("Parquet byte array lengths: negative length");
            total += std::uint64_t(len);
        }
        return r.end();
    }

    void require_byte_arrays(Encoding e) const {
        if (meta_.type != PhysicalType::byte_array && meta_.type != PhysicalType::fixed_len_byte_array)
            unsupported(encoding_name(e) + " values of type " + std::string(to_string(meta_.type)));
    }

    void delta_lengths(std::span<const std::byte> data, std::uint64_t n) {
        require_byte_arrays(Encoding::delta_length_byte_array);
        std::uint64_t total = 0;
        const std::size_t begin = check_lengths(data, n, total);
        if (total > data.size() - begin) throw FormatError("Parquet DELTA_LENGTH_BYTE_ARRAY: values run past the page");
        DeltaBinaryPackedReader lengths(data, n, "Parquet byte array lengths");
        const std::byte* p = data.data() + begin;
        for (std::uint64_t i = 0; i < n; ++i) {
            const auto len = static_cast<std::uint32_t>(lengths.next());
            add(XXH64(p, len, 0));
            p += len;
        }
    }

    // DELTA_BYTE_ARRAY: each value is a prefix of the previous one plus a suffix; prefix
    // lengths, then the suffixes as DELTA_LENGTH_BYTE_ARRAY.
    void delta_strings(std::span<const std::byte> data, std::uint64_t n) {
        require_byte_arrays(Encoding::delta_byte_array);
        std::uint64_t prefix_total = 0, suffix_total = 0;
        const std::size_t suffix_lengths_at = check_lengths(data, n, prefix_total);
        const auto rest = data.subspan(suffix_lengths_at);
        const std::size_t suffixes_at = check_lengths(rest, n, suffix_total);
        if (suffix_total > rest.size() - suffixes_at) throw FormatError("Parquet DELTA_BYTE_ARRAY: suffixes run past the page");
        DeltaBinaryPackedReader prefixes(data, n, "Parquet byte array prefix lengths");
        DeltaBinaryPackedReader suffixes(rest, n, "Parquet byte array lengths");
        const std::byte* p = rest.data() + suffixes_at;
        std::string value;
        for (std::uint64_t i = 0; i < n; ++i) {
            const auto prefix = static_cast<std::uint32_t>(prefixes.next());
            const auto suffix = static_cast<std::uint32_t>(suffixes.next());
            if (prefix > value.size()) throw FormatError("Parquet DELTA_BYTE_ARRAY: prefix longer than the previous value");
            value.resize(prefix);
            value.append(reinterpret_cast<const char*>(p), suffix);
            p += suffix;
            add(XXH64(value.data(), value.size(), 0));
        }
    }

    // BYTE_STREAM_SPLIT: byte j of value i is at j * n + i.
    void byte_stream_split(std::span<const std::byte> data, std::uint64_t n) {
        if (width_ == 0) unsupported("BYTE_STREAM_SPLIT values of type BYTE_ARRAY");
        if (n > data.size() / width_) throw FormatError("Parquet BYTE_STREAM_SPLIT: values run past the page");
        std::vector<std::byte> value(width_);
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < width_; ++j) value[j] = data[j * n + i];
            add(XXH64(value.data(), width_, 0));
        }
    }

    const ColumnChunk& meta_;
    HashSink& sink_;
    std::size_t width_ = 0;  // bytes per PLAIN value; 0 for BYTE_ARRAY
    bool have_dictionary_ = false;
    std::vector<std::uint64_t> dictionary_;  // hash of each entry
    std::vector<std::uint8_t> used_;         // entries some index refers to
    std::int64_t values_ = 0;
    std::unique_ptr<std::byte[]> buffer_;
    std::size_t buffer_size_ = 0;
};

}  // namespace

std::uint64_t pages_offset(const ColumnChunk& meta, std::uint64_t data_end) {
    constexpr std::int64_t magic = 4;
    // A chunk of no pages (PyArrow writes one for a column of no rows without a dictionary) has
    // nothing to read, wherever its offsets point.
    if (meta.total_compressed_size == 0) return std::uint64_t(magic);
    std::int64_t start = meta.data_page_offset;
    // An offset before the first page cannot be one: writers record 0 for "none" (a
    // dictionary_page_offset of 0 without a dictionary; PyArrow's data_page_offset of 0 for a
    // chunk of no rows, whose only page is its dictionary).
    if (const auto dictionary = meta.dictionary_page_offset;
        dictionary && *dictionary >= magic && (start < magic || *dictionary < start))
        start = *dictionary;
    if (start < magic || meta.total_compressed_size < 0 || std::uint64_t(start) > data_end ||
        std::uint64_t(meta.total_compressed_size) > data_end - std::uint64_t(start))
        throw FormatError("column '" + meta.path + "': pages at " + std::to_string(start) + " (" +
                          std::to_string(meta.total_compressed_size) + " bytes) lie outside the file's data");
    return std::uint64_t(start);
}

void check_hashable(const ColumnChunk& meta) {
    if (meta.type == PhysicalType::boolean || meta.type == PhysicalType::int96)
        throw Error("column '" + meta.path + "' is " + std::string(to_string(meta.type)) +
                    ", for which Parquet defines no Bloom filter hashing");
    // Without its schema leaf, a column's levels are unknown and its pages cannot be split
    // into levels and values.
    if (!meta.in_schema) throw FormatError("column '" + meta.path + "' is not a leaf of the file's schema");
    if (meta.type == PhysicalType::fixed_len_byte_array && meta.type_length <= 0)
        throw FormatError("column '" + meta.path + "': FIXED_LEN_BYTE_ARRAY of length " +
                          std::to_string(meta.type_length));
    if (meta.max_definition_level < 0 || meta.max_definition_level > max_level || meta.max_repetition_level < 0 ||
        meta.max_repetition_level > max_level)
        throw FormatError("column '" + meta.path + "': level maxima out of range");
}

std::int64_t hash_chunk_values(std::span<const std::byte> pages, const ColumnChunk& meta, HashSink& sink) {
    return ChunkDecoder(meta, sink).run(pages);
}

}  // namespace batchbloom::parquet

#pragma once
// Parquet's integer encodings, as the page reader needs them: a bounds-checked cursor over a
// page, the RLE / bit-packed hybrid (levels and dictionary indices) and DELTA_BINARY_PACKED.
// Every overrun or inconsistency throws FormatError; the work done is bounded by the number of
// values the caller asks for, which it bounds by the page header.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "batchbloom/error.hpp"

namespace batchbloom::parquet {

class ByteCursor {
public:
    ByteCursor(std::span<const std::byte> data, const char* what) : data_(data), what_(what) {}

    std::size_t remaining() const noexcept { return data_.size() - pos_; }
    std::size_t position() const noexcept { return pos_; }

    std::span<const std::byte> take(std::size_t n) {
        if (n > remaining()) fail("needs " + std::to_string(n) + " bytes, " + std::to_string(remaining()) + " remain");
        const auto s = data_.subspan(pos_, n);
        pos_ += n;
        return s;
    }
    std::uint8_t u8() { return static_cast<std::uint8_t>(take(1)[0]); }
    std::uint32_t le_u32() {
        std::uint32_t v;
        std::memcpy(&v, take(4).data(), 4);  // little-endian target (config.hpp)
        return v;
    }
    /// Unsigned LEB128, at most 10 bytes.
    std::uint64_t uleb() {
        std::uint64_t v = 0;
        for (unsigned i = 0; i < 10; ++i) {
            const std::uint8_t b = u8();
            v |= std::uint64_t(b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) return v;
        }
        fail("varint longer than 10 bytes");
    }
    std::int64_t zigzag() {
        const std::uint64_t v = uleb();
        return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
    }

    [[noreturn]] void fail(const std::string& why) const {
        throw FormatError(std::string(what_) + ": " + why + " (at byte " + std::to_string(pos_) + ")");
    }

private:
    std::span<const std::byte> data_;
    const char* what_;
    std::size_t pos_ = 0;
};

/// Bits [bit, bit + width) of `p`, least significant bit first (width <= 64). The caller
/// guarantees that the bytes touched lie inside the buffer.
inline std::uint64_t unpack_bits(const std::byte* p, std::uint64_t bit, unsigned width) {
    if (width == 0) return 0;
    std::uint64_t v = 0;
    const std::size_t first = bit / 8, last = (bit + width - 1) / 8;
    for (std::size_t i = first; i <= last; ++i) {
        const auto b = static_cast<std::uint64_t>(p[i]);
        const std::int64_t shift = std::int64_t(8 * (i - first)) - std::int64_t(bit % 8);
        v |= shift >= 0 ? b << shift : b >> -shift;
    }
    return width == 64 ? v : v & ((std::uint64_t(1) << width) - 1);
}

/// The RLE / bit-packed hybrid encoding of `count` values of `bit_width` bits (<= 32): calls
/// f(value, repeat) for each run of equal values (bit-packed values come one at a time).
template <class F>
void read_rle_hybrid(ByteCursor& c, unsigned bit_width, std::uint64_t count, F&& f) {
    if (bit_width > 32) c.fail("bit width " + std::to_string(bit_width) + " over 32");
    const std::size_t value_bytes = (bit_width + 7) / 8;
    while (count > 0) {
        const std::uint64_t header = c.uleb();
        if ((header & 1) == 0) {  // RLE run: the value once, little-endian in value_bytes
            const std::uint64_t run = header >> 1;
            if (run == 0) c.fail("empty RLE run");
            std::uint64_t value = 0;
            const auto bytes = c.take(value_bytes);
            for (std::size_t i = 0; i < value_bytes; ++i) value |= std::uint64_t(bytes[i]) << (8 * i);
            if (bit_width < 32 && value >> bit_width != 0) c.fail("RLE value wider than its bit width");
            const std::uint64_t n = run < count ? run : count;
            f(static_cast<std::uint32_t>(value), n);
            count -= n;
        } else {  // bit-packed: (header >> 1) groups of 8 values
            const std::uint64_t groups = header >> 1;
            if (groups == 0) c.fail("empty bit-packed run");
            if (groups > (std::uint64_t(1) << 56)) c.fail("bit-packed run of " + std::to_string(groups) + " groups");
            const std::uint64_t values = groups * 8;
            const auto bytes = c.take(static_cast<std::size_t>(groups * bit_width));
            const std::uint64_t n = values < count ? values : count;
            if (bit_width == 0) {
                f(0u, n);
            } else {
                for (std::uint64_t i = 0; i < n; ++i)
                    f(static_cast<std::uint32_t>(unpack_bits(bytes.data(), i * bit_width, bit_width)), 1);
            }
            count -= n;
        }
    }
}

/// Far above any writer's block size (128 to a few thousand values); keeps the arithmetic small.
inline constexpr std::uint64_t max_delta_block = std::uint64_t(1) << 24;

/// DELTA_BINARY_PACKED, one value at a time (a byte array encoding interleaves two such
/// streams with its data). Values are 64-bit two's complement; an INT32 column's are the low
/// 32 bits. The header's total count must equal `count`.
class DeltaBinaryPackedReader {
public:
    DeltaBinaryPackedReader(std::span<const std::byte> data, std::uint64_t count, const char* what) : c_(data, what) {
        const std::uint64_t block_size = c_.uleb();
        miniblocks_ = c_.uleb();
        const std::uint64_t total = c_.uleb();
        value_ = static_cast<std::uint64_t>(c_.zigzag());
        if (block_size == 0 || block_size > max_delta_block || block_size % 128 != 0 || miniblocks_ == 0 ||
            block_size % miniblocks_ != 0 || (block_size / miniblocks_) % 32 != 0)
            c_.fail("DELTA_BINARY_PACKED block of " + std::to_string(block_size) + " values in " +
                    std::to_string(miniblocks_) + " miniblocks");
        if (total != count)
            c_.fail("DELTA_BINARY_PACKED holds " + std::to_string(total) + " values, the page " + std::to_string(count));
        per_miniblock_ = block_size / miniblocks_;
        left_ = total;
        next_miniblock_ = miniblocks_;
    }

    /// The next value; the caller reads at most `count`.
    std::uint64_t next() {
        --left_;
        if (!first_done_) {  // the first value is the header's
            first_done_ = true;
            return value_;
        }
        if (pos_ == in_miniblock_) start_miniblock();
        value_ += min_delta_ + unpack_bits(bytes_, pos_ * width_, width_);  // wraps, as the spec says
        ++pos_;
        return value_;
    }

    /// Where the stream ends: after the last miniblock holding values (once all are read).
    std::size_t end() const noexcept { return c_.position(); }

private:
    void start_miniblock() {
        if (next_miniblock_ == miniblocks_) {
            min_delta_ = static_cast<std::uint64_t>(c_.zigzag());
            widths_ = c_.take(static_cast<std::size_t>(miniblocks_)).data();
            next_miniblock_ = 0;
        }
        width_ = static_cast<unsigned>(widths_[next_miniblock_++]);
        if (width_ > 64) c_.fail("miniblock bit width " + std::to_string(width_) + " over 64");
        bytes_ = c_.take(static_cast<std::size_t>(per_miniblock_ / 8 * width_)).data();
        // Only the miniblocks that hold values are present (the last is padded to full size).
        in_miniblock_ = per_miniblock_ < left_ + 1 ? per_miniblock_ : left_ + 1;  // left_ excludes this value
        pos_ = 0;
    }

    ByteCursor c_;
    std::uint64_t miniblocks_ = 0, per_miniblock_ = 0, value_ = 0, min_delta_ = 0;
    std::uint64_t left_ = 0;  // values not yet returned
    std::uint64_t next_miniblock_ = 0, in_miniblock_ = 0, pos_ = 0;
    const std::byte* widths_ = nullptr;
    const std::byte* bytes_ = nullptr;
    unsigned width_ = 0;
    bool first_done_ = false;
};

}  // namespace batchbloom::parquet

#include "common/key_input.hpp"
#include "common/text_format.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace batchbloom::cli {

namespace {

constexpr std::size_t read_block = std::size_t(1) << 20;

std::uint64_t load_le64(const char* p) {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < 8; ++i) v |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
    return v;
}

}  // namespace

std::optional<std::uint64_t> parse_integer_key(std::string_view line) {
    if (line.empty()) return std::nullopt;
    const char* first = line.data();
    const char* last = first + line.size();
    if (line.front() == '-') {
        std::int64_t v = 0;
        auto [ptr, ec] = std::from_chars(first, last, v);
        if (ec != std::errc{} || ptr != last) return std::nullopt;
        return static_cast<std::uint64_t>(v);
    }
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc{} || ptr != last) return std::nullopt;
    return v;
}

std::string_view to_string(KeyType type) {
    switch (type) {
        case KeyType::integer: return "int";
        case KeyType::string: return "string";
        case KeyType::per_line: return "auto";
        case KeyType::both: return "both";
    }
    return "unknown";
}

void split_keys(const KeyBatch& batch, KeyType type, const KeyReader& reader, TypedKeys& out) {
    out.ints.clear(), out.int_at.clear(), out.strings.clear(), out.str_at.clear();
    out.size = batch.size();
    out.decimal = 0;
    out.first_line = reader.keys_read() - batch.size() + 1;
    if (out.source.empty()) out.source = reader.name();
    if (batch.format == KeyFormat::u64) {
        out.ints = batch.values;
        out.int_at.resize(batch.values.size());
        for (std::size_t i = 0; i < out.int_at.size(); ++i) out.int_at[i] = i;
        return;
    }
    for (std::size_t i = 0; i < batch.lines.size(); ++i) {
        const std::string_view line = batch.lines[i];
        const auto v = type == KeyType::string ? std::nullopt : parse_integer_key(line);
        if (v) {
            out.ints.push_back(*v);
            out.int_at.push_back(i);
            ++out.decimal;
        } else if (type == KeyType::integer) {
            const std::uint64_t number = out.first_line + i;
            std::string shown(line.substr(0, 40));
            if (line.size() > 40) shown += "...";
            throw std::runtime_error("line " + std::to_string(number) + " of " + reader.name() + " is not a decimal " +
                                     "integer in [-2^63, 2^64): " + in_quotes(shown) + " (--key-type int)");
        }
        if (!v || type == KeyType::both) {
            out.strings.push_back(line);
            out.str_at.push_back(i);
        }
    }
}

void append_key_line(const KeyBatch& batch, std::size_t i, std::string& out) {
    if (batch.format == KeyFormat::text) {
        out += batch.lines[i];
    } else {
        char digits[24];
        auto [ptr, ec] = std::to_chars(digits, digits + sizeof digits, batch.values[i]);
        (void)ec;  // 24 characters always hold a uint64
        out.append(digits, ptr);
    }
    out += '\n';
}

KeyReader::KeyReader(std::string_view source, KeyFormat format) : format_(format) {
    if (source == "-") {
        file_ = stdin;
        name_ = "stdin";
        return;
    }
    const std::string path(source);
    name_ = in_quotes(path);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw std::runtime_error("cannot read " + name_ + ": is a directory");
    file_ = std::fopen(path.c_str(), "rb");
    if (file_ == nullptr) {
        const int err = errno;
        throw std::runtime_error("cannot open input " + name_ + ": " + std::strerror(err));
    }
    owns_file_ = true;
    if (std::filesystem::is_regular_file(path, ec)) {
        const auto size = std::filesystem::file_size(path, ec);
        if (!ec) total_bytes_ = size;
        if (!ec && format_ == KeyFormat::u64 && size % 8 != 0) {
            std::fclose(file_);
            file_ = nullptr;
            throw std::runtime_error("--u64 input " + name_ + " has " + std::to_string(size) +
                                     " bytes, which is not a multiple of 8");
        }
    }
}

KeyReader::~KeyReader() {
    if (owns_file_ && file_ != nullptr) std::fclose(file_);
}

bool KeyReader::fill() {
    if (eof_) return false;
    const std::size_t old = buf_.size();
    buf_.resize(old + read_block);
    const std::size_t got = std::fread(buf_.data() + old, 1, read_block, file_);
    buf_.resize(old + got);
    bytes_read_ += got;
    if (got < read_block) {
        if (std::ferror(file_)) {
            const int err = errno;
            throw std::runtime_error("cannot read " + name_ + ": " + std::strerror(err));
        }
        eof_ = true;
    }
    return got > 0;
}

bool KeyReader::next(KeyBatch& batch, std::size_t max_keys) {
    batch.format = format_;
    batch.lines.clear();
    batch.values.clear();
    if (max_keys == 0) max_keys = 1;
    // Drop what earlier batches consumed; the views they handed out are no longer needed.
    buf_.erase(0, pos_);
    pos_ = 0;
    const bool got = format_ == KeyFormat::text ? next_text(batch, max_keys) : next_u64(batch, max_keys);
    keys_read_ += batch.size();
    return got;
}

bool KeyReader::next_text(KeyBatch& batch, std::size_t max_keys) {
    // Offsets rather than views while reading: fill() may move buf_.
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    spans.reserve(std::min<std::size_t>(max_keys, 1 << 16));
    std::size_t scan = pos_;
    while (spans.size() < max_keys) {
        const void* nl = std::memchr(buf_.data() + scan, '\n', buf_.size() - scan);
        if (nl == nullptr) {
            scan = buf_.size();
            if (fill()) continue;
            if (pos_ < buf_.size()) {  // last line without a newline
                spans.emplace_back(pos_, buf_.size() - pos_);
                pos_ = buf_.size();
            }
            break;
        }
        const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(nl) - buf_.data());
        spans.emplace_back(pos_, end - pos_);
        pos_ = scan = end + 1;
    }
    batch.lines.reserve(spans.size());
    for (auto [begin, len] : spans) {
        std::string_view line(buf_.data() + begin, len);
        if (line.ends_with('\r')) line.remove_suffix(1);
        batch.lines.push_back(line);
    }
    return !batch.lines.empty();
}

bool KeyReader::next_u64(KeyBatch& batch, std::size_t max_keys) {
    const std::size_t want = max_keys > (SIZE_MAX / 8) ? SIZE_MAX : max_keys * 8;
    while (buf_.size() - pos_ < want && fill()) {
    }
    const std::size_t avail = buf_.size() - pos_;
    const std::size_t count = std::min(max_keys, avail / 8);
    if (count == 0 && avail > 0)
        throw std::runtime_error("--u64 input " + name_ + " has " + std::to_string(bytes_read_) +
                                 " bytes, which is not a multiple of 8");
    batch.values.resize(count);
    for (std::size_t i = 0; i < count; ++i) batch.values[i] = load_le64(buf_.data() + pos_ + 8 * i);
    pos_ += 8 * count;
    return count > 0;
}

}  // namespace batchbloom::cli

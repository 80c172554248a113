#pragma once
// The field ids and enum values of parquet.thrift that batchbloom reads or writes: the one
// definition shared by the footer reader, the footer rewriter, the page reader and the Bloom
// filter header. Fields not named here are skipped on reading and copied as they are on writing.
#include <cstdint>

namespace batchbloom::parquet::ids {

namespace file_metadata {
inline constexpr std::int16_t schema = 2, num_rows = 3, row_groups = 4, encryption_algorithm = 8;
}

namespace schema_element {
inline constexpr std::int16_t type = 1, type_length = 2, repetition_type = 3, name = 4, num_children = 5,
                              converted_type = 6;
}

namespace row_group {
inline constexpr std::int16_t columns = 1, num_rows = 3;
}

namespace column_chunk {
inline constexpr std::int16_t file_path = 1, meta_data = 3, crypto_metadata = 8, encrypted_column_metadata = 9;
}

namespace column_metadata {
inline constexpr std::int16_t type = 1, path_in_schema = 3, codec = 4, num_values = 5, total_compressed_size = 7,
                              key_value_metadata = 8, data_page_offset = 9, dictionary_page_offset = 11,
                              statistics = 12, bloom_filter_offset = 14, bloom_filter_length = 15;
}

namespace statistics {
inline constexpr std::int16_t distinct_count = 4;
}

namespace key_value {
inline constexpr std::int16_t key = 1, value = 2;
}

namespace page_header {
inline constexpr std::int16_t type = 1, uncompressed_page_size = 2, compressed_page_size = 3,
                              data_page_header = 5, dictionary_page_header = 7, data_page_header_v2 = 8;
}

namespace data_page_header {
inline constexpr std::int16_t num_values = 1, encoding = 2, definition_level_encoding = 3,
                              repetition_level_encoding = 4;
}

namespace dictionary_page_header {
inline constexpr std::int16_t num_values = 1, encoding = 2;
}

namespace data_page_header_v2 {
inline constexpr std::int16_t num_values = 1, num_nulls = 2, encoding = 4, definition_levels_byte_length = 5,
                              repetition_levels_byte_length = 6, is_compressed = 7;
}

namespace bloom_filter_header {
inline constexpr std::int16_t num_bytes = 1, algorithm = 2, hash = 3, compression = 4;
// Each of algorithm, hash and compression is a union whose only member (BLOCK, XXHASH,
// UNCOMPRESSED) is field 1, an empty struct.
inline constexpr std::int16_t only_member = 1;
}

enum class Repetition : std::int32_t { required = 0, optional = 1, repeated = 2 };

enum class PageType : std::int32_t { data_page = 0, index_page = 1, dictionary_page = 2, data_page_v2 = 3 };

enum class Encoding : std::int32_t {
    plain = 0,
    plain_dictionary = 2,
    rle = 3,
    bit_packed = 4,
    delta_binary_packed = 5,
    delta_length_byte_array = 6,
    delta_byte_array = 7,
    rle_dictionary = 8,
    byte_stream_split = 9,
};

}  // namespace batchbloom::parquet::ids

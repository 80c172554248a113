# The compression libraries Parquet pages need (src/interop/parquet/codecs.cpp): snappy, zlib,
# brotli (decoder) and lz4, as Debian ships them (libsnappy-dev, zlib1g-dev, libbrotli-dev,
# liblz4-dev). zstd is found by the caller (the library's own save/load uses it too).
# Defines the imported targets batchbloom_codec::{snappy,zlib,brotlidec,lz4}; installed beside
# batchbloomConfig.cmake, which includes it, so consumers of the static library link them too.
include(FindPackageHandleStandardArgs)
find_path(BATCHBLOOM_SNAPPY_INCLUDE_DIR snappy-c.h)
find_library(BATCHBLOOM_SNAPPY_LIBRARY snappy)
find_path(BATCHBLOOM_ZLIB_INCLUDE_DIR zlib.h)
find_library(BATCHBLOOM_ZLIB_LIBRARY z)
find_path(BATCHBLOOM_BROTLI_INCLUDE_DIR brotli/decode.h)
find_library(BATCHBLOOM_BROTLIDEC_LIBRARY brotlidec)
find_path(BATCHBLOOM_LZ4_INCLUDE_DIR lz4.h)
find_library(BATCHBLOOM_LZ4_LIBRARY lz4)
find_package_handle_standard_args(BatchbloomCodecs
  REQUIRED_VARS BATCHBLOOM_SNAPPY_LIBRARY BATCHBLOOM_SNAPPY_INCLUDE_DIR BATCHBLOOM_ZLIB_LIBRARY
                BATCHBLOOM_ZLIB_INCLUDE_DIR BATCHBLOOM_BROTLIDEC_LIBRARY BATCHBLOOM_BROTLI_INCLUDE_DIR
                BATCHBLOOM_LZ4_LIBRARY BATCHBLOOM_LZ4_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "Parquet page decoding needs libsnappy-dev, zlib1g-dev, libbrotli-dev and liblz4-dev")
foreach(_bb_codec snappy zlib brotlidec lz4)
  if(NOT TARGET batchbloom_codec::${_bb_codec})
    string(TOUPPER ${_bb_codec} _bb_upper)
    set(_bb_include ${_bb_upper})
    if(_bb_codec STREQUAL "brotlidec")
      set(_bb_include BROTLI)
    endif()
    add_library(batchbloom_codec::${_bb_codec} UNKNOWN IMPORTED GLOBAL)
    set_target_properties(batchbloom_codec::${_bb_codec} PROPERTIES
      IMPORTED_LOCATION "${BATCHBLOOM_${_bb_upper}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${BATCHBLOOM_${_bb_include}_INCLUDE_DIR}")
  endif()
endforeach()

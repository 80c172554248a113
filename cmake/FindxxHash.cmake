# Debian's libxxhash-dev ships a header and a library but no CMake package.
# batchbloom compiles xxHash inline (XXH_INLINE_ALL) inside its own sources, so only the
# header is needed and consumers of the installed library never see xxHash.
find_path(xxHash_INCLUDE_DIR xxhash.h)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(xxHash REQUIRED_VARS xxHash_INCLUDE_DIR)
if(xxHash_FOUND AND NOT TARGET xxHash::headers)
  add_library(xxHash::headers INTERFACE IMPORTED)
  set_target_properties(xxHash::headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${xxHash_INCLUDE_DIR}")
endif()

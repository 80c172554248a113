# cmake -P script run by the consumer.find_package test (see CMakeLists.txt here):
#   1. cmake --install BUILD_DIR --prefix SCRATCH_DIR/prefix
#   2. configure + build PROJECT_DIR against that prefix only (CMAKE_PREFIX_PATH)
#   3. check that find_package found the package in the prefix, and run the program.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/consumer_common.cmake)

require_variables(BUILD_DIR SCRATCH_DIR PROJECT_DIR LIBRARY_FILE GENERATOR CXX_COMPILER)

if(NOT EXISTS "${LIBRARY_FILE}")
  message(FATAL_ERROR "${LIBRARY_FILE} does not exist: build the project "
                      "(cmake --build ${BUILD_DIR}) before running the tests")
endif()

set(prefix "${SCRATCH_DIR}/prefix")
set(consumer_build "${SCRATCH_DIR}/build")
reset_scratch_dir()

set(config_args)
if(NOT "${CONFIG}" STREQUAL "")
  set(config_args --config "${CONFIG}")
endif()

# 1. install
run(install "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}" ${config_args})

# 2. configure and build the consumer
project_configure_args(configure_args "${consumer_build}")
list(APPEND configure_args
  "-DCMAKE_PREFIX_PATH=${prefix}"
  # Only the scratch prefix may provide batchbloom: no user/system package registry.
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
if(NOT "${CONFIG}" STREQUAL "")
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${CONFIG}")
endif()
run(configure "${CMAKE_COMMAND}" ${configure_args})

# find_package must have used the freshly installed package, not one from elsewhere.
file(STRINGS "${consumer_build}/CMakeCache.txt" found_dir REGEX "^batchbloom_DIR:")
string(REGEX REPLACE "^batchbloom_DIR:[A-Z]+=" "" found_dir "${found_dir}")
file(REAL_PATH "${prefix}" real_prefix)
if(EXISTS "${found_dir}")
  file(REAL_PATH "${found_dir}" found_dir)
endif()
string(FIND "${found_dir}/" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "find_package(batchbloom) used '${found_dir}', not the package "
                      "installed in '${real_prefix}'")
endif()
message(STATUS "batchbloom_DIR = ${found_dir}")

run(build "${CMAKE_COMMAND}" --build "${consumer_build}" ${config_args})

# 3. run it
set(app "${consumer_build}/app")
if(NOT EXISTS "${app}" AND NOT "${CONFIG}" STREQUAL "")
  set(app "${consumer_build}/${CONFIG}/app")   # multi-config generators
endif()
run(run "${app}")
message(STATUS "consumer OK")

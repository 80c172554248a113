# cmake -P script run by the consumer.add_subdirectory test (see CMakeLists.txt here):
#   1. configure PROJECT_DIR (which adds SOURCE_DIR with add_subdirectory) with no build type
#   2. check what batchbloom must not do to a parent: force CMAKE_BUILD_TYPE, add its tests,
#      tools or benchmarks, add install rules, compile the parent's target with -fopenmp
#   3. build and run the parent's program.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/consumer_common.cmake)

require_variables(SOURCE_DIR SCRATCH_DIR PROJECT_DIR GENERATOR CXX_COMPILER)

set(build "${SCRATCH_DIR}/build")
reset_scratch_dir()

project_configure_args(configure_args "${build}")
list(APPEND configure_args "-DBATCHBLOOM_SOURCE_DIR=${SOURCE_DIR}" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
if(NOT "${CXX_LAUNCHER}" STREQUAL "")
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER}")
endif()
run(configure "${CMAKE_COMMAND}" ${configure_args})

# 2. what a subproject must leave alone
file(STRINGS "${build}/CMakeCache.txt" build_type REGEX "^CMAKE_BUILD_TYPE:")
if(NOT build_type MATCHES "^CMAKE_BUILD_TYPE:[A-Z]+=$")
  message(FATAL_ERROR "batchbloom set the parent's build type: ${build_type}")
endif()
foreach(option BUILD_TESTS BUILD_BENCH BUILD_TOOLS INSTALL)
  file(STRINGS "${build}/CMakeCache.txt" value REGEX "^BATCHBLOOM_${option}:")
  if(NOT value MATCHES "=OFF$")
    message(FATAL_ERROR "BATCHBLOOM_${option} defaults to ON in a subproject: ${value}")
  endif()
endforeach()
if(EXISTS "${build}/batchbloom/cmake_install.cmake")
  file(READ "${build}/batchbloom/cmake_install.cmake" install_script)
  if(install_script MATCHES "file\\(INSTALL")
    message(FATAL_ERROR "batchbloom added install rules to the parent project")
  endif()
endif()
file(READ "${build}/compile_commands.json" commands)
string(REGEX MATCH "\"command\": \"[^\"]*project/main\\.cpp\"" app_command "${commands}")
if(app_command STREQUAL "")
  message(FATAL_ERROR "no compile command for the parent's main.cpp in compile_commands.json")
endif()
if(app_command MATCHES "openmp")
  message(FATAL_ERROR "the parent's target is compiled with OpenMP flags: ${app_command}")
endif()
# The check means something only where the library itself uses OpenMP.
string(REGEX MATCH "\"command\": \"[^\"]*src/filters/blocked\\.cpp\"" lib_command "${commands}")
if(NOT lib_command MATCHES "openmp")
  message(STATUS "note: no OpenMP here; the library is built without it too")
endif()

# 3. build and run
# On every core: ctest starts this test first (its COST), and its compile is most of the
# ctest run's work.
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
run(build "${CMAKE_COMMAND}" --build "${build}" --parallel ${cores})
run(run "${build}/app")
message(STATUS "subproject consumer OK")

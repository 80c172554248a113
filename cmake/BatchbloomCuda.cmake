# The optional CUDA engine.
#
# BATCHBLOOM_CUDA (cache, set in the top-level CMakeLists.txt):
#   AUTO (default)  build it when check_language(CUDA) finds nvcc; otherwise, or in the
#                   sanitizer build (nvcc takes no -fsanitize flags), leave it out
#   ON              build it; no CUDA compiler is a configuration error
#   OFF             never
# Sets BATCHBLOOM_HAVE_CUDA (ON/OFF) for the rest of the build (and the package config file:
# see the end of this file).
#
# Built for sm_80 and sm_90 (SASS) plus PTX for compute_90, which the driver compiles for
# later GPUs; never "native" (there is no GPU on the build machines). The library links the
# static CUDA runtime, so it loads and runs (on the CPU engines) where there is no driver.

set(BATCHBLOOM_CUDA_ARCHITECTURES "80-real;90-real;90-virtual" CACHE STRING
    "CUDA architectures of the CUDA engine (never 'native': builds happen without a GPU)")
if(BATCHBLOOM_CUDA_ARCHITECTURES MATCHES "native|all")
  message(FATAL_ERROR "BATCHBLOOM_CUDA_ARCHITECTURES='${BATCHBLOOM_CUDA_ARCHITECTURES}': name the "
                      "architectures (e.g. 80-real;90-real;90-virtual); 'native' needs a GPU at build time")
endif()

string(TOUPPER "${BATCHBLOOM_CUDA}" _bb_cuda_mode)
if(_bb_cuda_mode MATCHES "^(ON|YES|TRUE|Y|1)$")
  set(_bb_cuda_mode ON)
elseif(_bb_cuda_mode MATCHES "^(OFF|NO|FALSE|N|0)$")
  set(_bb_cuda_mode OFF)
elseif(NOT _bb_cuda_mode STREQUAL "AUTO")
  message(FATAL_ERROR "BATCHBLOOM_CUDA must be AUTO, ON or OFF, not '${BATCHBLOOM_CUDA}'")
endif()

set(BATCHBLOOM_HAVE_CUDA OFF)

if(_bb_cuda_mode STREQUAL "OFF")
  message(STATUS "batchbloom: CUDA engine off (BATCHBLOOM_CUDA=OFF)")
elseif(BATCHBLOOM_SANITIZE)
  if(_bb_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "BATCHBLOOM_CUDA=ON cannot be combined with BATCHBLOOM_SANITIZE: nvcc does "
                        "not take the sanitizer flags. Use BATCHBLOOM_CUDA=AUTO or OFF there.")
  endif()
  message(STATUS "batchbloom: CUDA engine off in the sanitizer build")
else()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT CMAKE_CUDA_HOST_COMPILER AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      # nvcc's host compiler: the project's own C++ compiler, so both halves agree.
      set(CMAKE_CUDA_HOST_COMPILER "${CMAKE_CXX_COMPILER}" CACHE FILEPATH "Host compiler of nvcc")
    endif()
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # enable_language would otherwise probe nvcc's default; the targets set their own.
      set(CMAKE_CUDA_ARCHITECTURES "${BATCHBLOOM_CUDA_ARCHITECTURES}")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    # The library's C++20 requirement (cxx_std_20) reaches its CUDA sources too, and CMake
    # before 3.26 knows no C++20 flag for nvcc (12.0 and later take -std=c++20).
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(BATCHBLOOM_HAVE_CUDA ON)
    message(STATUS "batchbloom: CUDA engine on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
                   "architectures ${BATCHBLOOM_CUDA_ARCHITECTURES})")
  elseif(_bb_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "BATCHBLOOM_CUDA=ON but no CUDA compiler was found: put nvcc on PATH or set "
                        "CMAKE_CUDA_COMPILER (or use BATCHBLOOM_CUDA=AUTO to build without the CUDA engine)")
  else()
    message(STATUS "batchbloom: CUDA engine off (no CUDA compiler found)")
  endif()
endif()

# Compile options for the project's CUDA sources: host-compiler warnings through nvcc, a
# warning from ptxas for any register spill or local-memory use in a kernel, and with
# BATCHBLOOM_WERROR every warning of every CUDA tool (front end, ptxas, host compiler) fatal.
function(batchbloom_cuda_options target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra -Xptxas=-warn-spills,-warn-lmem-usage>)
  if(BATCHBLOOM_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
  set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES ${BATCHBLOOM_CUDA_ARCHITECTURES})
endfunction()

# The CUDA engine's kernel files (also compiled by tests/cuda for their ptxas report).
set(BATCHBLOOM_CUDA_KERNELS
  ${PROJECT_SOURCE_DIR}/src/cuda/kernels_split256.cu
  ${PROJECT_SOURCE_DIR}/src/cuda/kernels_word512.cu
  ${PROJECT_SOURCE_DIR}/src/cuda/kernels_line512.cu)

# Adds the CUDA engine to the library target (called from src/CMakeLists.txt).
function(batchbloom_add_cuda_engine target)
  set(dir ${PROJECT_SOURCE_DIR}/src/cuda)
  target_sources(${target} PRIVATE
    ${BATCHBLOOM_CUDA_KERNELS}
    ${dir}/launch.cpp
    ${dir}/staging.cpp
    ${dir}/device_filter.cpp
    ${dir}/cuda_engine.cpp)
  target_compile_definitions(${target} PUBLIC BATCHBLOOM_HAVE_CUDA=1)
  # The static runtime: no libcudart.so to find at load time, and no driver needed until a
  # CUDA call is made (cudaGetDeviceCount then reports the missing driver as an error).
  target_link_libraries(${target} PRIVATE CUDA::cudart_static)
  batchbloom_cuda_options(${target})
endfunction()

# The installed package: a static library with the CUDA engine makes its users link the static
# CUDA runtime (CUDA::cudart_static, in the exported link interface), so the package config
# file (cmake/batchbloomConfig.cmake.in) must find it before it includes the targets:
#   if(@BATCHBLOOM_HAVE_CUDA@)
#     find_dependency(CUDAToolkit)
#   endif()

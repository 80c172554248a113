# The instruction sets of the SIMD engines and their compiler flags: the one list of them.
# Each must match what src/engine/cpu_features.cpp checks before any such code runs
# (avx2: AVX2, FMA, BMI2; avx512: those and AVX-512 F, CD, DQ, BW, VL).
set(BATCHBLOOM_ISA_FLAGS_avx2 -mavx2 -mfma -mbmi2)
set(BATCHBLOOM_ISA_FLAGS_avx512 ${BATCHBLOOM_ISA_FLAGS_avx2} -mavx512f -mavx512cd -mavx512dq -mavx512bw -mavx512vl
    # GCC 12 warns inside its own avx512fintrin.h, on the _mm512_undefined_* operands of the
    # unmasked intrinsics (GCC bug 105593).
    $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized> $<$<CXX_COMPILER_ID:GNU>:-Wno-uninitialized>)

# batchbloom_isa_sources(<target> <isa> <source>...): adds the sources to the target, compiled
# with that instruction set's flags; no other source of the target gets them, so the library
# runs (on the scalar engine) on any x86-64 CPU.
function(batchbloom_isa_sources target isa)
  if(NOT DEFINED BATCHBLOOM_ISA_FLAGS_${isa})
    message(FATAL_ERROR "batchbloom_isa_sources: unknown instruction set '${isa}'")
  endif()
  target_sources(${target} PRIVATE ${ARGN})
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "${BATCHBLOOM_ISA_FLAGS_${isa}}")
endfunction()

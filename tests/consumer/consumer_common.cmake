# What run_consumer.cmake and run_subproject.cmake share (included by both): their required
# -D variables, a clean scratch directory, one function per step that stops at the first
# failure, and the configure arguments that give the test project this tree's generator,
# compiler and flags.

# Stops the script unless every named variable is given and not empty.
function(require_variables)
  get_filename_component(script "${CMAKE_SCRIPT_MODE_FILE}" NAME)
  foreach(var ${ARGN})
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "${script}: -D${var}=... is required")
    endif()
  endforeach()
endfunction()

# SCRATCH_DIR, emptied: nothing of an earlier run can satisfy this one.
function(reset_scratch_dir)
  file(REMOVE_RECURSE "${SCRATCH_DIR}")
  file(MAKE_DIRECTORY "${SCRATCH_DIR}")
endfunction()

# Runs the command ARGN as step `step` and stops the script if it fails.
function(run step)
  list(JOIN ARGN " " cmdline)
  message(STATUS "[${step}] ${cmdline}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "[${step}] failed (${rc})")
  endif()
endfunction()

# Sets `out` to the arguments that configure PROJECT_DIR into `build` with this tree's
# generator, make program, compiler and flags.
function(project_configure_args out build)
  set(args
    -S "${PROJECT_DIR}" -B "${build}" -G "${GENERATOR}"
    "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}")
  if(NOT "${MAKE_PROGRAM}" STREQUAL "")
    list(APPEND args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
  endif()
  set(${out} ${args} PARENT_SCOPE)
endfunction()

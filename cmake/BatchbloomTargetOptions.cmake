# Options of the project's own targets (never of consumers'): warnings and sanitizers.
#
# BATCHBLOOM_SANITIZE (cache, top-level CMakeLists.txt): OFF; ON = AddressSanitizer +
# UndefinedBehaviorSanitizer; thread = ThreadSanitizer. The flags go on each target that calls
# batchbloom_target_options(), not on a directory, so they reach targets defined anywhere
# (python/, a wrapper project) the same way. The library passes the link flags on to whatever
# links it (a sanitized static library needs the runtime), so consumers' executables link.

string(TOLOWER "${BATCHBLOOM_SANITIZE}" _bb_sanitize)
set(BATCHBLOOM_SANITIZER "")
if(_bb_sanitize STREQUAL "thread")
  set(BATCHBLOOM_SANITIZER thread)
elseif(_bb_sanitize MATCHES "^(on|yes|true|y|1|address,undefined)$")
  set(BATCHBLOOM_SANITIZER address,undefined)
elseif(NOT _bb_sanitize MATCHES "^(off|no|false|n|0|)$")
  message(FATAL_ERROR "BATCHBLOOM_SANITIZE must be OFF, ON (address,undefined) or thread, not '${BATCHBLOOM_SANITIZE}'")
endif()

# The compile and link flags of the chosen sanitizer (empty without one), for the targets here
# and for tests that build a consumer project against this build.
set(BATCHBLOOM_SANITIZER_COMPILE_FLAGS "")
set(BATCHBLOOM_SANITIZER_LINK_FLAGS "")
if(BATCHBLOOM_SANITIZER STREQUAL "address,undefined")
  set(BATCHBLOOM_SANITIZER_COMPILE_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  set(BATCHBLOOM_SANITIZER_LINK_FLAGS -fsanitize=address,undefined)
elseif(BATCHBLOOM_SANITIZER STREQUAL "thread")
  set(BATCHBLOOM_SANITIZER_COMPILE_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
  set(BATCHBLOOM_SANITIZER_LINK_FLAGS -fsanitize=thread)
endif()

function(batchbloom_target_options target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
  if(BATCHBLOOM_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
  if(BATCHBLOOM_SANITIZER)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${BATCHBLOOM_SANITIZER_COMPILE_FLAGS}>)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      target_link_options(${target} INTERFACE ${BATCHBLOOM_SANITIZER_LINK_FLAGS})
    else()
      target_link_options(${target} PRIVATE ${BATCHBLOOM_SANITIZER_LINK_FLAGS})
    endif()
  endif()
endfunction()

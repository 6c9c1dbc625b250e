# cmake -DNM=<nm> -DOBJECTS=<a.o;b.o;…> -P CheckSimdObjects.cmake
#
# The objects compiled from cpp/src/kernels/simd_arch.cpp, one per instruction set. Fails when one
# defines weak (shared, linker-deduplicated) code that is not templated on its own
# instruction set: the linker could keep that copy, built with that set's instructions, for
# code every CPU runs. The set is the one its kernels_for<Arch> names.
foreach(object IN LISTS OBJECTS)
  execute_process(COMMAND ${NM} -C --defined-only ${object} OUTPUT_VARIABLE symbols
                  COMMAND_ERROR_IS_FATAL ANY)
  string(REGEX MATCH "attnlab::simd::kernels_for<([^\n]*)>\\(" _ "${symbols}")
  string(STRIP "${CMAKE_MATCH_1}" arch)
  if(arch STREQUAL "")
    message(FATAL_ERROR "${object}: no attnlab::simd::kernels_for<Arch>")
  endif()
  string(REPLACE "\n" ";" lines "${symbols}")
  set(shared "")
  foreach(line IN LISTS lines)
    # Weak code (W). Weak data (V, u) holds the same bytes whatever the instruction set.
    if(NOT line MATCHES "^[0-9a-f]* W (.*)$")
      continue()
    endif()
    set(symbol "${CMAKE_MATCH_1}")
    string(FIND "${symbol}" "${arch}" at)
    if(at EQUAL -1)
      string(APPEND shared "\n  ${symbol}")
    endif()
  endforeach()
  if(NOT shared STREQUAL "")
    message(FATAL_ERROR "${object} (${arch}) defines shared symbols:${shared}")
  endif()
  message(STATUS "${arch}: no shared symbols")
endforeach()

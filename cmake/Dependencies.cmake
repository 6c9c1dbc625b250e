# Header-only dependencies from Debian packages, as two interface targets:
# attnlab::xsimd (libxsimd-dev) and attnlab::catch2 (catch2, v2 API).
if(EMSCRIPTEN)
  # Adding /usr/include to a wasm build would shadow Emscripten's own libc headers, and
  # find_package() does not look in /usr under the Emscripten toolchain. So expose only
  # these two folders, through symlinks in the build tree.
  set(_system_headers "${CMAKE_BINARY_DIR}/system-headers")
  file(MAKE_DIRECTORY "${_system_headers}")
  foreach(_dir xsimd catch2)
    if(NOT EXISTS "/usr/include/${_dir}")
      message(FATAL_ERROR "/usr/include/${_dir} is missing: run scripts/setup.sh")
    endif()
    file(CREATE_LINK "/usr/include/${_dir}" "${_system_headers}/${_dir}" SYMBOLIC)
  endforeach()
  add_library(attnlab_system_headers INTERFACE)
  target_include_directories(attnlab_system_headers SYSTEM INTERFACE "${_system_headers}")
  add_library(attnlab::xsimd ALIAS attnlab_system_headers)
  add_library(attnlab::catch2 ALIAS attnlab_system_headers)
else()
  # Debian's xsimdConfig.cmake asks to link a non-existent libxtl, so use the headers only.
  find_path(ATTNLAB_XSIMD_INCLUDE_DIR xsimd/xsimd.hpp REQUIRED)
  add_library(attnlab_xsimd INTERFACE)
  target_include_directories(attnlab_xsimd SYSTEM INTERFACE "${ATTNLAB_XSIMD_INCLUDE_DIR}")
  add_library(attnlab::xsimd ALIAS attnlab_xsimd)
  if(ATTNLAB_BUILD_TESTS)
    find_package(Catch2 2 REQUIRED)
    add_library(attnlab::catch2 ALIAS Catch2::Catch2)
  endif()
endif()

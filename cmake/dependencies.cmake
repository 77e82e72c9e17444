# The libraries the build needs, found as CMake packages: Debian's -dev packages in the
# system, or the same packages unpacked into a prefix by `scripts/setup.sh --offline`
# (docs/offline-build.md). Every missing one is named in a single error, with its package.
#
# SCATTER_DEPS_PREFIX: a folder holding unpacked .deb files (usr/include, usr/lib/<arch>,
# usr/share/cmake). Defaults to deps/prefix once scripts/setup.sh --offline has unpacked it
# there; its packages are preferred to the system's. Empty: the system's only.

set(_scatter_default_prefix "")
if(EXISTS "${PROJECT_SOURCE_DIR}/deps/prefix/.manifest-sha256")
  set(_scatter_default_prefix "${PROJECT_SOURCE_DIR}/deps/prefix")
endif()
set(SCATTER_DEPS_PREFIX "${_scatter_default_prefix}" CACHE PATH
    "Unpacked Debian packages to build with (scripts/setup.sh --offline); empty: the system's")

if(SCATTER_DEPS_PREFIX)
  if(NOT IS_DIRECTORY "${SCATTER_DEPS_PREFIX}/usr")
    message(FATAL_ERROR "SCATTER_DEPS_PREFIX=${SCATTER_DEPS_PREFIX} has no usr/: "
                        "unpack the packages with scripts/setup.sh --offline (docs/offline-build.md)")
  endif()
  # <prefix>/usr finds usr/share/cmake/<name> and, where CMake knows the multiarch name
  # (Debian, Ubuntu), usr/lib/<arch>/cmake/<name>. Naming each usr/lib/*/cmake too finds
  # those on hosts that have no multiarch layout.
  file(GLOB _scatter_arch_cmake LIST_DIRECTORIES true "${SCATTER_DEPS_PREFIX}/usr/lib/*/cmake")
  list(PREPEND CMAKE_PREFIX_PATH "${SCATTER_DEPS_PREFIX}/usr" ${_scatter_arch_cmake})
  message(STATUS "Dependencies: ${SCATTER_DEPS_PREFIX} first, then the system")
  # The build tree's RUNPATH already names the folder of each shared library linked by
  # full path (libfmt, libbenchmark), so binaries run from the build tree find them there.
endif()

set(_scatter_missing "")
# scatter_require(<CMake package> <Debian package> [find_package arguments...])
macro(scatter_require _package _deb)
  find_package(${_package} ${ARGN} QUIET)
  if(${_package}_FOUND)
    message(STATUS "Found ${_package} ${${_package}_VERSION}: ${${_package}_DIR}")
  else()
    list(APPEND _scatter_missing "${_package} (Debian: ${_deb})")
  endif()
endmacro()

scatter_require(nlohmann_json nlohmann-json3-dev 3.10)
scatter_require(fmt libfmt-dev)
scatter_require(CLI11 libcli11-dev)
if(EXISTS "${PROJECT_SOURCE_DIR}/bench/CMakeLists.txt")
  scatter_require(benchmark libbenchmark-dev)
endif()
# include(CTest) comes later and defines BUILD_TESTING ON unless the cache says OFF.
if(NOT DEFINED BUILD_TESTING OR BUILD_TESTING)
  scatter_require(GTest libgtest-dev)
endif()

if(_scatter_missing)
  list(JOIN _scatter_missing "\n  " _scatter_list)
  message(FATAL_ERROR "Missing dependencies:\n  ${_scatter_list}\n"
    "Install them (scripts/setup.sh does), or build without a package registry from "
    "the .deb files of scripts/fetch-deps.sh: scripts/setup.sh --offline (docs/offline-build.md).")
endif()

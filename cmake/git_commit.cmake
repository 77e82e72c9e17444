# Run at build time (not only at configure time), so that reports name the commit the
# binary was built from: writes DST with the commit, "+dirty" when the tree had
# uncommitted changes, and leaves DST untouched when nothing changed.
# SCATTER_GIT_COMMIT in the environment names it instead: a copy of the tree whose .git is
# missing or stale (scripts/gpu-check.sh passes its COMMIT).
if(DEFINED ENV{SCATTER_GIT_COMMIT} AND NOT "$ENV{SCATTER_GIT_COMMIT}" STREQUAL "")
  set(commit "$ENV{SCATTER_GIT_COMMIT}")
else()
  execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY ${SRC}
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    set(commit "unknown")
  else()
    execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC}
                    OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT changes STREQUAL "")
      string(APPEND commit "+dirty")
    endif()
  endif()
endif()
set(text "#pragma once\n// Generated at build time by cmake/git_commit.cmake.\n#include <string_view>\nnamespace scatter {\ninline constexpr std::string_view kGitCommit = \"${commit}\";\n}  // namespace scatter\n")
if(EXISTS ${DST})
  file(READ ${DST} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${DST} "${text}")
endif()

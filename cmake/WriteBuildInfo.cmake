# Script mode: cmake -DSOURCE_DIR=... -DOUTPUT=... -P WriteBuildInfo.cmake
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT commit)
  set(commit "unknown")
else()
  # Only changes to what is compiled into the binary (the sources and the embedded schemas) make it
  # "-dirty": an edited README or results file does not change the code that produced a report.
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no --
                          src models cmake CMakeLists.txt docs/*.schema.json
    OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(dirty)
    string(APPEND commit "-dirty")
  endif()
endif()
set(content "// Generated at build time; do not edit.\n#include \"measure/build_info.h\"\nnamespace ampbench {\nconst char* git_commit() { return \"${commit}\"; }\n}  // namespace ampbench\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUTPUT}" "${content}")
endif()

# Compiles go through ccache when it is installed (scripts/setup installs it on Debian), so that a second
# clone, a fresh build folder or CI's next run reuses the objects and precompiled headers it already made.
# Paths under the source tree are hashed relative to it, so clones in other folders share the cache; the
# sloppiness is what ccache needs for precompiled headers and for sources checked out moments ago.
option(AMPBENCH_CCACHE "Compile through ccache when it is installed" ON)
find_program(AMPBENCH_CCACHE_PROGRAM ccache)
if(AMPBENCH_CCACHE AND AMPBENCH_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER
    ${CMAKE_COMMAND} -E env "CCACHE_BASEDIR=${CMAKE_SOURCE_DIR}"
    "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
    ${AMPBENCH_CCACHE_PROGRAM})
  message(STATUS "Compiler cache: ${AMPBENCH_CCACHE_PROGRAM}")
endif()

# The executables that train (ampbench, instrumentation_overhead) link gperftools' tcmalloc where it is
# installed (scripts/setup installs it on Debian). On the CPU every op of a training step allocates its
# outputs and temporaries from malloc and frees them again; tcmalloc's per-thread caches serve those for
# less than glibc's malloc (see src/measure/host_malloc.h). Without it, glibc's malloc is tuned instead at
# start-up; the report's environment.host_malloc says which one ran.
option(AMPBENCH_TCMALLOC "Link the training executables with tcmalloc_minimal when it is installed" ON)
if(AMPBENCH_TCMALLOC)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(AMPBENCH_TCMALLOC_LIB QUIET IMPORTED_TARGET libtcmalloc_minimal)
  endif()
  if(AMPBENCH_TCMALLOC_LIB_FOUND)
    set(AMPBENCH_LINKS_TCMALLOC ON)
    message(STATUS "Host malloc: tcmalloc_minimal ${AMPBENCH_TCMALLOC_LIB_VERSION}")
  else()
    message(STATUS "Host malloc: tcmalloc_minimal not found (libgoogle-perftools-dev), glibc's malloc is tuned instead")
  endif()
endif()

function(ampbench_link_host_malloc target)
  if(AMPBENCH_LINKS_TCMALLOC)
    # --no-as-needed: the executable calls no tcmalloc symbol by name, yet must load it to replace malloc.
    target_link_options(${target} PRIVATE "LINKER:--no-as-needed")
    target_link_libraries(${target} PRIVATE PkgConfig::AMPBENCH_TCMALLOC_LIB)
  endif()
endfunction()

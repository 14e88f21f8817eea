# Writes the git commit into a generated source at every build, touching it only when it changed, so that
# a report names the exact code that produced it without forcing rebuilds.
set(AMPBENCH_BUILD_INFO_CPP "${CMAKE_CURRENT_BINARY_DIR}/generated/build_info.cpp")
add_custom_target(ampbench_build_info
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR} -DOUTPUT=${AMPBENCH_BUILD_INFO_CPP}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/WriteBuildInfo.cmake
  BYPRODUCTS ${AMPBENCH_BUILD_INFO_CPP}
  COMMENT "Recording the git commit")

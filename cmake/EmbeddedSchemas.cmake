# Embeds docs/'s schema files into a generated source (util/embedded_schemas.h), so that ampbench checks the
# reports it reads back against the schemas its docs publish; remade when a schema changes.
set(AMPBENCH_SCHEMA_FILES report.schema.json sweep.schema.json max_batch.schema.json)
set(AMPBENCH_EMBEDDED_SCHEMAS_CPP "${CMAKE_CURRENT_BINARY_DIR}/generated/embedded_schemas.cpp")
list(TRANSFORM AMPBENCH_SCHEMA_FILES PREPEND "${CMAKE_CURRENT_SOURCE_DIR}/docs/" OUTPUT_VARIABLE _schema_paths)
string(JOIN "|" _schema_names ${AMPBENCH_SCHEMA_FILES})  # a CMake list's ";" would end the shell command
add_custom_command(
  OUTPUT ${AMPBENCH_EMBEDDED_SCHEMAS_CPP}
  COMMAND ${CMAKE_COMMAND} -DDOCS=${CMAKE_CURRENT_SOURCE_DIR}/docs "-DSCHEMAS=${_schema_names}"
          -DOUTPUT=${AMPBENCH_EMBEDDED_SCHEMAS_CPP} -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/WriteEmbeddedSchemas.cmake
  DEPENDS ${_schema_paths} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/WriteEmbeddedSchemas.cmake
  VERBATIM
  COMMENT "Embedding the report schemas")
set_source_files_properties(${AMPBENCH_EMBEDDED_SCHEMAS_CPP} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)

# A room compiles as one unit: loading LibTorch's precompiled header (some 750 MB) takes the compiler about 12 s,
# longer than most files take after it, and a unit per file paid it 143 times (results/build).
#
# The project writes the units itself rather than use CMake's UNITY_BUILD: CMake (before 3.32) names each
# source in a unit by its absolute path, so a clone in another folder had a different unit and missed the
# compiler cache's direct mode. Here a unit names its sources by their path from the checkout's root, which is
# on the include path, and reads the same in every clone. file(CONFIGURE) rewrites a unit only when its list
# changes, so an unchanged room is never recompiled.
#
# ampbench_room_unit(TARGET ROOM SOURCE...) adds the unit `units/TARGET/ROOM.cpp` to TARGET and its sources
# beside it as HEADER_FILE_ONLY (listed, not compiled alone). The files of a room share a unit: two of them
# cannot give the same name to different things, even in anonymous namespaces. A per-file compile property
# goes on the unit (ampbench_room_unit_path).
function(ampbench_room_unit_path out target room)
  set(${out} "${CMAKE_CURRENT_BINARY_DIR}/units/${target}/${room}.cpp" PARENT_SCOPE)
endfunction()

function(ampbench_room_unit target room)
  set(content "// Written by cmake/RoomUnits.cmake: the ${room} room of ${target}, compiled as one unit.\n")
  foreach(source IN LISTS ARGN)
    file(RELATIVE_PATH from_root "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/${source}")
    string(APPEND content "#include \"${from_root}\"\n")
  endforeach()
  ampbench_room_unit_path(unit ${target} ${room})
  file(CONFIGURE OUTPUT "${unit}" CONTENT "${content}" @ONLY)
  set_source_files_properties(${ARGN} PROPERTIES HEADER_FILE_ONLY ON)
  target_sources(${target} PRIVATE ${ARGN} "${unit}")
endfunction()

# Finds LibTorch, in this order: an explicit Torch_DIR or CMAKE_PREFIX_PATH; the torch in the project's
# own venv (.venv); any python3's torch. Provides the interface target `ampbench_torch`.

function(_ampbench_torch_prefix_from python out_var)
  if(EXISTS "${python}" OR python STREQUAL "python3")
    execute_process(
      COMMAND "${python}" -c "import torch; print(torch.utils.cmake_prefix_path)"
      OUTPUT_VARIABLE prefix OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0 AND prefix)
      set(${out_var} "${prefix}" PARENT_SCOPE)
    endif()
  endif()
endfunction()

find_package(Torch QUIET)
if(NOT Torch_FOUND)
  foreach(python "${CMAKE_CURRENT_SOURCE_DIR}/.venv/bin/python" "python3")
    _ampbench_torch_prefix_from("${python}" prefix)
    if(prefix)
      find_package(Torch REQUIRED PATHS "${prefix}" NO_DEFAULT_PATH)
      break()
    endif()
  endforeach()
endif()
if(NOT Torch_FOUND)
  message(FATAL_ERROR "LibTorch not found: set Torch_DIR, or run scripts/setup to install the pinned CPU torch")
endif()
message(STATUS "LibTorch ${Torch_VERSION} from ${Torch_DIR}")

# LibTorch ships its own fmt headers, newer than the fmt that Debian's spdlog is built against. Searching
# LibTorch's include folders after the system ones (-idirafter) makes <fmt/...> resolve to the fmt that
# matches libfmt, while LibTorch's own headers are still found.
set(_torch_includes "")
foreach(target torch torch_cpu c10 torch_cuda c10_cuda)
  if(TARGET ${target})
    get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
    if(dirs)
      list(APPEND _torch_includes ${dirs})
      set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "")
    endif()
  endif()
endforeach()
list(REMOVE_DUPLICATES _torch_includes)
add_library(ampbench_torch INTERFACE)
target_link_libraries(ampbench_torch INTERFACE ${TORCH_LIBRARIES})
foreach(dir ${_torch_includes})
  target_compile_options(ampbench_torch INTERFACE "SHELL:-idirafter ${dir}")
endforeach()
if(TORCH_CUDA_LIBRARIES)
  set(AMPBENCH_WITH_CUDA ON)
else()
  set(AMPBENCH_WITH_CUDA OFF)
endif()

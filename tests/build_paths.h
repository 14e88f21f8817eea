#pragma once
// This build's checkout, binary and choices, for the tests that need them. They are defined in a source
// CMake writes into the build folder, so that the tests themselves compile the same in every clone and
// come from the compiler cache (cmake/CompilerCache.cmake).

#include <string>

namespace ampbench::testing {

std::string source_dir();                    // the checkout being built
std::string ampbench_binary();               // the ampbench built beside these tests
std::string graph_runner_overhead_binary();  // benchmarks/graph_runner_overhead, built beside them
std::string torch_choice();                  // how the set-up chose this build's LibTorch
std::string test_python();                   // the Python whose torch the parity tests compare against

}  // namespace ampbench::testing

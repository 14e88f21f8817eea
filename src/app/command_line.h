#pragma once

#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>

#include "app/exit_codes.h"
#include "util/printable.h"

namespace ampbench::app {

// Parses the command line into the options bound on `app`. Returns the exit code to stop with: 0 after
// --help or --version (printed by CLI11), kExitUsage after a parse error, told in one line on stderr; nothing
// when the program should go on. Shared by ampbench and its benchmarks, so that both refuse alike.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end parsing by an exception too, with a success code: CLI11 prints them.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    // CLI11 quotes what was typed: its control bytes escaped and its length bounded, as every error line.
    std::cerr << "usage error: " << util::printable(e.what(), 400) << " (see --help)\n";
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace ampbench::app

#pragma once

#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>

namespace ampbench::cli {

// The exit code of bad input: a usage error or a config that does not hold.
constexpr int kExitUsage = 2;

// Parses the command line into the options bound on `app`. Returns the exit code to stop with: 0 after
// --help or --version (printed), kExitUsage after a parse error, told in one line on stderr; nothing
// when the program should go on. Shared by ampbench and its benchmarks, so that both refuse alike.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "usage error: " << e.what() << " (see --help)\n";
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace ampbench::cli

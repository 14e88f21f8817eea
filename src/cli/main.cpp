// The ampbench program: declares its commands, runs the one the command line chose, and maps what a
// command throws to one line on stderr and an exit code (app/exit_codes.h), the same way for all of them.
// Each command lives in its own file; this one only chooses.

#include <iostream>

#include <c10/util/Exception.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "app/command_line.h"
#include "app/exit_codes.h"
#include "app/stdout_export.h"
#include "app/terminal.h"
#include "cli/cli_options.h"
#include "cli/compare_command.h"
#include "cli/experiment_command.h"
#include "cli/merge_command.h"
#include "measure/host_malloc.h"
#include "run/benchmark.h"
#include "util/output_files.h"

namespace {

using namespace ampbench;

void configure_logging(bool quiet) {
  auto logger = spdlog::stderr_color_mt("ampbench");
  // spdlog colours any terminal; NO_COLOR must turn that off too.
  auto sink = std::static_pointer_cast<spdlog::sinks::stderr_color_sink_mt>(logger->sinks().front());
  sink->set_color_mode(app::colour_for(stderr) ? spdlog::color_mode::always : spdlog::color_mode::never);
  logger->set_pattern("%^[%H:%M:%S %l]%$ %v");
  logger->set_level(quiet ? spdlog::level::warn : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

// A refusal (bad input, a command line that asks for the impossible, an output that cannot be written, a
// fault that cannot fire) is one line and exit 2; any other error one line and exit 1.
int run_command(cli::Command& command) {
  try {
    return command.run();
  } catch (const util::InputError& e) {
    std::cerr << command.input_error_line(e) << "\n";
    return app::kExitUsage;
  } catch (const cli::UsageError& e) {
    std::cerr << "usage error: " << e.what() << "\n";
    return app::kExitUsage;
  } catch (const util::OutputError& e) {
    std::cerr << "output error: " << e.what() << "\n";
    return app::kExitUsage;
  } catch (const run::UnreachableFault& e) {
    std::cerr << "usage error: --inject-fault: " << e.what() << "\n";
    return app::kExitUsage;
  } catch (const c10::Error& e) {
    std::cerr << "error: " << e.what_without_backtrace() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return app::kExitRuntimeFailure;
}

}  // namespace

int main(int argc, char** argv) {
  app::guard_standard_streams();  // before anything opens a file
  measure::settle_host_malloc();  // before LibTorch allocates anything
  CLI::App program{"", "ampbench"};
  cli::CliOptions options;
  cli::add_options(program, options);
  cli::CompareCommand compare(program);
  cli::MergeCommand merge(program);
  if (auto exit_code = app::parse_command_line(program, argc, argv)) return app::finish_stdout(*exit_code);
  configure_logging(options.quiet);
  cli::ExperimentCommand experiment(options);
  if (compare.chosen()) return app::finish_stdout(run_command(compare));
  if (merge.chosen()) return app::finish_stdout(run_command(merge));
  return app::finish_stdout(run_command(experiment));
}

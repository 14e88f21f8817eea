#include "cli/compare_command.h"

#include <cmath>
#include <iostream>
#include <limits>

#include "app/exit_codes.h"
#include "app/stdout_export.h"
#include "cli/cli_options.h"
#include "util/printable.h"

namespace ampbench::cli {
namespace {

// A finite number from `min` to `max`. CLI11's own range checks let NaN through (every comparison with
// it is false), and inf past NonNegativeNumber: a limit of either judges nothing.
CLI::Validator finite_between(double min, double max, const std::string& range) {
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        double value = 0;
        if (CLI::detail::lexical_cast(text, value) && std::isfinite(value) && value >= min && value <= max)
          return "";
        return "a finite number " + range + " expected, got \"" + text.substr(0, 40) + "\"";
      },
      "FINITE " + range);
}

}  // namespace

CompareCommand::CompareCommand(CLI::App& app) {
  command_ = app.add_subcommand(
      "compare",
      "compare two report.json files mode by mode; exit 3 when NEW regressed past a limit beyond the "
      "noise, lacks a mode's figures, or is partial; exit 5 when a change past a limit had one trial on a "
      "side to judge it by");
  command_->add_option("BASE", request_.base_path, "baseline report.json")
      ->required()
      ->check(CLI::ExistingFile);
  command_->add_option("NEW", request_.new_path, "new report.json")->required()->check(CLI::ExistingFile);
  command_
      ->add_option("--max-slowdown", request_.limits.max_slowdown,
                   "largest allowed drop in samples/s, as a fraction (0.05 = 5%; default 0.07)")
      ->check(finite_between(0.0, 1.0, "from 0 to 1"));
  command_
      ->add_option("--max-memory-increase", request_.limits.max_memory_increase,
                   "largest allowed rise in peak memory, as a fraction (default 0.07)")
      ->check(finite_between(0.0, std::numeric_limits<double>::max(), "of 0 or more"));
  command_
      ->add_option("--max-val-loss-increase", request_.limits.max_val_loss_increase,
                   "largest allowed rise in final validation loss (absolute; default: BASE's "
                   "precision.fidelity_tolerance)")
      ->check(finite_between(0.0, std::numeric_limits<double>::max(), "of 0 or more"));
  command_
      ->add_option("--markdown", request_.markdown_path,
                   "also write the comparison as Markdown here (- for stdout)")
      ->check(kOutputFile);
  command_
      ->add_option(
          "--export-json", request_.json_path,
          "also write the comparison as JSON here (- for stdout), its verdicts named as the console's")
      ->check(kOutputFile);
  command_->add_flag("--force", request_.force, "compare reports of different models or configs anyway");
}

int CompareCommand::run() {
  const auto outcome = compare::run_compare(request_);
  // With an export on stdout, stdout carries only that export.
  if (outcome.stdout_export) {
    if (const auto lost = app::write_stdout_export(*outcome.stdout_export)) {
      std::cerr << outcome.console << "error: " << *lost << "\n";
      return app::kExitRuntimeFailure;
    }
  }
  (outcome.stdout_export ? std::cerr : std::cout) << outcome.console;
  return app::exit_code_for(outcome);
}

std::string CompareCommand::input_error_line(const util::InputError& error) const {
  return "compare error: " + util::printable(error.what(), 400);
}

}  // namespace ampbench::cli

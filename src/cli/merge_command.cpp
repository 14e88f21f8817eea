#include "cli/merge_command.h"

#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

#include "app/exit_codes.h"
#include "sweep/sweep_render.h"
#include "util/printable.h"

namespace ampbench::cli {

MergeCommand::MergeCommand(CLI::App& app) {
  command_ = app.add_subcommand(
      "merge",
      "join the sweep folders of a sweep's shards (--shard K/N) into one sweep report; refuses folders of "
      "different sweeps or experiments, a point run twice or not finished, and points no folder ran");
  command_->add_option("FOLDERS", request_.folders, "every shard's sweep folder")
      ->required()
      ->check(CLI::Validator(
          [](std::string& path) -> std::string {
            std::error_code error;
            if (std::filesystem::is_directory(path, error)) return "";
            if (!std::filesystem::exists(path, error)) return "no folder " + util::printable(path, 200);
            return util::printable(path, 200) + " is not a folder: give each shard's sweep folder";
          },
          "FOLDER"));
  command_->add_option("--out", request_.out_dir, "folder for the merged sweep folder (default results)");
  command_->add_flag(
      "--force", request_.force,
      "merge points that ran on other builds, machines or archives, naming each in the report");
}

int MergeCommand::run() {
  const auto outcome = sweep::run_merge(request_);
  std::cout << sweep::to_console(outcome.report) << "sweep reports: " << outcome.folder.string() << "\n";
  return app::kExitSuccess;
}

std::string MergeCommand::input_error_line(const util::InputError& error) const {
  return "merge error: " + util::printable(error.what(), 400);
}

}  // namespace ampbench::cli

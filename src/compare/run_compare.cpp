#include "compare/run_compare.h"

#include "compare/compare_render.h"
#include "util/bounded_file.h"
#include "util/json_reader.h"
#include "util/output_files.h"

namespace ampbench::compare {

namespace {

nlohmann::json read_report(const std::string& path) {
  const auto text = util::read_bounded_file(path, util::kMaxReportBytes, "report");
  return util::parse_json_file(text, path);
}

void check_outputs(const CompareRequest& request) {
  if (request.markdown_path == "-" && request.json_path == "-")
    throw util::OutputError("--markdown - and --export-json - both ask for stdout; give one of them a file");
  std::vector<util::NamedPath> files;
  for (const auto& [name, path] :
       {std::pair{"--markdown", &request.markdown_path}, std::pair{"--export-json", &request.json_path}}) {
    if (path->empty() || *path == "-") continue;
    files.push_back({name, *path});
  }
  try {
    for (const auto& file : files) util::check_file_writable(file.path);
    util::check_distinct_files(files, {{"BASE", request.base_path}, {"NEW", request.new_path}});
  } catch (const std::exception& e) {
    throw util::OutputError(e.what());
  }
}

// Writes `text` to its path, or returns it for stdout.
std::optional<std::string> deliver(const std::string& path, const std::string& text) {
  if (path == "-") return text;
  if (!path.empty()) util::write_file_atomically(path, text);
  return std::nullopt;
}

}  // namespace

CompareOutcome run_compare(const CompareRequest& request) {
  CompareOutcome outcome;
  outcome.comparison = compare_reports(read_report(request.base_path), read_report(request.new_path),
                                       request.limits, request.force, request.base_path, request.new_path);
  check_outputs(request);
  outcome.console = comparison_to_console(outcome.comparison);
  auto markdown = deliver(request.markdown_path, comparison_to_markdown(outcome.comparison));
  auto json = deliver(request.json_path, comparison_to_json(outcome.comparison).dump(2) + "\n");
  outcome.stdout_export = markdown ? markdown : json;
  return outcome;
}

}  // namespace ampbench::compare

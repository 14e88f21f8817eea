#pragma once
// The ampbench binary as a user runs it: the fixture of the end-to-end CLI tests (test_cli_*.cpp).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <nlohmann/json.hpp>

#include "build_paths.h"
#include "data_files.h"
#include "max_batch/max_batch_render.h"
#include "measure/cpu_features.h"
#include "measure/environment.h"
#include "read_file.h"
#include "render/csv_report.h"
#include "report/report.h"
#include "sweep/sweep_render.h"
#include "temp_dir_test.h"

namespace ampbench::testing {

namespace fs = std::filesystem;

struct Result {
  int exit_code;
  std::string out;
  std::string err;
};

// Every report of this ampbench's schema version under `dir`: its run folders' report.json and the exports
// (JSON with a schema_version and trials), its sweeps' sweep.json and its --max-batch max_batch.json. Reports
// of other versions are ones a test planted.
inline std::vector<fs::path> reports_under(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code error;
  for (fs::recursive_directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    if (!it->is_regular_file() || it->path().extension() != ".json") continue;
    auto doc = nlohmann::json::parse(std::ifstream(it->path()), nullptr, false);
    const bool report = it->path().filename() == "report.json" ||
                        (doc.is_object() && doc.contains("schema_version") && doc.contains("trials"));
    if (report && doc.is_object() && doc.value("schema_version", 0) == report::kSchemaVersion)
      out.push_back(it->path());
    if (it->path().filename() == "sweep.json" && doc.is_object() &&
        doc.value("sweep_schema_version", 0) == sweep::kSweepSchemaVersion)
      out.push_back(it->path());
    if (it->path().filename() == "max_batch.json" && doc.is_object() &&
        doc.value("max_batch_schema_version", 0) == max_batch::kMaxBatchSchemaVersion)
      out.push_back(it->path());
  }
  return out;
}

inline nlohmann::json read_json(const fs::path& path) { return nlohmann::json::parse(read_file(path)); }

inline size_t line_count(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

class Cli : public TempDirTest {
 protected:
  // Whatever a test checked, each report it left must be valid against docs/report.schema.json,
  // docs/sweep.schema.json or docs/max_batch.schema.json (scripts/validate_report.py, with jsonschema),
  // diverged, failed and partial runs included.
  void TearDown() override {
    std::string files;
    for (const auto& path : reports_under(dir_)) files += " '" + path.string() + "'";
    if (!files.empty()) {
      const auto command =
          test_python() + " " + source_dir() + "/scripts/validate_report.py" + files + " 2>&1";
      FILE* pipe = popen(command.c_str(), "r");
      std::string out;
      char buffer[4096];
      size_t n;
      while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
      EXPECT_EQ(pclose(pipe), 0) << "reports that do not match their schema:\n" << out;
    }
    TempDirTest::TearDown();
  }

  // `shell_prefix` runs before ampbench in the same shell, e.g. to set a limit for it alone.
  Result run(const std::string& args, const std::string& shell_prefix = "") {
    return run_binary(ampbench_binary(), args, shell_prefix);
  }
  // `binary` with `args`, as `run` runs ampbench.
  Result run_binary(const std::string& binary, const std::string& args,
                    const std::string& shell_prefix = "") {
    auto err_path = dir_ / "stderr.txt";
    std::string command = shell_prefix + binary + " " + args + " 2>" + err_path.string();
    FILE* pipe = popen(command.c_str(), "r");
    std::string out;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, read_file(err_path)};
  }

  fs::path write_config(const nlohmann::json& config, const std::string& name = "config.json") {
    auto path = dir_ / name;
    std::ofstream(path) << config.dump(2);
    return path;
  }

  // The tests' tiny experiment (tests/tiny_config.json, which the shell tests run too), into out/.
  nlohmann::json tiny_config() {
    std::ifstream in(fs::path(source_dir()) / "tests" / "tiny_config.json");
    auto config = nlohmann::json::parse(in);
    config["output"] = {{"dir", (dir_ / "out").string()}};
    return config;
  }

  // An fp32-only run of the tiny config, one epoch, exported to base.json; returns the config's path.
  std::string write_fp32_base_report() {
    auto config = tiny_config();
    config["precision"] = {{"modes", {"fp32"}}};
    auto path = write_config(config).string();
    EXPECT_EQ(
        run("--config " + path + " -q --epochs 1 --export-json " + (dir_ / "base.json").string()).exit_code,
        0);
    return path;
  }

  // `args` after --config `config` refused as a refusal must be: exit 2, `expected` in its one line on
  // stderr, nothing written under out/.
  void expect_refused(const std::string& config, const std::string& args, const std::string& expected) {
    SCOPED_TRACE(args);
    auto result = run("--config " + config + " " + args);
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find(expected), std::string::npos) << result.err;
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_FALSE(fs::exists(dir_ / "out"));
  }

  std::vector<fs::path> run_folders() {
    std::vector<fs::path> out;
    if (!fs::exists(dir_ / "out")) return out;
    for (const auto& entry : fs::directory_iterator(dir_ / "out")) out.push_back(entry.path());
    return out;
  }
};

}  // namespace ampbench::testing

#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampbench::compare {

// What `compare` reads of one mode in a report.json.
struct ModeFigures {
  std::string mode;
  bool emulated = false;            // the summary's (before schema 19: the mode's row, emulated everywhere)
  double samples_per_second = 0;    // the summary's median
  std::vector<double> trial_rates;  // each finished timed trial's samples/s over its compared epochs
  int64_t peak_bytes = 0;           // the summary's: the largest over trials
  double val_loss = 0;              // the summary's: the median over trials
  std::map<uint64_t, double> val_loss_by_seed;  // final val loss per seed (timed trials' median, fidelity)
};

struct ReportFigures {
  std::string config_hash;
  std::string model;
  double fidelity_tolerance = 0.05;  // the config's precision.fidelity_tolerance
  bool complete = true;
  std::string stopped_by;
  std::vector<ModeFigures> modes;
  // For each mode with a trial that did not finish: that trial's status, and its detail when it has one.
  std::map<std::string, std::string> unfinished;
};

// Reads just what a comparison needs, strictly, so a file that is not an ampbench report gets a clear
// util::InputError naming `name` and where it differs. Every schema version (1 to the current) has the
// summary's figures; the per-trial and per-seed figures are read where the report has them.
ReportFigures read_report_figures(const nlohmann::json& document, const std::string& name);

}  // namespace ampbench::compare

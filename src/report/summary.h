#pragma once

#include <map>
#include <optional>
#include <vector>

#include "report/report.h"

namespace ampbench::report {

// What the summary needs beside the trials.
struct SummaryInputs {
  double fidelity_tolerance = 0.05;  // largest |val loss - fp32's| that passes
  std::map<amp::PrecisionMode, double> grad_cosine_vs_fp32;
  std::optional<double> train_flops_per_sample;      // analytical: 3 x 2 x forward multiply-adds
  std::map<amp::PrecisionMode, double> peak_tflops;  // the device's dense peak per mode, where known
};

// Summarises every mode over its finished trials and compares it with fp32: throughput speed-up
// (median over trials, with a bootstrap interval), peak- and activation-memory ratios, the final
// validation loss's difference and the fidelity verdict, and achieved TFLOP/s and MFU. A pure function of the
// measurements, in the order the modes first ran.
std::vector<ModeSummary> summarize(const std::vector<TrialRecord>& trials, const SummaryInputs& inputs = {});

// The modes in the order they first ran, finished or not: the order of every table and summary, so that
// a mode whose first trial failed keeps its place.
std::vector<amp::PrecisionMode> modes_in_run_order(const std::vector<TrialRecord>& trials);

}  // namespace ampbench::report

#pragma once

#include <map>
#include <vector>

#include "report/report.h"

namespace ampbench::report {

// What the fidelity verdict needs beside the trials.
struct FidelityInputs {
  double tolerance = 0.05;  // largest |val loss - fp32's| that passes
  std::map<amp::PrecisionMode, double> grad_cosine_vs_fp32;
};

// Summarises every mode over its finished trials and compares it with fp32: throughput speed-up
// (median over trials, with a bootstrap interval), peak- and activation-memory ratios, the final
// validation loss's difference and the fidelity verdict. A pure function of the measurements, in the
// order the modes first ran.
std::vector<ModeSummary> summarize(const std::vector<TrialRecord>& trials,
                                   const FidelityInputs& fidelity = {});

}  // namespace ampbench::report

#pragma once

#include <string>

#include "report/report.h"

namespace ampbench::report {

// One row per mode x epoch under a fixed header (see kCsvColumns); an undefined value is an empty
// cell, never 0.
std::string to_csv(const RunReport& report);

inline constexpr const char* kCsvColumns =
    "mode,epoch,status,seconds,timed_steps,timed_samples,samples_per_second,train_loss,val_loss,val_accuracy,"
    "peak_bytes,memory_probe,loss_scale,skipped_steps";

}  // namespace ampbench::report

#pragma once

#include <string>

#include "report/report.h"

namespace ampbench::report {

// Tidy CSV: one row per trial x epoch under a fixed header (kCsvColumns), and one row with an empty
// epoch for a trial that finished no epoch (skipped, or stopped in its first), its status and detail
// saying why; an undefined value is an empty cell, never 0. The timed trials first (purpose "timed"),
// then the fidelity trials (purpose "fidelity", trial = the seed's index); seed is each trial's.
std::string to_csv(const RunReport& report);

// One row per summarised mode: the figures each verdict was judged on beside the verdict, for spreadsheets
// and CI jobs (summary.csv in the run folder).
std::string to_summary_csv(const RunReport& report);

inline constexpr const char* kSummaryCsvColumns =
    "mode,trials,samples_per_second_median,speedup_vs_fp32,speedup_low_95,speedup_high_95,peak_bytes,"
    "memory_ratio_vs_fp32,activation_ratio_vs_fp32,fidelity_seeds,val_loss_mean,val_loss_stddev,"
    "val_accuracy_mean,noise_floor,paired_seeds,val_loss_delta_mean,delta_low_95,delta_high_95,"
    "fidelity_tolerance,fidelity,seeds_needed,low_precision_flop_share";

// The profiled pass, tidy (profile.csv in the run folder, when there is one): per mode, a row per
// (phase, op class), per top op and per fp32 matrix op under autocast, then the framework overhead and
// the step; times are seconds per profiled step, share of the step, ratio to fp32's.
std::string to_profile_csv(const RunReport& report);

inline constexpr const char* kProfileCsvColumns =
    "mode,row,phase,op_class,op,seconds,share,ratio_vs_fp32,dtypes,shapes,calls,matmul_flops";

inline constexpr const char* kCsvColumns =
    "mode,trial,epoch,status,seconds,timed_steps,timed_samples,samples_per_second,step_p50_s,step_p90_s,"
    "step_p99_s,train_loss,val_loss,val_accuracy,val_perplexity,peak_bytes,memory_probe,loss_scale,skipped_"
    "steps,static_"
    "bytes,"
    "activation_peak_bytes,tf32,channels_last,detail,purpose,seed";

}  // namespace ampbench::report

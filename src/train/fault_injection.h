#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amp/precision_mode.h"

namespace ampbench::train {

// A planted fault, for testing that nothing measured is lost when a run goes wrong (--inject-fault).
struct FaultInjection {
  enum class Kind {
    nan,
    flaky_nan,
    overflow,
    nan_gradient,
    oom,
    error,
    exception,
    stop_signal,
    sigstop,
    slow,
    fp8_scale
  };
  Kind kind = Kind::nan;
  int signal = 0;  // stop_signal: the one raised
  amp::PrecisionMode mode = amp::PrecisionMode::fp32;
  int64_t step = 1;   // 1-based, counted over the trial's epochs
  int64_t trial = 0;  // 1-based; 0: in every trial of the mode
};

// "KIND:MODE:STEP", e.g. "nan:bf16:5" (the loss becomes NaN), "flaky:bf16:5" (the same, but a divergence
// replay does not see it, as a non-deterministic op's failure may not repeat), "overflow:fp16:3" (the model's
// last weight matrix is scaled until its largest magnitude is kPlantedWeightMagnitude: its layer's output
// overflows fp16), "nangrad:bf16:3" (a square root of a zero that depends on the last weight matrix joins the
// loss times 0: the loss keeps its value and the square root's backward divides 0 by 0), "oom:fp16:3" (an
// out-of-memory error is raised), "error:fp16:2" (any other error, as a failing kernel raises it),
// "exception:fp16:2" (an exception that is not LibTorch's, as oneDNN's dnnl::error or a library's own),
// "sigint:fp32:2" (the signal is raised; also sigterm, sighup, sigquit), "sigstop:fp32:2" (the process stops
// itself there until it is sent SIGCONT: a known point for a test to act on a run), "slow:fp16:1" (that step
// and every later one of the mode take kSlowStepSeconds longer: a planted slow mode), "fp8scale:fp8:1" (from
// that step on, an fp8 mode's float8 scales are kPlantedScaleFactor times too large: a planted broken scale);
// "KIND:MODE:STEP:TRIAL" plants it in that trial only (with repeats), and in the fidelity trial of that seed
// index (with fidelity seeds), e.g. "error:fp32:2:1". nullopt when malformed.
std::optional<FaultInjection> parse_fault_injection(std::string_view spec);

// What a planted slow fault adds to each step it fires at: far more than a small model's step takes, so
// that the mode runs under half fp32's speed even where a busy machine stretches fp32's steps to 30 ms.
inline constexpr double kSlowStepSeconds = 0.25;

// Whether `fault` fires at `global_step` (1-based over the trial) of trial `trial` of `mode`: a slow or
// fp8-scale fault from its step on, the others at it.
bool fires_at(const FaultInjection& fault, amp::PrecisionMode mode, int64_t trial, int64_t global_step);

// Whether a divergence replay plants it too: the numeric faults, which stand for failures a deterministic
// replay repeats; not a flaky NaN, nor the faults that stop a trial rather than change its numbers.
bool replayed(const FaultInjection& fault);

// What a planted overflow scales the last weight matrix's largest magnitude to: finite in fp16 (65504), while
// the layer's outputs, sums of many such products, are not.
inline constexpr double kPlantedWeightMagnitude = 60000;

// What a planted broken float8 scale multiplies the scales by: almost every value saturates.
inline constexpr double kPlantedScaleFactor = 1e6;

// Why the fault would never fire in a run of these modes (the ones that run, not those skipped) with this
// many steps in each trial and this many trials of each mode (its mode does not run, its step lies past
// the trial's end, or its trial past the repeats), so that a test cannot pass by missing it; nullopt
// when it fires.
std::optional<std::string> why_fault_misses(const FaultInjection& fault,
                                            const std::vector<amp::PrecisionMode>& modes,
                                            int64_t steps_per_trial, int64_t repeats);

}  // namespace ampbench::train

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/ScalarType.h>

#include "amp/operand_figures.h"
#include "amp/precision_mode.h"
#include "numerics/layer_ranges.h"

namespace ampbench::train {

// What the untimed passes measured, as plain data for the reports: the numerics pass (numerics_pass.h) with
// each layer's departure from fp32 (departure.h), and the pure bf16 modes' lost-update audit
// (update_audit.h).

// How far one linear layer of a mode ran from fp32 at the sampled steps of its numerics pass, against an
// fp32 copy of the model with the same weights on the same batch (the same random numbers drawn): its
// output's error, its weight gradient's cosine, and for a block-scaled mode what the quantization did to each
// operand of its products (amp::OperandFigures, by operand name).
struct LayerDeparture {
  std::string layer;
  double output_error_squares = 0, output_squares = 0;  // ||y - y_fp32||^2 and ||y_fp32||^2, summed
  double gradient_dot = 0, gradient_squares = 0, fp32_gradient_squares = 0;  // the weight's, summed
  std::map<std::string, amp::OperandFigures> operands;

  // ||y - y_fp32|| / ||y_fp32|| over the sampled steps; empty where fp32's output was all zeros.
  std::optional<double> output_relative_error() const;
  // cos(dW, dW_fp32) over the sampled steps whose gradients were finite, each unscaled by its step's loss
  // scale; empty where either gradient was zero or non-finite at every such step, or the layer's weight is
  // no parameter (computed each call).
  std::optional<double> gradient_cosine() const;
};

// One parameter's gradients and updates at the sampled steps, summed over them (elements: its size times the
// steps). Gradients are read after backward, before any unscaling or clipping: the parameter's own gradient
// (fp32 for fp32 master weights), whose underflow in backward's 16-bit tensors the layers' figures count.
// Updates are what the optimizer computed in fp32 before the weight stored it.
struct ParameterNumerics {
  std::string name;  // "layers.2.weight"
  int64_t elements = 0;
  double gradient_largest = 0;           // the largest finite |gradient|, unscaled
  double gradient_largest_at_scale = 0;  // and as it was, at the loss scale in force (fp16)
  int64_t gradient_nonfinite = 0;
  int64_t gradient_nonzero = 0;
  double update_squares = 0, weight_squares = 0;  // sums of squares, before the step: the update/weight ratio
  int64_t updates = 0;  // elements the step changed (or, fp32 weights, would change)
  // Of them, those that would be lost were the weight stored in the format (rounded to nearest, the update
  // below half its ulp); empty where the weights are stored in it already (the pure bf16 modes: their
  // lost-update audit counts the updates rounding actually lost).
  std::optional<int64_t> updates_lost;
};

// A 16-bit mode's numerics pass: how close its values ran to the format's limits.
struct NumericsRecord {
  amp::PrecisionMode mode = amp::PrecisionMode::fp16;
  c10::ScalarType format = c10::ScalarType::Half;  // the mode's 16-bit format
  std::vector<int64_t> steps;                      // the sampled optimizer steps, 1-based over the trial
  std::vector<double> loss_scales;                 // fp16: the loss scale in force at each sampled step
  std::vector<numerics::LayerRanges> layers;       // activations and gradients, per layer
  std::vector<ParameterNumerics> parameters;
  // Each linear layer against an fp32 copy of the model on the same batches (departure.h), in the order the
  // layers first ran.
  std::vector<LayerDeparture> departures;
  // The pass failed (an error's first line): no figures; or it was stopped ("stopped by SIGTERM before step 5
  // of 8", train::kStoppedBy): `steps` are those it measured before, with their figures.
  std::optional<std::string> failure;
};

// A pure bf16 mode's lost updates at sampled optimizer steps (optim::UpdateCount, per step): the parameter
// elements whose exact (fp32) update would have changed the weight, how many of them kept their stored bf16
// weight (and, under Kahan summation, their compensation) unchanged, and how much of the update's magnitude
// the stored weights took.
struct UpdateAudit {
  amp::PrecisionMode mode = amp::PrecisionMode::bf16_pure;
  std::vector<int64_t> steps;         // the sampled optimizer steps, 1-based over the trial
  std::vector<int64_t> moved, lost;   // per sampled step
  std::vector<double> wanted, taken;  // per sampled step
  // The trial diverged here (its loss, or a count of its update, no longer finite): the audit stopped there,
  // its figures the sampled steps before it.
  std::optional<int64_t> diverged_at_step;
  std::optional<std::string> failure;  // the replay failed or was stopped (an error's first line): no figures

  // Lost over moved, over all sampled steps: the share of updates rounded away; empty when nothing moved.
  std::optional<double> lost_share() const;
  // 1 - taken / wanted over all sampled steps: the share of the updates' magnitude that did not reach the
  // stored weights. Round-to-nearest loses a lost update's whole magnitude; stochastic rounding loses none
  // on average (a rounding up makes good the roundings back); empty when nothing was wanted.
  std::optional<double> lost_mass() const;
};

// Optimizer steps an audit samples, spread evenly over the trial.
inline constexpr int64_t kAuditedSteps = 8;

}  // namespace ampbench::train

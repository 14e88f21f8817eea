#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <ATen/record_function.h>
#include <torch/torch.h>

#include "amp/block_formats.h"
#include "amp/operand_figures.h"

namespace ampbench::amp {

// What a LinearObserver saw of the linear layers (amp::linear) that ran while it was installed: each call's
// layer key and output in call order (the fp32 copies, for a comparison call by call between two models of
// one architecture), and per layer key and operand, what the block-scaled quantization did.
struct LinearObservation {
  struct Call {
    const void* key;
    const void* weight;  // the weight tensor's TensorImpl: the layer's parameter, where its weight is one
    std::string name;    // the layer's name where the caller gave one (an exported program's), else empty
    torch::Tensor output;
  };
  std::vector<Call> outputs;
  std::map<std::pair<const void*, std::string>, OperandFigures> operands;
};

// Installs `into` as the observer of every linear layer that runs, on any thread (backward may run on
// another), until it ends; one at a time. For untimed passes only: it copies outputs and reads figures back.
class LinearObserver {
 public:
  explicit LinearObserver(LinearObservation& into);
  ~LinearObserver();
  LinearObserver(const LinearObserver&) = delete;
  LinearObserver& operator=(const LinearObserver&) = delete;
};

// A region in which a low-bit layer prepares its products' operands (transposes, casts, quantizes and
// dequantizes them): values of the recipe's machinery, not the layer's activations or gradients, which the
// range observer (numerics/range_observer.h) leaves out, and, for the profiler, a user scope
// (record_scopes.h). Thread-local: the ops run on the thread that opened it.
class OperandScope {
 public:
  OperandScope();
  ~OperandScope();
  OperandScope(const OperandScope&) = delete;
  OperandScope& operator=(const OperandScope&) = delete;

 private:
  at::RecordFunction marker_;
};
bool preparing_operands();

// Whether an observer is installed: what a layer checks before it computes what only an observer reads.
bool observing_linear_layers();

// What the linear layers call: nothing without an observer.
void observe_output(const void* key, const torch::Tensor& weight, const std::string* name,
                    const torch::Tensor& output);
void observe_operand(const void* key, const std::string& operand, const torch::Tensor& original,
                     const BlockQuantized& quantized);

}  // namespace ampbench::amp

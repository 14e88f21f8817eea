#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profile/captured_events.h"
#include "profile/op_class.h"

namespace ampbench::profile {

// One operator call with the time that is its own and what it computed.
struct AttributedOp {
  std::string name;
  Phase phase = Phase::other;
  OpClass op_class = OpClass::other;
  int64_t self_ns = 0;       // its time less that of the ops it called (on a GPU: its own kernels')
  int64_t inclusive_ns = 0;  // with the ops it called
  std::vector<std::string> tensor_dtypes;  // its floating and integer tensor inputs' dtypes
  std::vector<std::vector<int64_t>> tensor_shapes;
  // Matrix-product and convolution FLOPs, counted once: at the innermost call that does the arithmetic
  // (autocast's wrappers call the op again on cast inputs, composite ops call the ones they are made of).
  double matmul_flops = 0;
  bool low_precision = false;  // float8, or most of its floating tensor inputs are fp16 or bf16
  bool float8 = false;         // a floating tensor input is float8: at::_scaled_mm's operands
  int64_t cast_bytes = 0;      // a copy into another dtype: the bytes it wrote
};

// Nests each thread's ops, takes each op's own time, assigns it the phase it started in and its class,
// and counts the FLOPs once. The phase and step markers themselves are not ops and are left out.
std::vector<AttributedOp> attribute_ops(const CapturedEvents& events);

}  // namespace ampbench::profile

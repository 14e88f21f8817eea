#pragma once

#include <cstdint>

#include <torch/torch.h>

namespace ampbench::train {

// A view of one row of a buffer (buffer[row]) that moves from row to row by changing its storage
// offset: no dispatch and no allocation per step, and constant host memory however many rows there
// are. A select() per step would cost a dispatch (about 1 us on a CPU) in the timed loop; a view per
// row made up front would cost about 0.5 KB of host memory per row.
class RowCursor {
 public:
  // `buffer` must be contiguous, with at least one row.
  explicit RowCursor(const torch::Tensor& buffer);

  // The view of row `row`; valid until the next call. Throws c10::Error for a row out of range.
  const torch::Tensor& row(int64_t row);

 private:
  int64_t rows_;
  int64_t base_offset_;
  int64_t row_stride_;
  torch::Tensor view_;
};

}  // namespace ampbench::train

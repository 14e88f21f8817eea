#include "train/row_cursor.h"

namespace ampbench::train {

RowCursor::RowCursor(const torch::Tensor& buffer)
    : rows_(buffer.size(0)),
      base_offset_(buffer.storage_offset()),
      row_stride_(buffer.stride(0)),
      view_(buffer.select(0, 0)) {
  TORCH_CHECK(buffer.is_contiguous(), "RowCursor needs a contiguous buffer");
}

const torch::Tensor& RowCursor::row(int64_t row) {
  TORCH_CHECK(row >= 0 && row < rows_, "RowCursor: row ", row, " is outside [0, ", rows_, ")");
  // The view shares the buffer's storage; only where it starts changes.
  view_.unsafeGetTensorImpl()->set_storage_offset(base_offset_ + row * row_stride_);
  return view_;
}

}  // namespace ampbench::train

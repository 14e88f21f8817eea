#include <functional>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "train/out_of_memory.h"

namespace {

using ampbench::train::is_out_of_memory;

// The error that `raise` throws, as the Experiment catches it.
bool classified_as_out_of_memory(const std::function<void()>& raise) {
  try {
    raise();
  } catch (const c10::Error& e) {
    return is_out_of_memory(e);
  }
  ADD_FAILURE() << "nothing was thrown";
  return false;
}

TEST(OutOfMemory, TheCachingAllocatorsErrorIs) {
  EXPECT_TRUE(classified_as_out_of_memory(
      [] { TORCH_CHECK_WITH(OutOfMemoryError, false, "CUDA out of memory. Tried to allocate 2.00 GiB"); }));
}

TEST(OutOfMemory, AHostAllocationThatCannotBeMadeIs) {
  // 2^60 bytes: beyond any address space, so malloc refuses it whatever the overcommit policy.
  EXPECT_TRUE(classified_as_out_of_memory([] { torch::empty({int64_t(1) << 58}, torch::kFloat32); }));
}

TEST(OutOfMemory, ALibraryHandleOrWorkspaceThatCannotBeAllocatedIs) {
  // The words LibTorch's cuBLAS and cuDNN checks use.
  EXPECT_TRUE(classified_as_out_of_memory([] {
    TORCH_CHECK(false, "CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`");
  }));
  EXPECT_TRUE(
      classified_as_out_of_memory([] { TORCH_CHECK(false, "cuDNN error: CUDNN_STATUS_ALLOC_FAILED"); }));
  EXPECT_TRUE(classified_as_out_of_memory([] { TORCH_CHECK(false, "CUDA error: out of memory"); }));
}

TEST(OutOfMemory, OtherErrorsAreNotEvenWhenTheyMentionMemory) {
  EXPECT_FALSE(classified_as_out_of_memory([] { TORCH_CHECK(false, "injected error at step 2"); }));
  EXPECT_FALSE(classified_as_out_of_memory(
      [] { TORCH_CHECK(false, "CUDA error: an illegal memory access was encountered"); }));
  EXPECT_FALSE(
      classified_as_out_of_memory([] { TORCH_CHECK(false, "injected out-of-memory error at step 2"); }));
}

}  // namespace

#pragma once

#include <cstdint>
#include <filesystem>

#include <torch/torch.h>

#include "data/dataset.h"

namespace ampbench::data {

// Readers for data sets on disk. Each checks what it reads (magic numbers, dimensions, sizes, label and
// token ranges) and throws util::InputError naming the file on any problem (the caller, which knows the
// config's JSON pointer, adds it): a missing, truncated or malformed file is a bad input, not a crash.

// MNIST (or any IDX pair): train-images-idx3-ubyte / train-labels-idx1-ubyte and the t10k-* pair.
// Images scaled to [0, 1], shape [N, 1, 28, 28]. LibTorch's own MNIST reader demands the full
// 60,000 / 10,000 counts and does not notice a truncated file, so ampbench reads IDX itself.
Dataset read_mnist(const std::filesystem::path& dir);

// CIFAR-10 binary: data_batch_1..5.bin for training, test_batch.bin for validation; records of one label
// byte and 3,072 pixel bytes (channel-major). Images scaled to [0, 1], shape [N, 3, 32, 32].
Dataset read_cifar10(const std::filesystem::path& dir);

// train.bin / val.bin of little-endian uint16 token ids. Cut into consecutive windows of `context`
// tokens (inputs) and the same shifted by one (targets): [N, context] int64 each. A limit above 0 takes
// the first `limit` windows, and only the tokens they need are read and checked; ids must be < vocab.
Dataset read_token_files(const std::filesystem::path& dir, int64_t context, int64_t vocab,
                         int64_t train_limit, int64_t val_limit);

}  // namespace ampbench::data

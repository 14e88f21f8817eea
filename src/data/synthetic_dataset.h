#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "data/data_options.h"
#include "data/dataset.h"

namespace ampbench::data {

// A learnable data set. Each sample has a few latent factors z ~ N(0, 1); its input is a fixed, seeded
// mix of patterns weighted by z, plus unit Gaussian noise; its label comes from a fixed, seeded linear
// teacher on z (argmax over classes). The label is thus written visibly into the input, a model can
// learn it, and validation loss means something. The same options give the same data, bit for bit.
// Built on the CPU; load_dataset stages it on the device.
Dataset make_synthetic_dataset(const SyntheticOptions& options);

// Token sequences a language model can learn: a fixed, seeded Markov chain in which every token has
// `branching` likely successors with fixed random weights. Inputs are `context` tokens, targets the same
// shifted by one; the best achievable loss is the chain's entropy rate (at most ln(branching)).
Dataset make_synthetic_tokens(const SyntheticTokensOptions& options);

}  // namespace ampbench::data

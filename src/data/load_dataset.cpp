#include "data/load_dataset.h"

#include "data/file_readers.h"
#include "data/synthetic_dataset.h"

namespace ampbench::data {
namespace {

Dataset read(const SyntheticOptions& o) { return make_synthetic_dataset(o); }
Dataset read(const SyntheticTokensOptions& o) { return make_synthetic_tokens(o); }
Dataset read(const ImageFilesOptions& o) {
  return o.format == DataSource::mnist ? read_mnist(o.dir) : read_cifar10(o.dir);
}
Dataset read(const TokenFilesOptions& o) {
  return read_token_files(o.dir, o.context, o.vocab, o.train_samples, o.val_samples);
}

torch::Tensor first(const torch::Tensor& t, int64_t limit) {
  return limit > 0 && limit < t.size(0) ? t.narrow(0, 0, limit) : t;
}

}  // namespace

Dataset load_dataset(const DataOptions& options, const torch::Device& device) {
  Dataset d = std::visit([](const auto& o) { return read(o); }, options.options);
  if (!options.sizes_known()) {
    d.train_inputs = first(d.train_inputs, options.train_samples());
    d.train_labels = first(d.train_labels, options.train_samples());
    d.val_inputs = first(d.val_inputs, options.val_samples());
    d.val_labels = first(d.val_labels, options.val_samples());
  }
  std::vector<torch::Tensor*> parts{&d.train_inputs, &d.train_labels, &d.val_inputs, &d.val_labels};
  for (auto* part : parts) *part = part->contiguous();
  try {
    std::vector<torch::Tensor> staged;
    for (auto* part : parts) staged.push_back(part->to(device));
    for (size_t i = 0; i < parts.size(); ++i) *parts[i] = std::move(staged[i]);
  } catch (const c10::OutOfMemoryError&) {
    d.staged = false;  // too large for the device: it stays in host memory, as read
  }
  return d;
}

}  // namespace ampbench::data

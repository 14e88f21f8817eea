#include "data/data_options.h"

namespace ampbench::data {
namespace {

template <typename... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <typename... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

std::string to_string(DataSource source) {
  switch (source) {
    case DataSource::synthetic:
      return "synthetic";
    case DataSource::synthetic_tokens:
      return "synthetic_tokens";
    case DataSource::mnist:
      return "mnist";
    case DataSource::cifar10:
      return "cifar10";
    case DataSource::tokens:
      return "tokens";
  }
  return "unknown";
}

DataSource DataOptions::source() const {
  return std::visit(Overloaded{[](const SyntheticOptions&) { return DataSource::synthetic; },
                               [](const SyntheticTokensOptions&) { return DataSource::synthetic_tokens; },
                               [](const ImageFilesOptions& o) { return o.format; },
                               [](const TokenFilesOptions&) { return DataSource::tokens; }},
                    options);
}

int64_t DataOptions::train_samples() const {
  return std::visit([](const auto& o) { return o.train_samples; }, options);
}

int64_t DataOptions::val_samples() const {
  return std::visit([](const auto& o) { return o.val_samples; }, options);
}

std::vector<int64_t> DataOptions::sample_shape() const {
  return std::visit(
      Overloaded{[](const SyntheticOptions& o) { return o.shape; },
                 [](const SyntheticTokensOptions& o) { return std::vector<int64_t>{o.context}; },
                 [](const ImageFilesOptions& o) { return o.shape; },
                 [](const TokenFilesOptions& o) { return std::vector<int64_t>{o.context}; }},
      options);
}

int64_t DataOptions::classes() const {
  return std::visit(
      Overloaded{[](const SyntheticOptions& o) { return o.classes; },
                 [](const SyntheticTokensOptions& o) { return o.classes > 0 ? o.classes : o.vocab; },
                 [](const ImageFilesOptions& o) { return o.classes; },
                 [](const TokenFilesOptions& o) { return o.vocab; }},
      options);
}

bool DataOptions::takes_tokens() const {
  return std::holds_alternative<SyntheticTokensOptions>(options) ||
         std::holds_alternative<TokenFilesOptions>(options);
}

bool DataOptions::is_language_model() const {
  const auto* synthetic = std::get_if<SyntheticTokensOptions>(&options);
  return takes_tokens() && (!synthetic || synthetic->classes == 0);
}

bool DataOptions::sizes_known() const {
  return std::holds_alternative<SyntheticOptions>(options) ||
         std::holds_alternative<SyntheticTokensOptions>(options);
}

double DataOptions::synthetic_bytes() const {
  double values = 1;  // per sample: features, or positions for tokens
  for (auto d : sample_shape()) values *= double(d);
  // fp32 features or int64 token ids, and an int64 label; or int64 inputs and targets at every position.
  const double per_sample = is_language_model() ? 16.0 * values : (takes_tokens() ? 8.0 : 4.0) * values + 8.0;
  return sizes_known() ? per_sample * (double(train_samples()) + double(val_samples())) : 0.0;
}

void DataOptions::fit_to(const std::vector<int64_t>& shape, int64_t classes) {
  if (auto* files = std::get_if<ImageFilesOptions>(&options)) {
    files->shape = shape;
    files->classes = classes;
  }
}

}  // namespace ampbench::data

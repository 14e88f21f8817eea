#include "train/float8_summary.h"

namespace ampbench::train {
namespace {

std::optional<AmaxRange> range_of(const torch::Tensor& amax) {
  if (!amax.defined()) return std::nullopt;
  const auto values = amax.detach().to(torch::kCPU, torch::kDouble);
  return AmaxRange{values.min().item<double>(), values.max().item<double>()};
}

// The caller's name for the layer, else its weight parameter's (the record's key).
std::string name_of(const amp::Float8LayerRecord& record, const torch::nn::Module& model) {
  if (!record.name.empty()) return record.name;
  for (const auto& item : model.named_parameters()) {
    if (item.value().unsafeGetTensorImpl() != record.key) continue;
    const auto& name = item.key();
    const std::string suffix = ".weight";
    return name.ends_with(suffix) ? name.substr(0, name.size() - suffix.size()) : name;
  }
  return "(unnamed)";
}

std::optional<std::string> bf16_why(const amp::Float8LayerRecord& record, amp::LinearRecipe recipe) {
  if (record.kept_by_filter) return "kept in bf16 by precision.layer_filter";
  if (!record.bf16_shape) return std::nullopt;
  return amp::why_not_float8(*record.bf16_shape, recipe);
}

}  // namespace

Float8Summary summarize_float8(amp::LinearRecipe recipe, const amp::Float8Layers& layers,
                               const torch::nn::Module& model) {
  Float8Summary out{std::string(amp::to_string(recipe)), {}};
  for (const auto& record : layers.records()) {
    out.layers.push_back({name_of(*record, model), record->in_features, record->out_features,
                          record->float8_calls, record->bf16_calls, bf16_why(*record, recipe),
                          range_of(record->input_amax), range_of(record->weight_amax),
                          range_of(record->grad_output_amax)});
  }
  return out;
}

}  // namespace ampbench::train

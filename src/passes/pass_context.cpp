#include "passes/pass_context.h"

#include "amp/weight_format.h"

namespace ampbench::train {
namespace {

// NHWC weights for convolutions, as torch's model.to(memory_format=torch.channels_last).
void to_channels_last(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  for (auto& parameter : model.parameters()) {
    if (parameter.dim() == 4) parameter.set_data(parameter.contiguous(at::MemoryFormat::ChannelsLast));
  }
}

}  // namespace

std::shared_ptr<models::Network> PassContext::fp32_model(const ModelState& state) const {
  auto model = config.model.spec->build();
  state.restore_into(*model);
  model->to(device);
  if (config.train.channels_last) to_channels_last(*model);
  return model;
}

std::shared_ptr<models::Network> PassContext::fresh_model(amp::PrecisionMode mode) const {
  return fresh_model(initial, mode);
}

std::shared_ptr<models::Network> PassContext::fresh_model(const ModelState& state,
                                                          amp::PrecisionMode mode) const {
  auto model = fp32_model(state);
  amp::cast_to_weight_dtype(*model, mode);
  return model;
}

std::string first_line(const std::string& message) {
  auto line = message.substr(0, message.find('\n'));
  if (line.rfind("[enforce fail at ", 0) != 0) return line;
  const auto condition_end = line.find(". ", line.find("] "));
  return condition_end == std::string::npos ? line : line.substr(condition_end + 2);
}

std::string error_line(const std::exception& error) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&error))
    return first_line(c10_error->what_without_backtrace());
  if (dynamic_cast<const std::bad_alloc*>(&error)) return "out of host memory";
  return first_line(error.what());
}

}  // namespace ampbench::train

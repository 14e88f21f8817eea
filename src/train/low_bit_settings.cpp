#include "train/low_bit_settings.h"

#include "amp/autocast_scope.h"
#include "amp/block_kernel_probe.h"

namespace ampbench::train {

std::optional<amp::Float8Settings> low_bit_settings(amp::PrecisionMode mode, const TrainerOptions& options,
                                                    models::Network& model, const torch::Tensor& inputs) {
  auto settings = amp::float8_settings(mode, options.block_recipe);
  if (settings && amp::is_block_scaled(settings->recipe))
    settings->kernels = !amp::kernels_refusal(settings->recipe, inputs.device());
  if (!settings || !options.layer_filter.keeps_any()) return settings;
  amp::Float8Layers census;
  const bool training = model.is_training();
  model.eval();  // batch norm's statistics stay as they are
  {
    torch::NoGradGuard no_grad;
    amp::AutocastScope autocast(inputs.device().type(), amp::recipe_of(mode).autocast);
    amp::Float8Scope scope(settings, &census);
    model.forward(inputs);
  }
  model.train(training);
  settings->kept_in_bf16 = amp::kept_in_bf16(census, options.layer_filter);
  return settings;
}

}  // namespace ampbench::train

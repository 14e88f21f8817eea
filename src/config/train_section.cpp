#include "config/train_section.h"

namespace ampbench::config {
namespace {

using util::InputError;
using util::ObjectReader;

optim::SgdOptions parse_sgd(ObjectReader& optimizer) {
  optim::SgdOptions out;
  out.lr(optimizer.number("lr", out.lr(), 0.0, 1e6, /*exclusive_min=*/true));
  out.momentum(optimizer.number("momentum", out.momentum(), 0.0, 1.0));
  out.weight_decay(optimizer.number("weight_decay", out.weight_decay(), 0.0, 1e6));
  return out;
}

optim::AdamWOptions parse_adamw(ObjectReader& optimizer) {
  optim::AdamWOptions out;
  out.lr(optimizer.number("lr", out.lr(), 0.0, 1e6, /*exclusive_min=*/true));
  out.weight_decay(optimizer.number("weight_decay", out.weight_decay(), 0.0, 1e6));
  out.beta1(optimizer.number("beta1", out.beta1(), 0.0, 1.0));
  out.beta2(optimizer.number("beta2", out.beta2(), 0.0, 1.0));
  out.eps(optimizer.number("eps", out.eps(), 0.0, 1.0, /*exclusive_min=*/true));
  return out;
}

optim::OptimizerOptions parse_optimizer(ObjectReader optimizer) {
  const std::string type = optimizer.string("type", "sgd");
  optim::OptimizerOptions out;
  if (type == "sgd") {
    out = parse_sgd(optimizer);
  } else if (type == "adamw") {
    out = parse_adamw(optimizer);
  } else {
    throw InputError(optimizer.path_of("type"), "expected \"sgd\" or \"adamw\", got \"" + type + "\"");
  }
  optimizer.finish();
  return out;
}

nlohmann::json optimizer_json(const optim::OptimizerOptions& options) {
  if (const auto* adamw = std::get_if<optim::AdamWOptions>(&options)) {
    return {{"type", "adamw"},         {"lr", adamw->lr()},       {"weight_decay", adamw->weight_decay()},
            {"beta1", adamw->beta1()}, {"beta2", adamw->beta2()}, {"eps", adamw->eps()}};
  }
  const auto& sgd = std::get<optim::SgdOptions>(options);
  return {
      {"type", "sgd"}, {"lr", sgd.lr()}, {"weight_decay", sgd.weight_decay()}, {"momentum", sgd.momentum()}};
}

}  // namespace

TrainConfig parse_train(ObjectReader train) {
  TrainConfig out;
  out.epochs = train.integer("epochs", out.epochs, 1, 1'000'000);
  out.batch_size = train.integer("batch_size", out.batch_size, 1, 1 << 24);
  out.optimizer = parse_optimizer(train.object("optimizer"));
  if (train.has("clip_grad_norm")) out.clip_grad_norm = train.number("clip_grad_norm", 0.0, 0.0, 1e12, true);
  out.accumulation_steps = train.integer("accumulation_steps", out.accumulation_steps, 1, 1 << 20);
  out.warmup_steps = train.integer("warmup_steps", out.warmup_steps, 0);
  out.cudnn_benchmark = train.boolean("cudnn_benchmark", out.cudnn_benchmark);
  out.channels_last = train.boolean("channels_last", out.channels_last);
  if (train.has("threads")) out.threads = train.integer("threads", 1, 1, 4096);
  train.finish();
  return out;
}

nlohmann::json train_json(const TrainConfig& t) {
  nlohmann::json train{{"epochs", t.epochs},
                       {"batch_size", t.batch_size},
                       {"optimizer", optimizer_json(t.optimizer)},
                       {"accumulation_steps", t.accumulation_steps},
                       {"warmup_steps", t.warmup_steps},
                       {"cudnn_benchmark", t.cudnn_benchmark},
                       {"channels_last", t.channels_last}};
  if (t.clip_grad_norm) train["clip_grad_norm"] = *t.clip_grad_norm;
  train["threads"] = t.threads ? nlohmann::json(*t.threads) : nlohmann::json();
  return train;
}

}  // namespace ampbench::config

#include "models/resnet.h"

#include "amp/float8_linear.h"

namespace ampbench::models {
namespace {

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(false));
}

// A 1x1 convolution + BatchNorm that matches the shortcut to the block's output shape.
torch::nn::Sequential projection(int64_t in, int64_t out, int64_t stride) {
  return torch::nn::Sequential(conv(in, out, 1, stride), torch::nn::BatchNorm2d(out));
}

class BasicBlockImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 1;

  BasicBlockImpl(int64_t in, int64_t planes, int64_t stride)
      : conv1_(register_module("conv1", conv(in, planes, 3, stride))),
        bn1_(register_module("bn1", torch::nn::BatchNorm2d(planes))),
        conv2_(register_module("conv2", conv(planes, planes, 3, 1))),
        bn2_(register_module("bn2", torch::nn::BatchNorm2d(planes))) {
    if (stride != 1 || in != planes)
      downsample_ = register_module("downsample", projection(in, planes, stride));
  }

  torch::Tensor forward(torch::Tensor x) {
    auto identity = downsample_ ? downsample_->forward(x) : x;
    auto out = torch::relu(bn1_->forward(conv1_->forward(x)));
    out = bn2_->forward(conv2_->forward(out));
    return torch::relu(out + identity);
  }

 private:
  torch::nn::Conv2d conv1_;
  torch::nn::BatchNorm2d bn1_;
  torch::nn::Conv2d conv2_;
  torch::nn::BatchNorm2d bn2_;
  torch::nn::Sequential downsample_{nullptr};
};
TORCH_MODULE(BasicBlock);

class BottleneckImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kExpansion = 4;

  BottleneckImpl(int64_t in, int64_t planes, int64_t stride)
      : conv1_(register_module("conv1", conv(in, planes, 1, 1))),
        bn1_(register_module("bn1", torch::nn::BatchNorm2d(planes))),
        conv2_(register_module("conv2", conv(planes, planes, 3, stride))),
        bn2_(register_module("bn2", torch::nn::BatchNorm2d(planes))),
        conv3_(register_module("conv3", conv(planes, planes * kExpansion, 1, 1))),
        bn3_(register_module("bn3", torch::nn::BatchNorm2d(planes * kExpansion))) {
    if (stride != 1 || in != planes * kExpansion) {
      downsample_ = register_module("downsample", projection(in, planes * kExpansion, stride));
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    auto identity = downsample_ ? downsample_->forward(x) : x;
    auto out = torch::relu(bn1_->forward(conv1_->forward(x)));
    out = torch::relu(bn2_->forward(conv2_->forward(out)));
    out = bn3_->forward(conv3_->forward(out));
    return torch::relu(out + identity);
  }

 private:
  torch::nn::Conv2d conv1_;
  torch::nn::BatchNorm2d bn1_;
  torch::nn::Conv2d conv2_;
  torch::nn::BatchNorm2d bn2_;
  torch::nn::Conv2d conv3_;
  torch::nn::BatchNorm2d bn3_;
  torch::nn::Sequential downsample_{nullptr};
};
TORCH_MODULE(Bottleneck);

}  // namespace

ResNetImpl::ResNetImpl(const ResNetOptions& options) : max_pool_(!options.cifar_stem()) {
  conv1_ = register_module("conv1", options.cifar_stem() ? conv(options.in_channels(), 64, 3, 1)
                                                         : conv(options.in_channels(), 64, 7, 2));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(64));
  int64_t in_planes = 64;
  const auto& blocks = options.blocks();
  layer1_ = register_module("layer1", make_stage(in_planes, 64, blocks[0], 1, options.bottleneck()));
  layer2_ = register_module("layer2", make_stage(in_planes, 128, blocks[1], 2, options.bottleneck()));
  layer3_ = register_module("layer3", make_stage(in_planes, 256, blocks[2], 2, options.bottleneck()));
  layer4_ = register_module("layer4", make_stage(in_planes, 512, blocks[3], 2, options.bottleneck()));
  fc_ = register_module("fc", torch::nn::Linear(in_planes, options.num_classes()));

  // torchvision's initialisation: He-normal (fan_out) convolutions, BatchNorm to identity; the Linear
  // keeps LibTorch's default, which is PyTorch's.
  torch::NoGradGuard no_grad;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* c = module->as<torch::nn::Conv2d>()) {
      torch::nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
    } else if (auto* bn = module->as<torch::nn::BatchNorm2d>()) {
      torch::nn::init::ones_(bn->weight);
      torch::nn::init::zeros_(bn->bias);
    }
  }
}

torch::nn::Sequential ResNetImpl::make_stage(int64_t& in_planes, int64_t planes, int64_t blocks,
                                             int64_t stride, bool bottleneck) {
  torch::nn::Sequential stage;
  int64_t expansion = bottleneck ? BottleneckImpl::kExpansion : BasicBlockImpl::kExpansion;
  for (int64_t i = 0; i < blocks; ++i) {
    int64_t block_stride = i == 0 ? stride : 1;
    if (bottleneck) {
      stage->push_back(Bottleneck(in_planes, planes, block_stride));
    } else {
      stage->push_back(BasicBlock(in_planes, planes, block_stride));
    }
    in_planes = planes * expansion;
  }
  return stage;
}

torch::Tensor ResNetImpl::forward(const torch::Tensor& inputs) {
  auto x = torch::relu(bn1_->forward(conv1_->forward(inputs)));
  if (max_pool_) x = torch::max_pool2d(x, 3, 2, 1);
  x = layer4_->forward(layer3_->forward(layer2_->forward(layer1_->forward(x))));
  x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
  return amp::linear(x, fc_->weight, fc_->bias);
}

double resnet_forward_macs(const ResNetOptions& o, int64_t height, int64_t width) {
  // A k x k convolution with padding k/2: output side (side + 2*(k/2) - k) / stride + 1.
  auto out_side = [](int64_t side, int64_t k, int64_t stride) {
    return (side + 2 * (k / 2) - k) / stride + 1;
  };
  int64_t h = height, w = width;
  double macs = 0;
  auto conv_macs = [&](int64_t in, int64_t out, int64_t k, int64_t stride) {
    h = out_side(h, k, stride), w = out_side(w, k, stride);
    macs += double(in * out * k * k) * double(h) * double(w);
  };
  if (o.cifar_stem()) {
    conv_macs(o.in_channels(), 64, 3, 1);
  } else {
    conv_macs(o.in_channels(), 64, 7, 2);
    h = (h + 2 - 3) / 2 + 1, w = (w + 2 - 3) / 2 + 1;  // 3x3 max-pool, stride 2, padding 1
  }
  const int64_t expansion = o.bottleneck() ? BottleneckImpl::kExpansion : BasicBlockImpl::kExpansion;
  int64_t in = 64;
  const int64_t planes_of_stage[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t planes = planes_of_stage[stage];
    for (int64_t block = 0; block < o.blocks()[stage]; ++block) {
      const int64_t stride = block == 0 && stage > 0 ? 2 : 1;
      if (o.bottleneck()) {
        conv_macs(in, planes, 1, 1);
        conv_macs(planes, planes, 3, stride);
        conv_macs(planes, planes * expansion, 1, 1);
      } else {
        conv_macs(in, planes, 3, stride);
        conv_macs(planes, planes, 3, 1);
      }
      if (stride != 1 || in != planes * expansion)
        macs += double(in * planes * expansion) * double(h) * double(w);  // 1x1 projection
      in = planes * expansion;
    }
  }
  return macs + double(in) * double(o.num_classes());  // the classifier
}

ResNetOptions read_resnet_options(util::ObjectReader& options, const InputSpec& input,
                                  ResNetOptions::StageBlocks blocks, bool bottleneck) {
  const std::string stem = options.string("stem", "imagenet");
  if (stem != "imagenet" && stem != "cifar") {
    throw util::InputError(options.path_of("stem"),
                           "expected \"imagenet\" or \"cifar\", got \"" + stem + "\"");
  }
  options.finish();
  // The stem and four stages halve the resolution 5 times (imagenet) or 3 times (cifar).
  const int64_t min_side = stem == "cifar" ? 8 : 32;
  const auto& shape = input.sample_shape;
  if (shape.size() != 3 || shape[1] < min_side || shape[2] < min_side) {
    throw util::InputError("a ResNet with the " + stem + " stem needs [C, H, W] images of at least " +
                           std::to_string(min_side) + "x" + std::to_string(min_side));
  }
  return ResNetOptions(blocks, bottleneck, input.num_classes)
      .in_channels(shape[0])
      .cifar_stem(stem == "cifar");
}

std::shared_ptr<Network> build_network(const ResNetOptions& options) {
  return std::make_shared<ResNetImpl>(options);
}

double forward_macs_of(const ResNetOptions& options, const InputSpec& input) {
  return resnet_forward_macs(options, input.sample_shape.at(1), input.sample_shape.at(2));
}

ModelSize model_size_of(const ResNetOptions& o) {
  ModelSize size;
  auto conv = [&](int64_t in, int64_t out, int64_t kernel) {
    size.parameters += double(in * out * kernel * kernel);
  };
  // A BatchNorm: weight and bias; running mean, variance and the count of batches seen.
  auto norm = [&](int64_t channels) {
    size.parameters += 2 * double(channels);
    size.buffers += 2 * double(channels) + 1;
  };
  conv(o.in_channels(), 64, o.cifar_stem() ? 3 : 7);
  norm(64);
  const int64_t expansion = o.bottleneck() ? 4 : 1, planes_of_stage[] = {64, 128, 256, 512};
  int64_t in = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t planes = planes_of_stage[stage], out = planes * expansion;
    for (int64_t block = 0; block < o.blocks()[stage]; ++block) {
      if (o.bottleneck()) {
        conv(in, planes, 1), norm(planes), conv(planes, planes, 3), norm(planes), conv(planes, out, 1),
            norm(out);
      } else {
        conv(in, planes, 3), norm(planes), conv(planes, planes, 3), norm(planes);
      }
      const bool strided = block == 0 && stage > 0;
      if (strided || in != out) conv(in, out, 1), norm(out);  // the projection shortcut
      in = out;
    }
  }
  size.parameters += double(in + 1) * double(o.num_classes());  // the classifier
  return size;
}

nlohmann::json options_json_of(const ResNetOptions& options) {
  return {{"stem", options.cifar_stem() ? "cifar" : "imagenet"}};
}

std::vector<ModelEntry> resnet_entries() {
  struct Variant {
    const char* name;
    ResNetOptions::StageBlocks blocks;
    bool bottleneck;
  };
  const Variant variants[] = {
      {"resnet18", {2, 2, 2, 2}, false}, {"resnet34", {3, 4, 6, 3}, false}, {"resnet50", {3, 4, 6, 3}, true}};
  std::vector<ModelEntry> entries;
  for (const auto& v : variants) {
    ModelEntry entry;
    entry.name = v.name;
    entry.description =
        std::string("torchvision's ") + v.name + " on [C,H,W] images (options: stem imagenet|cifar)";
    entry.read = [v](util::ObjectReader& options,
                     const InputSpec& input) -> std::shared_ptr<const ModelSpec> {
      return std::make_shared<ModelSpecOf<ResNetOptions>>(
          read_resnet_options(options, input, v.blocks, v.bottleneck), input);
    };
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace ampbench::models

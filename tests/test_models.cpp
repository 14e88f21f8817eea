#include <gtest/gtest.h>
#include <torch/torch.h>

#include "models/registry.h"

using namespace ampbench::models;

namespace {

// The model a config's model.options name, for this input.
std::shared_ptr<const ModelSpec> spec(const std::string& name, const nlohmann::json& options,
                                      const InputSpec& input) {
  ampbench::util::ObjectReader reader(options, "/model/options");
  return find_model(name)->read(reader, input);
}

int64_t parameter_count(const std::string& name, int64_t classes, std::vector<int64_t> shape,
                        nlohmann::json options = {{"stem", "imagenet"}}) {
  auto model = spec(name, options, InputSpec{shape, classes})->build();
  int64_t count = 0;
  for (const auto& p : model->parameters()) count += p.numel();
  return count;
}

}  // namespace

// torchvision.models.resnetXX(num_classes=...) parameter counts.
TEST(Models, ResNetParameterCountsMatchTorchvisionAt1000Classes) {
  EXPECT_EQ(parameter_count("resnet18", 1000, {3, 224, 224}), 11'689'512);
  EXPECT_EQ(parameter_count("resnet34", 1000, {3, 224, 224}), 21'797'672);
  EXPECT_EQ(parameter_count("resnet50", 1000, {3, 224, 224}), 25'557'032);
}

TEST(Models, ResNetParameterCountsMatchTorchvisionAt10Classes) {
  EXPECT_EQ(parameter_count("resnet18", 10, {3, 32, 32}), 11'181'642);
  EXPECT_EQ(parameter_count("resnet34", 10, {3, 32, 32}), 21'289'802);
  EXPECT_EQ(parameter_count("resnet50", 10, {3, 32, 32}), 23'528'522);
}

TEST(Models, CifarStemKeepsTheResolutionAndGivesLogits) {
  // The 3x3 stem has 3*64*9 weights instead of 3*64*49.
  EXPECT_EQ(parameter_count("resnet18", 10, {3, 32, 32}, {{"stem", "cifar"}}),
            11'181'642 - 3 * 64 * (49 - 9));
  auto model = spec("resnet18", {{"stem", "cifar"}}, InputSpec{{3, 32, 32}, 10})->build();
  EXPECT_EQ(model->forward(torch::randn({2, 3, 32, 32})).sizes(), (std::vector<int64_t>{2, 10}));
}

TEST(Models, MlpHasTheConfiguredWidthAndDepth) {
  // 12 -> 8 -> 8 -> 3: (12*8+8) + (8*8+8) + (8*3+3)
  EXPECT_EQ(parameter_count("mlp", 3, {3, 2, 2}, {{"width", 8}, {"depth", 2}}), 104 + 72 + 27);
  auto model = spec("mlp", {{"width", 8}, {"depth", 2}}, InputSpec{{3, 2, 2}, 3})->build();
  EXPECT_EQ(model->forward(torch::randn({5, 3, 2, 2})).sizes(), (std::vector<int64_t>{5, 3}));
}

TEST(Models, RegistryKnowsEveryReferenceModel) {
  for (const char* name : {"mlp", "resnet18", "resnet34", "resnet50", "gpt"})
    EXPECT_NE(find_model(name), nullptr) << name;
  EXPECT_EQ(find_model("resnet101"), nullptr);
}

TEST(Models, GptAtGpt2SmallSizeHasGpt2SmallsParameterCount) {
  // 12 layers, 12 heads, 768 wide, vocab 50257, context 1024, LM head tied to the token embeddings.
  nlohmann::json options{{"n_layer", 12}, {"n_head", 12}, {"d_model", 768}, {"context", 1024}};
  auto model = spec("gpt", options, InputSpec{{1024}, 50257, true})->build();
  int64_t count = 0;
  for (const auto& p : model->parameters()) count += p.numel();
  EXPECT_EQ(count, 124'439'808);
}

TEST(Models, GptIsCausalAndPredictsEveryPosition) {
  nlohmann::json options{{"n_layer", 2}, {"n_head", 2}, {"d_model", 16}, {"context", 8}};
  torch::manual_seed(0);
  auto model = spec("gpt", options, InputSpec{{8}, 11, true})->build();
  auto tokens = torch::randint(11, {2, 8}, torch::kInt64);
  auto logits = model->forward(tokens);
  EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{2, 8, 11}));
  // Changing the last token changes only the last position's prediction.
  auto changed = tokens.clone();
  changed.select(1, 7).fill_(10 - changed[0][7].item<int64_t>());
  auto other = model->forward(changed);
  EXPECT_TRUE(torch::allclose(logits.narrow(1, 0, 7), other.narrow(1, 0, 7)));
  EXPECT_FALSE(torch::allclose(logits.narrow(1, 7, 1), other.narrow(1, 7, 1)));
}

TEST(Flops, ResNetForwardMultiplyAddsMatchTheKnownFigures) {
  auto macs = [](const std::string& name, std::vector<int64_t> shape, int64_t classes) {
    return double(spec(name, {{"stem", "imagenet"}}, InputSpec{shape, classes})->forward_macs());
  };
  // The usual figures for torchvision's models at 224x224: ResNet-50 4.1 G and ResNet-18 1.8 G multiply-adds.
  EXPECT_NEAR(macs("resnet50", {3, 224, 224}, 1000), 4.1e9, 0.02 * 4.1e9);
  EXPECT_NEAR(macs("resnet18", {3, 224, 224}, 1000), 1.82e9, 0.02 * 1.82e9);
  // Doubling the side quadruples the convolutions' work (the classifier's 2 M stay).
  EXPECT_NEAR(macs("resnet50", {3, 448, 448}, 1000) / macs("resnet50", {3, 224, 224}, 1000), 4.0, 0.01);
}

TEST(Flops, GptCountIsEveryLinearLayerTheHeadAndTheAttentionMatmuls) {
  const int64_t layers = 3, width = 32, vocab = 101, length = 16;
  nlohmann::json options{{"n_layer", layers}, {"n_head", 4}, {"d_model", width}, {"context", length}};
  const InputSpec input{{length}, vocab, true};
  auto model = spec("gpt", options, input)->build();
  // Counted from the model as built: every Linear module's weights, once per token...
  int64_t linear = 0;
  for (const auto& module : model->modules(/*include_self=*/false)) {
    if (auto* layer = module->as<torch::nn::Linear>()) linear += layer->weight.numel();
  }
  EXPECT_EQ(linear, layers * 12 * width * width);
  // ...the tied head (d x vocab per token) and QK^T and AV (T x T x d each, per layer).
  const int64_t expected = (linear + width * vocab) * length + layers * 2 * length * length * width;
  EXPECT_EQ(spec("gpt", options, input)->forward_macs(), expected);
}

TEST(Flops, MlpCountIsItsLinearLayers) {
  auto macs = spec("mlp", {{"width", 64}, {"depth", 2}}, InputSpec{{3, 4, 4}, 10})->forward_macs();
  EXPECT_EQ(macs, 48 * 64 + 64 * 64 + 64 * 10);
}

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "models/registry.h"

using namespace ampbench::models;

namespace {

int64_t parameter_count(const std::string& name, int64_t classes, std::vector<int64_t> shape,
                        nlohmann::json options = {{"stem", "imagenet"}}) {
  auto model = find_model(name)->build(options, InputSpec{shape, classes});
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
  auto model = find_model("resnet18")->build({{"stem", "cifar"}}, InputSpec{{3, 32, 32}, 10});
  EXPECT_EQ(model->forward(torch::randn({2, 3, 32, 32})).sizes(), (std::vector<int64_t>{2, 10}));
}

TEST(Models, MlpHasTheConfiguredWidthAndDepth) {
  // 12 -> 8 -> 8 -> 3: (12*8+8) + (8*8+8) + (8*3+3)
  EXPECT_EQ(parameter_count("mlp", 3, {3, 2, 2}, {{"width", 8}, {"depth", 2}}), 104 + 72 + 27);
  auto model = find_model("mlp")->build({{"width", 8}, {"depth", 2}}, InputSpec{{3, 2, 2}, 3});
  EXPECT_EQ(model->forward(torch::randn({5, 3, 2, 2})).sizes(), (std::vector<int64_t>{5, 3}));
}

TEST(Models, RegistryKnowsEveryReferenceModel) {
  for (const char* name : {"mlp", "resnet18", "resnet34", "resnet50"})
    EXPECT_NE(find_model(name), nullptr) << name;
  EXPECT_EQ(find_model("resnet101"), nullptr);
}

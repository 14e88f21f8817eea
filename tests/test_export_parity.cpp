// Real torch.export archives, written at test time by tests/parity/export_oracle.py (nothing binary is
// committed), trained by ampbench's exported model against the same module trained eagerly in
// PyTorch-Python from the same weights on the same batches; and the archive a user exports with
// scripts/export_model.py, trained by ampbench in every mode end to end.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/autocast_scope.h"
#include "models/registry.h"

#include "cli_fixture.h"
#include "python_oracle.h"

namespace {

using ampbench::models::InputSpec;
using nlohmann::json;

class ExportParity : public ampbench::testing::Cli {
 protected:
  // Exports `model` and trains it in Python; skips (and says why) where the oracle's Python has no torch.
  void run_oracle(const std::string& model) {
    ampbench::testing::run_oracle("export_oracle.py", model + " " + dir_.string(), dir_ / "oracle.log");
    if (IsSkipped()) return;
    oracle_ = ampbench::testing::read_tensors(dir_ / "oracle.pt");
  }

  std::shared_ptr<ampbench::models::Network> build(const std::filesystem::path& archive,
                                                   const InputSpec& input = InputSpec{{3, 8, 8}, 10, false}) {
    const json document{{"path", archive.string()}};  // the reader keeps a reference
    ampbench::util::ObjectReader options(document, "/model/options");
    return ampbench::models::find_model("exported")->read(options, input)->build();
  }
  std::shared_ptr<ampbench::models::Network> build() { return build(dir_ / "model.pt2"); }

  // Whether the oracles' Python can import `module` (the tests that need it skip without).
  static bool python_has(const std::string& module) {
    return std::system((ampbench::testing::oracle_python() + " -c 'import " + module + "' > /dev/null 2>&1")
                           .c_str()) == 0;
  }

  torch::Tensor oracle(const std::string& key) { return oracle_.at(key).toTensor(); }

  // The oracle's SGD steps (lr 0.05), with forward and loss under bf16 autocast when `bf16`: each step's
  // loss.
  std::vector<double> train(ampbench::models::Network& network, bool bf16,
                            std::map<std::string, torch::Tensor>* first_gradients = nullptr) {
    network.train();
    torch::optim::SGD optimizer(network.parameters(), torch::optim::SGDOptions(0.05));
    std::vector<double> losses;
    const auto x = oracle("x"), y = oracle("y");
    for (int64_t step = 0; step < x.size(0); ++step) {
      torch::Tensor loss;
      {
        std::optional<ampbench::amp::AutocastScope> autocast;
        if (bf16) autocast.emplace(c10::DeviceType::CPU, torch::kBFloat16);
        loss = torch::cross_entropy_loss(network.forward(x[step]), y[step]);
      }
      optimizer.zero_grad();
      loss.backward();
      if (first_gradients && step == 0) {
        for (const auto& item : network.named_parameters())
          (*first_gradients)[item.key()] = item.value().grad().clone();
      }
      optimizer.step();
      losses.push_back(loss.item<double>());
    }
    return losses;
  }

  void expect_losses_match(const std::vector<double>& ours, const torch::Tensor& theirs, double relative) {
    ASSERT_EQ(int64_t(ours.size()), theirs.size(0));
    for (size_t i = 0; i < ours.size(); ++i) {
      const double expected = theirs[int64_t(i)].item<double>();
      EXPECT_NEAR(ours[i], expected, relative * std::abs(expected)) << "step " << i;
    }
  }

  c10::impl::GenericDict oracle_{c10::StringType::get(), c10::AnyType::get()};
};

TEST_F(ExportParity, AnExportedConvBatchNormNetTrainsAsItsModuleDoesInPython) {
  ASSERT_NO_FATAL_FAILURE(run_oracle("cnn"));
  if (IsSkipped()) return;
  auto network = build();
  std::map<std::string, torch::Tensor> first;
  expect_losses_match(train(*network, false, &first), oracle("losses"), 1e-5);
  for (const auto& [name, gradient] : first) {
    const auto theirs = oracle("grad/" + name);
    const double cosine = torch::cosine_similarity(gradient.flatten(), theirs.flatten(), 0).item<double>();
    EXPECT_GE(cosine, 0.999999) << name;
  }
  EXPECT_EQ(first.size(), 10u);  // every parameter, by its name in the module
  expect_losses_match(train(*build(), true), oracle("losses_bf16"), 1e-3);
}

TEST_F(ExportParity, AnExportedMlpTrainsAsItsModuleDoesInPython) {
  ASSERT_NO_FATAL_FAILURE(run_oracle("mlp"));
  if (IsSkipped()) return;
  expect_losses_match(train(*build(), false), oracle("losses"), 1e-5);
  expect_losses_match(train(*build(), true), oracle("losses_bf16"), 1e-3);
}

// torchvision's ResNet-18, exported by scripts/export_model.py, against ampbench's own resnet18 (built
// parameter for parameter as torchvision's) with the archive's weights and buffers copied in by name.
TEST_F(ExportParity, AnExportedTorchvisionResNet18EqualsAmpbenchsResnet18GivenTheSameWeights) {
  const auto python = ampbench::testing::oracle_python();
  if (!python_has("torchvision")) GTEST_SKIP() << python << " has no torchvision";
  const std::string command =
      python + " " + ampbench::testing::source_dir() +
      "/scripts/export_model.py torchvision:resnet18 --shape 3,32,32 --classes 10 --out " + dir_.string() +
      " > " + (dir_ / "export.log").string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << ampbench::testing::read_file(dir_ / "export.log");
  auto exported = build(dir_ / "resnet18.pt2", InputSpec{{3, 32, 32}, 10, false});
  const json stem{{"stem", "imagenet"}};
  ampbench::util::ObjectReader options(stem, "/model/options");
  auto native =
      ampbench::models::find_model("resnet18")->read(options, InputSpec{{3, 32, 32}, 10, false})->build();
  {
    torch::NoGradGuard no_grad;
    auto theirs = exported->named_parameters();
    for (auto& item : native->named_parameters()) item.value().copy_(theirs[item.key()]);
    auto buffers = exported->named_buffers();
    for (auto& item : native->named_buffers()) item.value().copy_(buffers[item.key()]);
  }
  torch::manual_seed(3);
  const auto x = torch::randn({4, 3, 32, 32});
  const auto y = torch::randint(0, 10, {4});
  auto ours = exported->forward(x), reference = native->forward(x);
  EXPECT_TRUE(torch::allclose(ours, reference, 1e-5, 1e-5)) << (ours - reference).abs().max();
  torch::cross_entropy_loss(ours, y).backward();
  torch::cross_entropy_loss(reference, y).backward();
  auto reference_parameters = native->named_parameters();
  for (const auto& item : exported->named_parameters()) {
    const auto& expected = reference_parameters[item.key()].grad();
    EXPECT_GE(torch::cosine_similarity(item.value().grad().flatten(), expected.flatten(), 0).item<double>(),
              0.999999)
        << item.key();
  }
  EXPECT_TRUE(torch::allclose(exported->named_buffers()["bn1.running_mean"],
                              native->named_buffers()["bn1.running_mean"]));
}

// The README's path: export your module with scripts/export_model.py, run the config it writes, profiled.
TEST_F(ExportParity, AModuleWithDropoutAndBatchNormExportedByTheScriptTrainsInEveryModeUnderAutocast) {
  if (!python_has("torch"))
    GTEST_SKIP() << ampbench::testing::oracle_python() << " has no torch to export with";
  std::ofstream(dir_ / "mine.py")
      << "import torch.nn as nn\n"
         "def make():\n"
         "    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8),\n"
         "        nn.ReLU(), nn.Dropout(0.2), nn.AdaptiveAvgPool2d(1), nn.Flatten(),\n"
         "        nn.Linear(8, 10))\n";
  const std::string command = ampbench::testing::oracle_python() + " " + ampbench::testing::source_dir() +
                              "/scripts/export_model.py " + (dir_ / "mine.py").string() +
                              ":make --shape 3,8,8 --classes 10 --out " + (dir_ / "exported").string() +
                              " > " + (dir_ / "export.log").string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << ampbench::testing::read_file(dir_ / "export.log");
  auto config = json::parse(ampbench::testing::read_file(dir_ / "exported" / "make.json"));
  config["data"]["synthetic"]["train_samples"] = 64;
  config["data"]["synthetic"]["val_samples"] = 32;
  config["train"]["epochs"] = 1;
  const auto result = run("--config " + write_config(config).string() +
                          " --modes fp32 fp16 bf16 fp8 --profile --out " + (dir_ / "out").string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = json::parse(ampbench::testing::read_file(run_folders().front() / "report.json"));
  ASSERT_EQ(report.at("summary").size(), 4u);
  // The report names the model by its archive: the torch that exported it and its fingerprint.
  EXPECT_EQ(report.at("model").at("type"), "exported");
  EXPECT_EQ(report.at("model").at("archive").at("fingerprint").get<std::string>().size(), 16u);
  EXPECT_FALSE(report.at("model").at("archive").at("torch_version").get<std::string>().empty());
  EXPECT_EQ(report.at("model").at("parameters").at("trainable"), 3 * 8 * 9 + 8 + 2 * 8 + 8 * 10 + 10);
  EXPECT_EQ(report.at("model").at("buffers"), 2 * 8 + 1);  // batch norm's mean, variance and count
  for (const auto& mode : report.at("summary")) {
    EXPECT_TRUE(mode.at("val_loss").is_number()) << mode.dump();
    EXPECT_LT(mode.at("val_loss").get<double>(), 10) << mode.dump();
    // The precision audit: autocast reached every matrix op of the graph in the 16-bit modes, none in fp32.
    const double share = mode.at("low_precision_flop_share").get<double>();
    if (mode.at("mode") == "fp32")
      EXPECT_EQ(share, 0.0);
    else
      EXPECT_GE(share, 0.99) << mode.dump();
  }
}

}  // namespace

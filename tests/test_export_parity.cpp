// Real torch.export archives, written at test time by tests/parity/export_oracle.py (nothing binary is
// committed), trained by ampbench's exported model against the same module trained eagerly in
// PyTorch-Python from the same weights on the same batches; and the archive a user exports with
// scripts/export_model.py, trained by ampbench in every mode end to end.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/autocast_scope.h"
#include "data/dataset.h"
#include "measure/cpu_features.h"
#include "measure/cpu_tracking_allocator.h"
#include "models/registry.h"
#include "passes/first_batch_gradient.h"
#include "train/training_step.h"

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

  std::shared_ptr<const ampbench::models::ModelSpec> spec(const std::filesystem::path& archive,
                                                          const InputSpec& input) {
    const json document{{"path", archive.string()}};  // the reader keeps a reference
    ampbench::util::ObjectReader options(document, "/model/options");
    return ampbench::models::find_model("exported")->read(options, input);
  }
  std::shared_ptr<ampbench::models::Network> build(const std::filesystem::path& archive,
                                                   const InputSpec& input) {
    return spec(archive, input)->build();
  }
  std::shared_ptr<ampbench::models::Network> build(const InputSpec& input) {
    return build(dir_ / "model.pt2", input);
  }

  // The FLOPs ampbench counts for a training step on `input` are torch.utils.flop_counter's (`key`).
  void expect_flops(const InputSpec& input, const std::string& key) {
    const auto flops = spec(dir_ / "model.pt2", input)->train_flops(input);
    EXPECT_TRUE(flops.uncounted.empty()) << flops.uncounted.front();
    EXPECT_DOUBLE_EQ(flops.per_sample, oracle(key).item<double>()) << key;
  }

  // Whether the oracles' Python can import `module` (the tests that need it skip without).
  static bool python_has(const std::string& module) {
    return std::system((ampbench::testing::oracle_python() + " -c 'import " + module + "' > /dev/null 2>&1")
                           .c_str()) == 0;
  }

  torch::Tensor oracle(const std::string& key) { return oracle_.at(key).toTensor(); }

  // scripts/export_model.py MODEL ARGS into exported/, its output in export.log; its exit status.
  int export_with_script(const std::string& arguments) {
    const auto command = ampbench::testing::oracle_python() + " " + ampbench::testing::source_dir() +
                         "/scripts/export_model.py " + arguments + " --out " + (dir_ / "exported").string() +
                         " > " + (dir_ / "export.log").string() + " 2>&1";
    return std::system(command.c_str());
  }
  // The config export_model.py wrote for `name`, cut to one epoch of `train` samples (and `val`) under its
  // data section `data`.
  json short_config(const std::string& name, const std::string& data, int64_t train, int64_t val) {
    auto config = json::parse(ampbench::testing::read_file(dir_ / "exported" / (name + ".json")));
    config["data"][data]["train_samples"] = train;
    config["data"][data]["val_samples"] = val;
    config["train"]["epochs"] = 1;
    return config;
  }

  // The oracle's 20 SGD steps in `mode`, each through ampbench's own TrainingStep (the Trainer's step:
  // autocast over forward and loss, fp16's GradScaler): each step's loss, and the first step's gradients
  // when asked.
  std::vector<double> train(ampbench::models::Network& network, ampbench::amp::PrecisionMode mode,
                            std::map<std::string, torch::Tensor>* first_gradients = nullptr) {
    const auto x = oracle("x"), y = oracle("y"), hyper = oracle("hyper");
    ampbench::data::Dataset data;
    data.train_inputs = data.val_inputs = x.flatten(0, 1);
    data.train_labels = data.val_labels = y.flatten(0, 1);
    ampbench::train::TrainerOptions options;
    options.train.batch_size = x.size(1);
    options.train.optimizer = ampbench::optim::SgdOptions()
                                  .lr(hyper[0].item<double>())
                                  .momentum(hyper[1].item<double>())
                                  .weight_decay(hyper[2].item<double>());
    ampbench::train::TrainingStep step(options, mode, network, data, torch::kCPU);
    const auto order = torch::arange(data.train_size());
    network.train();
    torch::manual_seed(kOracleSeed);  // dropout's masks: the draws the oracle's run made
    std::vector<double> losses;
    for (int64_t i = 0; i < step.steps_per_epoch(); ++i) {
      const auto loss = step.loss(order, i);
      losses.push_back(loss.item<double>());
      step.backward(loss);
      if (first_gradients && i == 0) {
        for (const auto& item : network.named_parameters())
          (*first_gradients)[item.key()] = item.value().grad().clone();
      }
      step.step_on_boundary(i);
      step.zero_grad();
    }
    return losses;
  }

  void expect_losses_match(const std::vector<double>& ours, const torch::Tensor& theirs, double relative,
                           const std::string& mode) {
    ASSERT_EQ(int64_t(ours.size()), theirs.size(0));
    for (size_t i = 0; i < ours.size(); ++i) {
      const double expected = theirs[int64_t(i)].item<double>();
      EXPECT_NEAR(ours[i], expected, relative * std::abs(expected)) << mode << " step " << i;
    }
  }

  // The bar for an exported model against its module in PyTorch: fp32 losses to 1e-5 relative at
  // every step and the first step's gradients to cosine 0.999999, for every parameter by its name; bf16's
  // and fp16's (with GradScaler) losses to 1e-3 of torch.amp's.
  void expect_parity(const std::string& model, const InputSpec& input) {
    ASSERT_NO_FATAL_FAILURE(run_oracle(model));
    if (IsSkipped()) return;
    using ampbench::amp::PrecisionMode;
    std::map<std::string, torch::Tensor> first;
    expect_losses_match(train(*build(input), PrecisionMode::fp32, &first), oracle("losses/fp32"), 1e-5,
                        "fp32");
    size_t expected_gradients = 0;
    for (const auto& entry : oracle_)
      expected_gradients += entry.key().toStringRef().rfind("grad/", 0) == 0 ? 1 : 0;
    EXPECT_EQ(first.size(), expected_gradients);
    for (const auto& [name, gradient] : first) {
      const auto theirs = oracle("grad/" + name);
      const double cosine = torch::cosine_similarity(gradient.flatten(), theirs.flatten(), 0).item<double>();
      EXPECT_GE(cosine, 0.999999) << name;
    }
    for (const auto mode : {PrecisionMode::bf16, PrecisionMode::fp16}) {
      const std::string name(ampbench::amp::to_string(mode));
      expect_losses_match(train(*build(input), mode), oracle("losses/" + name), 1e-3, name);
    }
    if (oracle_.contains("flops")) expect_flops(input, "flops");
    // Before any step the two run the same ops in the same dtypes: autocast met each of the program's ops as
    // it met the module's, and what the module keeps out of autocast stays out; in train() and in eval(),
    // where batch norm and dropout do what the module's do.
    for (const auto mode : {PrecisionMode::fp32, PrecisionMode::bf16, PrecisionMode::fp16}) {
      const std::string name(ampbench::amp::to_string(mode));
      EXPECT_TRUE(torch::equal(first_logits(*build(input), mode, true), oracle("logits/" + name))) << name;
      EXPECT_TRUE(torch::equal(first_logits(*build(input), mode, false), oracle("logits_eval/" + name)))
          << name << " in eval()";
    }
  }

  // The logits of the oracle's first batch in train() or eval(), under `mode`'s autocast, as fp32.
  torch::Tensor first_logits(ampbench::models::Network& network, ampbench::amp::PrecisionMode mode,
                             bool training) {
    network.train(training);
    torch::NoGradGuard no_grad;
    ampbench::amp::AutocastScope autocast(c10::DeviceType::CPU, ampbench::amp::recipe_of(mode).autocast);
    torch::manual_seed(kOracleSeed);
    return network.forward(oracle("x")[0]).to(torch::kFloat);
  }

  static constexpr uint64_t kOracleSeed = 1234;  // export_oracle.py's SEED

  c10::impl::GenericDict oracle_{c10::StringType::get(), c10::AnyType::get()};
};

const InputSpec kImages{{3, 8, 8}, 10, false};
const InputSpec kTokens{{16}, 96, true};  // export_oracle.py's CONTEXT and VOCAB

TEST_F(ExportParity, AnExportedConvBatchNormNetTrainsAsItsModuleDoesInPython) {
  expect_parity("cnn", kImages);
}

TEST_F(ExportParity, AnExportedMlpTrainsAsItsModuleDoesInPython) { expect_parity("mlp", kImages); }

// Batch norm with track_running_stats=False normalises with the batch's statistics in eval() too.
TEST_F(ExportParity, ABatchNormWithoutRunningStatisticsTrainsAndEvaluatesAsItsModuleDoes) {
  expect_parity("bn-nostats", kImages);
}

// A batch norm and a dropout put in eval() before export (frozen, as fine-tuning does) stay so while the
// model trains: running statistics used and left alone, no dropout.
TEST_F(ExportParity, AFrozenBatchNormAndDropoutStayInEvaluationWhileTheModelTrains) {
  expect_parity("frozen", kImages);
}

// A core-ATen archive's native_dropout (its train flag a `bool?`) draws the masks the program's module
// draws in train(), and is off in eval().
TEST_F(ExportParity, ACoreAtenDropoutIsOnInTrainingAndOffInEvaluation) {
  expect_parity("dropout-core", kImages);
  if (IsSkipped() || HasFailure()) return;
  // The first-batch gradient cosine compares one computation: each mode draws the same masks, so bf16's
  // cosine against fp32 is eager PyTorch's with the same masks (their draws differ from ours, not between
  // modes), not that of two different masks.
  ampbench::data::Dataset data;
  data.train_inputs = data.val_inputs = oracle("x")[0];
  data.train_labels = data.val_labels = oracle("y")[0];
  ampbench::train::TrainerOptions options;
  options.train.batch_size = data.train_inputs.size(0);
  using ampbench::amp::PrecisionMode;
  const auto gradient = [&](PrecisionMode mode) {
    return ampbench::train::first_batch_gradient(mode, *build(kImages), options, data, torch::kCPU).value();
  };
  const auto cosine =
      ampbench::train::gradient_cosine(gradient(PrecisionMode::fp32), gradient(PrecisionMode::bf16));
  ASSERT_TRUE(cosine);
  EXPECT_NEAR(*cosine, oracle("cosine/bf16").item<double>(), 1e-3);
}

// A decoder's transposed convolution: trained as its module is, its FLOPs counted on its input's size.
TEST_F(ExportParity, ATransposedConvolutionTrainsAsItsModuleDoesAndCountsFlopCountersFlops) {
  expect_parity("tconv", kImages);
}

// A sequence length the program takes at any size: FLOPs counted at the run's length, not the example's.
TEST_F(ExportParity, ADynamicSequenceLengthIsCountedAtTheRunsLength) {
  expect_parity("dynamic-seq", kTokens);
  if (IsSkipped() || HasFailure()) return;
  expect_flops(InputSpec{{32}, 96, true}, "flops_long");  // twice export_oracle.py's CONTEXT
}

// A causal mask written as masked_fill(-inf): torch.export stores the value as the string "-Infinity".
TEST_F(ExportParity, ACausalMaskOfMinusInfinityIsReadAndTrainsAsItsModuleDoes) {
  expect_parity("causal-mask", kTokens);
}

// A tensor attribute torch.export lifts as a constant trains as its module's, and the report counts it apart
// from the model's one-element buffer.
TEST_F(ExportParity, ALiftedConstantTrainsAsItsModuleDoesAndIsCountedApartFromTheBuffers) {
  expect_parity("lifted-constant", kImages);
  if (IsSkipped() || HasFailure()) return;
  auto config = tiny_config();
  config["model"] = {{"type", "exported"}, {"options", {{"path", (dir_ / "model.pt2").string()}}}};
  config["data"]["synthetic"]["shape"] = {3, 8, 8};
  config["data"]["synthetic"]["classes"] = 10;
  config["precision"] = {{"modes", {"fp32"}}};
  const auto result = run("--config " + write_config(config).string() + " --epochs 1");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = json::parse(ampbench::testing::read_file(run_folders().front() / "report.json"));
  EXPECT_EQ(report["model"]["buffers"], 1);
  EXPECT_EQ(report["model"]["constants"], 10);
  EXPECT_NE(result.out.find("1 buffer elements, 10 in constants the export lifted"), std::string::npos)
      << result.out;
}

// A linear layer whose weight weight_norm computes each forward trains as its module does; in the fp8 modes
// it is one layer with one record over many steps, which holds no weight: the memory held stays flat.
TEST_F(ExportParity, AWeightNormedLinearTrainsAsItsModuleDoesAndKeepsOneFloat8RecordInFp8) {
  const InputSpec classes16{{3, 8, 8}, 16, false};  // export_oracle.py's: products fp8 takes
  expect_parity("weight-norm", classes16);
  if (IsSkipped() || HasFailure()) return;
  using ampbench::measure::CpuTrackingAllocator;
  constexpr int64_t kBatch = 16, kSteps = 20;  // 16 rows: shapes at::_scaled_mm takes
  ampbench::data::Dataset data;
  data.train_inputs = data.val_inputs = torch::randn({kBatch * kSteps, 3, 8, 8});
  data.train_labels = data.val_labels = torch::randint(0, 16, {kBatch * kSteps});
  ampbench::train::TrainerOptions options;
  options.train.batch_size = kBatch;
  auto network = build(classes16);
  network->train();
  ampbench::train::TrainingStep step(options, ampbench::amp::PrecisionMode::fp8, *network, data, torch::kCPU);
  CpuTrackingAllocator::install();
  const auto order = torch::arange(data.train_size());
  int64_t held_after_warm_up = 0;
  for (int64_t i = 0; i < kSteps; ++i) {
    step.backward(step.loss(order, i));
    step.step_on_boundary(i);
    step.zero_grad();
    if (i == 1) held_after_warm_up = CpuTrackingAllocator::current_bytes();  // optimizer state made
  }
  const auto& records = step.float8_layers().records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]->name, "1");  // the module that computes and uses the weight
  EXPECT_EQ(records[0]->float8_calls, kSteps);
  // A record a step holding its weight would add 48 KiB a step.
  EXPECT_LE(CpuTrackingAllocator::current_bytes() - held_after_warm_up, 4096);
}

TEST_F(ExportParity, AnExportedTorchvisionResNet18TrainsAsItsModuleDoesInPython) {
  expect_parity("resnet18", InputSpec{{3, 32, 32}, 10, false});
}

TEST_F(ExportParity, AnExportedTransformersGpt2TrainsAsItsModuleDoesInPython) {
  expect_parity("gpt2", kTokens);
}

// Its rotary angles in an fp32 region (wrap_with_autocast, off) inside a no-grad one, as eager AMP keeps
// them.
TEST_F(ExportParity, AnExportedTransformersLlamaTrainsAsItsModuleDoesInPython) {
  expect_parity("llama", kTokens);
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

// An LSTM in a 16-bit format oneDNN cannot run without the CPU's arithmetic for it (as eager PyTorch
// cannot): that mode alone fails, named, with exit 1. Where the CPU has a format's arithmetic, it trains.
TEST_F(ExportParity, AnLstmThatFailsInA16BitModeFailsThatModeAlone) {
  if (!python_has("torch"))
    GTEST_SKIP() << ampbench::testing::oracle_python() << " has no torch to export with";
  std::ofstream(dir_ / "rnn.py") << "import torch.nn as nn\n"
                                    "class Net(nn.Module):\n"
                                    "    def __init__(self):\n"
                                    "        super().__init__()\n"
                                    "        self.lstm = nn.LSTM(8, 16, batch_first=True)\n"
                                    "        self.head = nn.Linear(16, 4)\n"
                                    "    def forward(self, x):\n"
                                    "        return self.head(self.lstm(x)[0][:, -1])\n"
                                    "def make():\n"
                                    "    return Net()\n";
  ASSERT_EQ(export_with_script((dir_ / "rnn.py").string() + ":make --shape 6,8 --classes 4"), 0)
      << ampbench::testing::read_file(dir_ / "export.log");
  const auto config = short_config("make", "synthetic", 64, 16);
  const auto result = run("--config " + write_config(config).string() + " --modes fp32 fp16 bf16 -q --out " +
                          (dir_ / "out").string());
  ASSERT_EQ(run_folders().size(), 1u) << result.err;
  const auto report = json::parse(ampbench::testing::read_file(run_folders().front() / "report.json"));
  std::map<std::string, std::string> status;
  for (const auto& trial : report["trials"]) status[trial["mode"]] = trial["status"];
  EXPECT_EQ(status["fp32"], "ok");
  const auto cpu = ampbench::measure::cpu_16bit_arithmetic();
  const std::map<std::string, bool> has_arithmetic{{"fp16", cpu && cpu->fp16}, {"bf16", cpu && cpu->bf16}};
  bool any_failed = false;
  for (const auto& [mode, has] : has_arithmetic) {
    const bool failed = !has && status[mode] == "failed";
    any_failed = any_failed || failed;
    EXPECT_EQ(status[mode], failed ? "failed" : "ok") << mode;
    EXPECT_TRUE(!failed || result.err.find(mode + " trial") != std::string::npos) << result.err;
  }
  EXPECT_EQ(result.exit_code, any_failed ? 1 : 0) << result.err;
}

// --model-arg hands the builder its keywords: torchvision's ViT refuses a 64 x 64 image until told its
// image_size, and then exports, and the config it writes passes ampbench's checks at that size.
TEST_F(ExportParity, TheScriptHandsTheBuilderItsKeywords) {
  if (!python_has("torchvision")) GTEST_SKIP() << ampbench::testing::oracle_python() << " has no torchvision";
  const std::string vit = "torchvision:vit_b_16 --shape 3,64,64 --classes 10";
  EXPECT_NE(export_with_script(vit), 0) << "a ViT at 64 x 64 exported without image_size";
  ASSERT_EQ(export_with_script(vit + " --model-arg image_size=64"), 0)
      << ampbench::testing::read_file(dir_ / "export.log");
  const auto result = run("--config " + (dir_ / "exported" / "vit_b_16.json").string() + " --dry-run");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(json::parse(result.out)["data"]["synthetic"]["shape"], json::array({3, 64, 64})) << result.out;
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
  ASSERT_EQ(export_with_script((dir_ / "mine.py").string() + ":make --shape 3,8,8 --classes 10"), 0)
      << ampbench::testing::read_file(dir_ / "export.log");
  const auto config = short_config("make", "synthetic", 64, 32);
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

// A BERT-style sequence classifier from export_model.py: token ids to one label per sequence, trained on the
// synthetic sequence classes the config it writes names, sized to the program (context, classes).
TEST_F(ExportParity, ABertClassifierExportedByTheScriptTrainsOnSequenceClassesInEveryMode) {
  if (!python_has("transformers"))
    GTEST_SKIP() << ampbench::testing::oracle_python() << " has no transformers to export with";
  ASSERT_EQ(export_with_script("bert --classes 3 --context 16 --vocab 64"), 0)
      << ampbench::testing::read_file(dir_ / "export.log");
  const auto config = short_config("bert", "synthetic_tokens", 64, 32);
  const auto result = run("--config " + write_config(config).string() + " --modes fp32 fp16 bf16 --out " +
                          (dir_ / "out").string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = json::parse(ampbench::testing::read_file(run_folders().front() / "report.json"));
  const auto& data = report.at("config").at("data").at("synthetic_tokens");
  EXPECT_EQ(data.at("classes"), 3);  // the program's logits
  EXPECT_EQ(data.at("context"), 16);
  EXPECT_EQ(data.at("vocab"), 64);
  ASSERT_EQ(report.at("summary").size(), 3u);
  for (const auto& mode : report.at("summary")) {
    EXPECT_TRUE(mode.at("val_loss").is_number()) << mode.dump();
    EXPECT_LT(mode.at("val_loss").get<double>(), 5) << mode.dump();
    EXPECT_TRUE(mode.at("val_perplexity").is_null()) << mode.dump();  // a classifier's: no perplexity
    EXPECT_TRUE(mode.at("val_accuracy").is_number()) << mode.dump();
  }
}

}  // namespace

// ampbench's GradScaler and fp16 training loop against PyTorch-Python's own (torch.amp.GradScaler,
// torch.autocast, fused SGD), run by the scripts in tests/parity/ with the project's Python torch.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <torch/serialize.h>
#include <torch/torch.h>

#include "amp/grad_scaler.h"
#include "build_paths.h"
#include "config/experiment_config.h"
#include "data/batch_order.h"
#include "data/load_dataset.h"
#include "models/registry.h"
#include "optim/optimizer.h"
#include "passes/experiment.h"
#include "train/model_state.h"

#include "data_files.h"
#include "temp_dir_test.h"

namespace fs = std::filesystem;
using ampbench::testing::ampbench_binary;
using ampbench::testing::source_dir;
using ampbench::testing::test_python;

namespace {

class PythonParity : public ampbench::testing::TempDirTest {
 protected:
  // Runs a command; its output goes to the failure message.
  void shell(const std::string& command) {
    auto log = dir_ / "command.log";
    int status = std::system((command + " > " + log.string() + " 2>&1").c_str());
    ASSERT_EQ(status, 0) << command << "\n" << read(log);
  }
  // Runs a script of tests/parity with the project's Python.
  void python(const std::string& script, const std::string& arguments) {
    shell(test_python() + " " + source_dir() + "/tests/parity/" + script + " " + arguments);
  }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  void write(const std::string& name, const std::vector<uint8_t>& bytes) {
    ampbench::test_data::write_bytes(dir_ / name, bytes);
  }

  static std::vector<uint8_t> labels(uint8_t count) {
    std::vector<uint8_t> out;
    for (uint8_t i = 0; i < count; ++i) out.push_back(uint8_t(i % 10));
    return ampbench::test_data::idx_labels(out);
  }

  // Runs `config` (on the CPU) through ampbench and through scripts/peer_pytorch.py: their JSON reports.
  void run_both(nlohmann::json config, nlohmann::json& ampbench, nlohmann::json& peer) {
    config["name"] = "peer";
    config["device"] = "cpu";
    config["output"] = {{"dir", (dir_ / "runs").string()}};
    SCOPED_TRACE(config.dump());
    std::ofstream(dir_ / "config.json") << config.dump();
    const auto config_path = (dir_ / "config.json").string();
    ASSERT_NO_FATAL_FAILURE(shell(ampbench_binary() + " --config " + config_path + " -q --export-json " +
                                  (dir_ / "a.json").string()));
    ASSERT_NO_FATAL_FAILURE(shell(test_python() + " " + source_dir() + "/scripts/peer_pytorch.py " +
                                  config_path + " --out " + (dir_ / "b.json").string() + " --ampbench " +
                                  ampbench_binary()));
    ampbench = nlohmann::json::parse(read(dir_ / "a.json"));
    peer = nlohmann::json::parse(read(dir_ / "b.json"));
  }

  // run_both(), expecting the same modes, each with the same validation loss, bit for bit.
  void expect_same_validation_losses(const nlohmann::json& config, size_t modes) {
    nlohmann::json ampbench, peer;
    ASSERT_NO_FATAL_FAILURE(run_both(config, ampbench, peer));
    ASSERT_EQ(peer["summary"].size(), modes);
    ASSERT_EQ(ampbench["summary"].size(), modes);
    for (size_t i = 0; i < modes; ++i) {
      SCOPED_TRACE(peer["summary"][i]["mode"].get<std::string>());
      EXPECT_EQ(peer["summary"][i]["mode"], ampbench["summary"][i]["mode"]);
      EXPECT_EQ(peer["summary"][i]["val_loss"].get<double>(),
                ampbench["summary"][i]["val_loss"].get<double>());
    }
    for (const auto& trial : peer["trials"]) {
      if (trial["status"] == "ok") {
        EXPECT_GT(trial["epochs"].back()["samples_per_second"].get<double>(), 0);
      }
    }
  }

  static c10::Dict<c10::IValue, c10::IValue> load(const fs::path& path) {
    auto bytes = read(path);
    return torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end())).toGenericDict();
  }
};

// Equal bit for bit, NaN payloads included (torch::equal calls NaN unequal to itself).
bool same_bits(const torch::Tensor& a, const torch::Tensor& b) {
  return a.sizes() == b.sizes() &&
         torch::equal(a.contiguous().view(torch::kInt32), b.contiguous().view(torch::kInt32));
}

}  // namespace

TEST_F(PythonParity, GradScalerMatchesTorchAmpBitForBitOver1200Steps) {
  auto file = dir_ / "grad_scaler.pt";
  ASSERT_NO_FATAL_FAILURE(python("grad_scaler_sequence.py", file.string()));
  auto d = load(file);
  auto at = [&](const char* key) { return d.at(key).toTensor(); };
  auto options = at("options");
  auto value = [&](int i) { return options[i].item<double>(); };
  std::vector<int64_t> numels(at("numels").data_ptr<int64_t>(), at("numels").data_ptr<int64_t>() + 3);

  std::vector<torch::Tensor> params;
  for (auto& part : at("initial_params").split_with_sizes(numels))
    params.push_back(part.clone().requires_grad_());
  ampbench::optim::FusedSgd optimizer(
      params, ampbench::optim::SgdOptions().lr(value(4)).momentum(value(5)).weight_decay(value(6)));
  ampbench::amp::GradScaler scaler({value(0), value(1), value(2), static_cast<int64_t>(value(3))},
                                   torch::kCPU);

  auto inputs = at("inputs"), unscaled = at("unscaled"), scales = at("scales"), skipped = at("skipped");
  const int64_t steps = inputs.size(0);
  ASSERT_GE(steps, 1000);
  int64_t grad_mismatches = 0, scale_mismatches = 0, skip_mismatches = 0, skips = 0;
  for (int64_t t = 0; t < steps; ++t) {
    optimizer.zero_grad();
    auto grads = inputs[t].split_with_sizes(numels);
    torch::Tensor loss = (params[0] * grads[0]).sum();
    for (size_t i = 1; i < params.size(); ++i) loss = loss + (params[i] * grads[i]).sum();
    scaler.scale(loss).backward();
    scaler.unscale_(optimizer);
    grad_mismatches += !same_bits(torch::cat(optimizer.grads()), unscaled[t]);
    const bool found_inf = scaler.found_inf().item<float>() != 0.0f;
    skips += found_inf;
    skip_mismatches += found_inf != skipped[t].item<bool>();
    scaler.step(optimizer);
    scaler.update();
    scale_mismatches += scaler.scale_tensor().item<float>() != scales[t].item<float>();
  }
  EXPECT_EQ(grad_mismatches, 0);
  EXPECT_EQ(scale_mismatches, 0);
  EXPECT_EQ(skip_mismatches, 0);
  EXPECT_GT(skips, 10);  // the sequence exercises both paths
  EXPECT_LT(skips, steps - 10);
  std::vector<torch::Tensor> finals;
  for (const auto& p : params) finals.push_back(p.detach());
  EXPECT_TRUE(same_bits(torch::cat(finals), at("final_params")));  // the skipped steps left no trace
}

TEST_F(PythonParity, Fp16TrainingHasPyTorchsLossScaleTrajectoryAndSkippedSteps) {
  // A scale that starts too high for fp16 and grows every 4 clean steps: it backs off, climbs, overflows
  // again, so the trajectory has many changes and skips to compare.
  nlohmann::json doc = {
      {"name", "parity"},
      {"seed", 3},
      {"model", {{"type", "mlp"}, {"options", {{"width", 32}, {"depth", 1}}}}},
      {"data",
       {{"synthetic", {{"train_samples", 256}, {"val_samples", 32}, {"shape", {16}}, {"classes", 4}}}}},
      {"train",
       {{"epochs", 4},
        {"batch_size", 16},
        {"optimizer", {{"type", "sgd"}, {"lr", 0.05}, {"momentum", 0.9}, {"weight_decay", 5e-4}}}}},
      {"precision",
       {{"modes", {"fp16"}}, {"grad_scaler", {{"init_scale", 131072.0}, {"growth_interval", 4}}}}},
      {"device", "cpu"}};
  auto config = ampbench::config::parse_experiment_config(doc);
  auto report = ampbench::train::Experiment(config, torch::kCPU).run();
  const auto& trial = report.trials.at(0);
  ASSERT_EQ(trial.status, ampbench::train::TrialStatus::ok);
  ASSERT_TRUE(trial.loss_scale_trace);

  // What the Experiment trained on, rebuilt from the seed and proven the same by its checksums.
  auto dataset = ampbench::data::load_dataset(config.data, torch::kCPU);
  torch::manual_seed(config.seed);
  auto model = config.model.spec->build();
  std::vector<torch::Tensor> orders;
  for (int64_t epoch = 1; epoch <= config.train.epochs; ++epoch)
    orders.push_back(ampbench::data::epoch_order(config.seed, epoch, dataset.train_size()));
  ASSERT_EQ(ampbench::train::checksum(ampbench::train::state_tensors(*model)),
            trial.initial_weights_checksum);
  ASSERT_EQ(ampbench::train::checksum(orders), trial.data_order_checksum);

  c10::Dict<std::string, torch::Tensor> saved;
  auto parameters = model->parameters();
  for (size_t i = 0; i < parameters.size(); ++i)
    saved.insert("param" + std::to_string(i), parameters[i].detach());
  saved.insert("train_inputs", dataset.train_inputs);
  saved.insert("train_labels", dataset.train_labels);
  saved.insert("orders", torch::stack(orders));
  const auto& o = std::get<ampbench::optim::SgdOptions>(config.train.optimizer);
  const auto& s = config.precision.grad_scaler;
  saved.insert("hyper",
               torch::tensor({o.lr(), o.momentum(), o.weight_decay(), s.init_scale, s.growth_factor,
                              s.backoff_factor, double(s.growth_interval), double(config.train.batch_size)},
                             torch::kFloat64));
  auto bytes = torch::pickle_save(saved);
  std::ofstream(dir_ / "run.pt", std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_NO_FATAL_FAILURE(
      python("fp16_training.py", (dir_ / "run.pt").string() + " " + (dir_ / "run.json").string()));

  auto python_run = nlohmann::json::parse(read(dir_ / "run.json"));
  const auto& trace = *trial.loss_scale_trace;
  EXPECT_EQ(python_run["skipped_steps"].get<std::vector<int64_t>>(), trace.skipped_steps);
  using Changes = std::vector<std::pair<int64_t, double>>;
  EXPECT_EQ(python_run["changes"].get<Changes>(), trace.changes);
  EXPECT_GE(trace.skipped_steps.size(), 3u);  // both paths exercised
  EXPECT_GE(trace.changes.size(), trace.skipped_steps.size() + 3);
}

TEST_F(PythonParity, ThePythonPeerRunsTheSameExperiment) {
  // scripts/peer_pytorch.py rebuilds the data, weights and batch order from the config, so the same
  // training in Python must end at the same validation loss, bit for bit on the CPU.
  nlohmann::json config = {
      {"name", "peer"},
      {"model", {{"type", "mlp"}, {"options", {{"width", 32}, {"depth", 1}}}}},
      {"data",
       {{"synthetic", {{"train_samples", 128}, {"val_samples", 32}, {"shape", {3, 4, 4}}, {"classes", 4}}}}},
      {"train", {{"epochs", 2}, {"batch_size", 16}, {"warmup_steps", 1}, {"clip_grad_norm", 1.0}}},
      {"precision", {{"modes", {"fp32", "fp16", "bf16"}}}}};
  ASSERT_NO_FATAL_FAILURE(expect_same_validation_losses(config, 3));
}

TEST_F(PythonParity, ThePythonPeerReadsTheSameDataFiles) {
  // The peer's readers of each file format give the very data ampbench's do: the same model trained on
  // them ends at the same validation loss, bit for bit (limits on the sample counts included). The GPT
  // runs every mode: its 3-D Linear inputs are where the C++ frontend's Linear module once differed from
  // PyTorch-Python's under autocast (a separate bias add instead of ATen's fused one).
  using namespace ampbench::test_data;
  fs::create_directories(dir_ / "mnist");
  write("mnist/train-images-idx3-ubyte", idx_images(40, 6, 6));
  write("mnist/train-labels-idx1-ubyte", labels(40));
  write("mnist/t10k-images-idx3-ubyte", idx_images(12, 6, 6));
  write("mnist/t10k-labels-idx1-ubyte", labels(12));
  fs::create_directories(dir_ / "cifar");
  for (int i = 1; i <= 5; ++i) write("cifar/data_batch_" + std::to_string(i) + ".bin", cifar_records(4, i));
  write("cifar/test_batch.bin", cifar_records(6, 7));
  fs::create_directories(dir_ / "tokens");
  std::vector<uint16_t> ids;
  for (uint32_t i = 0; i < 700; ++i) ids.push_back(uint16_t((i * 7919u) % 40000u));  // ids above 32767 too
  write("tokens/train.bin", uint16_tokens(ids));
  write("tokens/val.bin", uint16_tokens(std::vector<uint16_t>(ids.begin(), ids.begin() + 200)));

  const nlohmann::json mlp = {{"type", "mlp"}, {"options", {{"width", 16}, {"depth", 1}}}};
  const nlohmann::json train = {{"epochs", 2}, {"batch_size", 8}, {"warmup_steps", 1}};
  const nlohmann::json fp32 = {{"modes", {"fp32"}}};
  ASSERT_NO_FATAL_FAILURE(expect_same_validation_losses(
      {{"model", mlp},
       {"data", {{"mnist", {{"dir", (dir_ / "mnist").string()}, {"train_samples", 32}}}}},
       {"train", train},
       {"precision", fp32}},
      1));
  ASSERT_NO_FATAL_FAILURE(expect_same_validation_losses(
      {{"model", mlp},
       {"data", {{"cifar10", {{"dir", (dir_ / "cifar").string()}, {"val_samples", 4}}}}},
       {"train", train},
       {"precision", fp32}},
      1));
  ASSERT_NO_FATAL_FAILURE(expect_same_validation_losses(
      {{"model", {{"type", "gpt"}, {"options", {{"n_layer", 1}, {"n_head", 2}, {"d_model", 16}}}}},
       {"data", {{"tokens", {{"dir", (dir_ / "tokens").string()}, {"context", 8}, {"vocab", 40000}}}}},
       {"train", train},
       {"precision", {{"modes", {"fp32", "fp16", "bf16"}}}}},
      3));
}

TEST_F(PythonParity, PureBf16MatchesTheSameLoopInPythonStepForStep) {
  // model.to(torch.bfloat16) and AdamW or SGD on the bf16 parameters in Python (fused=True, or foreach=True
  // where the fused SGD kernel skips bf16 weights). One step an epoch, so each epoch's training loss is one
  // step's loss: the two must agree at every step, and after it; a step that left the weights unchanged
  // would drift apart.
  const nlohmann::json optimizers[] = {{{"type", "adamw"}, {"lr", 3e-3}}, {{"type", "sgd"}, {"lr", 0.05}}};
  const nlohmann::json models[] = {
      {{"type", "mlp"}, {"options", {{"width", 32}, {"depth", 2}}}},
      {{"type", "gpt"}, {"options", {{"n_layer", 1}, {"n_head", 2}, {"d_model", 16}}}}};
  const nlohmann::json data[] = {
      {{"synthetic", {{"train_samples", 16}, {"val_samples", 32}, {"shape", {12}}, {"classes", 4}}}},
      {{"synthetic_tokens", {{"train_samples", 16}, {"val_samples", 16}, {"context", 8}, {"vocab", 32}}}}};
  for (int i = 0; i < 4; ++i) {
    const nlohmann::json train = {
        {"epochs", 8}, {"batch_size", 16}, {"warmup_steps", 0}, {"optimizer", optimizers[i / 2]}};
    const nlohmann::json config = {{"model", models[i % 2]},
                                   {"data", data[i % 2]},
                                   {"train", train},
                                   {"precision", {{"modes", {"bf16-pure"}}}}};
    SCOPED_TRACE(config.dump());
    nlohmann::json ampbench, python;
    ASSERT_NO_FATAL_FAILURE(run_both(config, ampbench, python));
    const auto& ours = ampbench["trials"][0]["epochs"];
    const auto& peer = python["trials"][0]["epochs"];
    ASSERT_EQ(ours.size(), 8u);
    ASSERT_EQ(peer.size(), 8u);
    for (size_t e = 0; e < 8; ++e) {
      EXPECT_NEAR(ours[e]["train_loss"].get<double>(), peer[e]["train_loss"].get<double>(), 1e-3)
          << "step " << e + 1;
      EXPECT_NEAR(ours[e]["val_loss"].get<double>(), peer[e]["val_loss"].get<double>(), 1e-3)
          << "after step " << e + 1;
    }
  }
}

TEST_F(PythonParity, Fp16GradientUnderflowMatchesPythonsCountToTheElement) {
  // A loss scale of 2^-8, never grown: many fp16 gradient elements backward produces are subnormal at it and
  // nearly none without it. tests/parity/numerics_oracle.py trains the same loop in Python and counts, at the
  // steps ampbench's --numerics pass measured, the fp16 tensors backward produced (hooks on the autograd
  // nodes), at the scale and divided by it.
  const nlohmann::json config = {
      {"name", "numerics"},
      {"model", {{"type", "mlp"}, {"options", {{"width", 16}, {"depth", 1}}}}},
      {"data",
       {{"synthetic", {{"train_samples", 64}, {"val_samples", 32}, {"shape", {3, 4, 4}}, {"classes", 4}}}}},
      {"train", {{"epochs", 2}, {"batch_size", 16}, {"warmup_steps", 1}}},
      {"precision",
       {{"modes", {"fp16"}}, {"grad_scaler", {{"init_scale", 1.0 / 256}, {"growth_interval", 1000000}}}}},
      {"device", "cpu"},
      {"output", {{"dir", (dir_ / "runs").string()}}}};
  std::ofstream(dir_ / "config.json") << config.dump();
  const auto config_path = (dir_ / "config.json").string(), report = (dir_ / "a.json").string();
  ASSERT_NO_FATAL_FAILURE(
      shell(ampbench_binary() + " --config " + config_path + " -q --numerics 3 --export-json " + report));
  ASSERT_NO_FATAL_FAILURE(python("numerics_oracle.py", config_path + " " + report + " " + ampbench_binary() +
                                                           " " + (dir_ / "oracle.json").string()));
  const auto ours = nlohmann::json::parse(read(report))["numerics"].at(0);
  const auto python = nlohmann::json::parse(read(dir_ / "oracle.json"));
  ASSERT_EQ(ours["steps"], python["steps"]);
  EXPECT_EQ(ours["loss_scales"], nlohmann::json({1.0 / 256, 1.0 / 256, 1.0 / 256}));
  // ampbench places each tensor in a layer; Python's hooks know no layers: the totals must agree.
  std::map<std::string, int64_t> totals;
  for (const auto& layer : ours["layers"]) {
    const auto& g = layer["gradients"];
    totals["elements"] += g["elements"].get<int64_t>();
    totals["nonzero"] += g["nonzero"].get<int64_t>();
    totals["subnormal"] += g["subnormal"].get<int64_t>();
    totals["flushed_unscaled"] += g["unscaled"]["flushed"].get<int64_t>();
    totals["subnormal_unscaled"] += g["unscaled"]["subnormal"].get<int64_t>();
  }
  const auto& theirs = python["gradients"];
  for (const auto& [figure, total] : totals) EXPECT_EQ(total, theirs.at(figure).get<int64_t>()) << figure;
  // The planted scale did what it was planted for: a count of zero everywhere would match trivially.
  EXPECT_GT(totals["subnormal"], totals["nonzero"] / 4);
}

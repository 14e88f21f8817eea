#include <filesystem>
#include <fstream>
#include <limits>
#include <tuple>

#include <unistd.h>

#include <gtest/gtest.h>
#include <torch/cuda.h>

#include "build_paths.h"
#include "config/experiment_config.h"
#include "measure/device.h"
#include "models/registry.h"
#include "report/gates.h"

using ampbench::config::parse_experiment_config;
using ampbench::testing::source_dir;
using ampbench::util::InputError;
using nlohmann::json;

namespace {

json valid() {
  return json::parse(R"({
    "name": "t",
    "model": {"type": "mlp", "options": {"width": 16}},
    "data": {"synthetic": {"train_samples": 64, "val_samples": 16, "shape": [4], "classes": 3}},
    "train": {"epochs": 2, "batch_size": 8, "optimizer": {"type": "sgd", "lr": 0.1}}
  })");
}

// The InputError message for `doc`, or "no error".
std::string error_of(const json& doc) {
  try {
    parse_experiment_config(doc);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// The InputError message for a config that is valid() with `pointer` set to `value` (or removed when
// value is discarded).
std::string error_for(const std::string& pointer, const json& value) {
  json doc = valid();
  if (value.is_discarded()) {
    doc.erase(pointer.substr(1));
  } else {
    doc[json::json_pointer(pointer)] = value;
  }
  try {
    parse_experiment_config(doc);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(Config, AValidConfigParsesWithDefaultsFilledIn) {
  auto config = parse_experiment_config(valid());
  EXPECT_EQ(config.name, "t");
  EXPECT_EQ(config.train.epochs, 2);
  EXPECT_EQ(config.model.spec->options_json()["depth"], 2);  // the model's default, written out
  EXPECT_EQ(config.precision.modes.size(), 4u);              // fp32, tf32, fp16, bf16
  EXPECT_FALSE(config.train.cudnn_benchmark);
  EXPECT_FALSE(config.train.channels_last);
  EXPECT_EQ(config.precision.fidelity_tolerance, 0.05);
  EXPECT_EQ(config.precision.fidelity_seeds, 1);
  // One seed is written out of the resolved config, so that configs from before the key keep their hash.
  EXPECT_FALSE(ampbench::config::to_json(config)["precision"].contains("fidelity_seeds"));
  EXPECT_EQ(config.precision.grad_scaler.init_scale, 65536.0);
  EXPECT_EQ(config.device, "auto");
  // The resolved config parses back to itself.
  auto resolved = ampbench::config::to_json(config);
  EXPECT_EQ(ampbench::config::to_json(parse_experiment_config(resolved)), resolved);
}

TEST(Config, EveryShippedConfigParses) {
  int count = 0;
  for (const char* folder : {"/configs", "/benchmarks"}) {
    for (const auto& file : std::filesystem::directory_iterator(source_dir() + folder)) {
      if (file.path().extension() != ".json") continue;
      SCOPED_TRACE(file.path().string());
      EXPECT_NO_THROW(parse_experiment_config(ampbench::config::read_config_file(file.path())));
      ++count;
    }
  }
  EXPECT_GT(count, 1);
}

TEST(Config, TheGpuTransformerConfigsAreTheFullSizedModels) {
  // The models' defaults are ViT-B/16 and Llama-3.2-1B's shape, whose sizes test_models.cpp checks.
  for (const auto& [file, model, data] :
       {std::tuple{"vit-b16.json", "vit", ampbench::models::InputSpec{{3, 224, 224}, 1000}},
        std::tuple{"llama-1b.json", "llama", ampbench::models::InputSpec{{2048}, 128'256, true}}}) {
    SCOPED_TRACE(file);
    auto config =
        parse_experiment_config(ampbench::config::read_config_file(source_dir() + "/configs/" + file));
    EXPECT_EQ(config.data.sample_shape(), data.sample_shape);
    EXPECT_EQ(config.data.classes(), data.num_classes);
    json no_options = json::object();
    ampbench::util::ObjectReader defaults(no_options, "/model/options");
    auto full_sized = ampbench::models::find_model(model)->read(defaults, data);
    EXPECT_EQ(config.model.spec->options_json(), full_sized->options_json());
  }
}

TEST(Config, ErrorsNameTheJsonPathAndTheProblem) {
  EXPECT_EQ(error_for("/train/epochs", -3), "/train/epochs: expected an integer in [1, 1000000], got -3");
  EXPECT_EQ(error_for("/train/epochs", "3"), "/train/epochs: expected an integer in [1, 1000000], got \"3\"");
  EXPECT_EQ(error_for("/train/epochs", 2.5), "/train/epochs: expected an integer in [1, 1000000], got 2.5");
  EXPECT_EQ(error_for("/train/epoch", 3), "/train/epoch: unknown key (did you mean \"epochs\"?)");
  EXPECT_EQ(error_for("/colour", "red"), "/colour: unknown key");
  // The modes there are, in the recipe table's order.
  const auto modes = ampbench::amp::precision_mode_names();
  EXPECT_EQ(modes.substr(0, 22), "fp32, tf32, fp16, bf16");
  EXPECT_EQ(error_for("/precision/modes", json::array()),
            "/precision/modes: expected at least one of " + modes);
  EXPECT_EQ(error_for("/precision/modes", json::array({"fp32", "fp4"})),
            "/precision/modes/1: unknown mode \"fp4\"; expected one of " + modes);
  EXPECT_EQ(error_for("/train/channels_last", 1), "/train/channels_last: expected true or false, got 1");
  EXPECT_EQ(error_for("/train/channels_last", true),
            "/train/channels_last: needs image inputs ([C, H, W] samples)");
  EXPECT_EQ(error_for("/train/cudnn_benchmark", "yes"),
            "/train/cudnn_benchmark: expected true or false, got \"yes\"");
  EXPECT_EQ(error_for("/precision/fidelity_seeds", 0),
            "/precision/fidelity_seeds: expected an integer in [1, 1000], got 0");
  EXPECT_EQ(error_for("/precision/fidelity_seeds", 2.5),
            "/precision/fidelity_seeds: expected an integer in [1, 1000], got 2.5");
  EXPECT_EQ(error_for("/precision/fidelity_tolerance", -1),
            "/precision/fidelity_tolerance: expected a number >= 0 and <= 1e+06, got -1");
  EXPECT_EQ(error_for("/precision/modes", json::array({"bf16", "bf16"})),
            "/precision/modes/1: mode \"bf16\" is listed twice");
  EXPECT_EQ(error_for("/model/type", "vgg"),
            "/model/type: unknown model \"vgg\"; expected one of mlp, resnet18, resnet34, resnet50, vit, "
            "gpt, llama, exported");
  EXPECT_EQ(error_for("/model/type", "exported"), "/model/options/path: missing; expected a string");
  EXPECT_EQ(error_for("/model/options/widht", 3),
            "/model/options/widht: unknown key (did you mean \"width\"?)");
  EXPECT_EQ(error_for("/train/optimizer/lr", -0.1),
            "/train/optimizer/lr: expected a number > 0 and <= 1e+06, got -0.1");
  EXPECT_EQ(error_for("/train/optimizer/type", "lion"),
            "/train/optimizer/type: expected \"sgd\" or \"adamw\", got \"lion\"");
  EXPECT_EQ(error_for("/precision/grad_scaler/backoff_factor", 1.5),
            "/precision/grad_scaler/backoff_factor: expected a number > 0 and <= 1, got 1.5");
  EXPECT_EQ(error_for("/data/synthetic/shape/0", 0),
            "/data/synthetic/shape/0: expected an integer >= 1, got 0");
  EXPECT_EQ(error_for("/device", "tpu"), "/device: expected auto, cpu, cuda or cuda:N, got \"tpu\"");
  // One way to write an index, and no more than three digits: torch would wrap cuda:256 to cuda:0.
  EXPECT_EQ(error_for("/device", "cuda:01"), "/device: expected auto, cpu, cuda or cuda:N, got \"cuda:01\"");
  EXPECT_EQ(error_for("/device", "cuda:1000"),
            "/device: expected auto, cpu, cuda or cuda:N, got \"cuda:1000\"");
  EXPECT_EQ(error_for("/train", 5), "/train: expected an object, got 5");
  EXPECT_EQ(error_for("/name", json::value_t::discarded), "/name: missing; expected a string");
  EXPECT_EQ(error_for("/train/batch_size", 128),
            "/train/batch_size: is larger than the training set (64 samples in /data/synthetic)");
  EXPECT_EQ(error_for("/train/warmup_steps", 8),
            "/train/warmup_steps: must be smaller than the steps in an epoch (8)");
  EXPECT_EQ(error_for("/train/epochs", 1e30),
            "/train/epochs: expected an integer in [1, 1000000], got 1e+30");
  EXPECT_EQ(error_for("/train/accumulation_steps", 9),
            "/train/accumulation_steps: must be at most the steps in an epoch (8)");
  EXPECT_EQ(error_for("/train/accumulation_steps", 8), "no error");
  EXPECT_EQ(error_for("/seed", std::numeric_limits<uint64_t>::max()),
            "/seed: expected an integer in [0, 9223372036854775807], got 18446744073709551615");
  EXPECT_EQ(error_for("/name", std::string(201, 'n')), "/name: expected at most 200 bytes, got 201");
  EXPECT_EQ(error_for("/name", std::string(200, 'n')), "no error");
}

TEST(Config, TheProfiledPassIsOnWhenProfileIsThere) {
  EXPECT_EQ(error_for("/profile/steps", 0), "/profile/steps: expected an integer in [1, 100000], got 0");
  EXPECT_EQ(error_for("/profile/warmup_steps", -1),
            "/profile/warmup_steps: expected an integer in [0, 100000], got -1");
  EXPECT_EQ(error_for("/profile/step", 5), "/profile/step: unknown key (did you mean \"steps\"?)");
  EXPECT_EQ(error_for("/gates/min_low_precision_flop_share/bf16", 0.9),
            "/gates/min_low_precision_flop_share: needs the profiled pass (\"profile\" or --profile)");
  EXPECT_EQ(error_for("/gates/min_low_precision_flop_share/bf16", 1.5),
            "/gates/min_low_precision_flop_share/bf16: expected a number >= 0 and <= 1, got 1.5");
  auto doc = valid();
  EXPECT_FALSE(parse_experiment_config(doc).profile.enabled());
  doc["profile"] = json::object();
  const auto config = parse_experiment_config(doc);
  EXPECT_EQ(config.profile.steps, 10);
  EXPECT_EQ(config.profile.warmup_steps, 3);
  EXPECT_EQ(ampbench::config::to_json(config)["profile"], (json{{"steps", 10}, {"warmup_steps", 3}}));
}

// A block-scaled mode is emulated on the CPU, so a speed gate on it is refused there; on a GPU the run finds
// out, and where the mode ran emulated its gate fails saying so.
TEST(Config, ASpeedGateOnABlockScaledModeIsRefusedOnTheCpuAndFailsWhereItRanEmulated) {
  auto doc = valid();
  doc["precision"]["modes"] = {"fp32", "mxfp8"};
  doc["gates"]["min_speedup"]["mxfp8"] = 1.2;
  doc["device"] = "cpu";
  EXPECT_EQ(error_of(doc),
            "/gates/min_speedup/mxfp8: mxfp8 is emulated on the CPU: its time is the emulation's, not the "
            "format's, so no speed-up is gated");
  // "auto" where it resolves to the CPU is the CPU: refused alike.
  doc["device"] = "auto";
  if (!torch::cuda::is_available()) {
    EXPECT_EQ(error_of(doc).rfind("/gates/min_speedup/mxfp8: mxfp8 is emulated", 0), 0u);
  }
  doc["device"] = "cuda";
  const auto config = parse_experiment_config(doc);
  ampbench::report::ModeSummary fp32, mx;
  mx.mode = ampbench::amp::PrecisionMode::mxfp8;
  mx.emulated = true;
  const auto verdicts = ampbench::report::check_gates(config.gates, {fp32, mx});
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_FALSE(verdicts[0].passed);
  EXPECT_EQ(
      verdicts[0].message,
      "mxfp8 min_speedup: no value (its products were emulated here, so its time is not the format's speed)");
  mx.emulated = false;
  mx.speedup_vs_fp32 = 1.5;
  EXPECT_TRUE(ampbench::report::check_gates(config.gates, {fp32, mx})[0].passed);
}

TEST(Config, TheNumericsPassIsOnWhenNumericsIsThere) {
  EXPECT_EQ(error_for("/numerics/steps", 0), "/numerics/steps: expected an integer in [1, 10000], got 0");
  EXPECT_EQ(error_for("/numerics/steps", 1.5), "/numerics/steps: expected an integer in [1, 10000], got 1.5");
  EXPECT_EQ(error_for("/numerics/step", 5), "/numerics/step: unknown key (did you mean \"steps\"?)");
  auto doc = valid();
  EXPECT_FALSE(parse_experiment_config(doc).numerics.enabled());
  EXPECT_FALSE(ampbench::config::to_json(parse_experiment_config(doc)).contains("numerics"));
  doc["numerics"] = json::object();
  const auto config = parse_experiment_config(doc);
  EXPECT_EQ(config.numerics.steps, 4);
  EXPECT_EQ(ampbench::config::to_json(config)["numerics"], (json{{"steps", 4}}));
}

TEST(Config, AKeyTwiceInOneObjectIsRefusedWithItsPath) {
  auto dir = std::filesystem::temp_directory_path() / ("ampbench_config_dup_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto error_in = [&](const std::string& text) -> std::string {
    std::ofstream(dir / "c.json") << text;
    try {
      ampbench::config::read_config_file(dir / "c.json");
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_in(R"({"name": "a", "seed": 1, "seed": 2})"),
            "/seed: appears twice in the same object; keep one");
  // The path is exact through arrays and nested objects, and keys are escaped as JSON pointers.
  EXPECT_EQ(error_in(R"({"a": [1, {"b": [], "c/d": 0, "c/d": 1}]})"),
            "/a/1/c~1d: appears twice in the same object; keep one");
  // Containers before it in an array count as elements, as values do.
  EXPECT_EQ(error_in(R"([[], {}, [0], {"x": 1, "x": 2}])"),
            "/3/x: appears twice in the same object; keep one");
  // The same key in two different objects is fine.
  EXPECT_EQ(error_in(R"({"a": {"x": 1}, "b": {"x": 1}, "c": [{"x": 1}, {"x": 2}]})"), "no error");
  std::filesystem::remove_all(dir);
}

TEST(Config, AResNetNeedsImages) {
  json doc = valid();
  doc["model"] = {{"type", "resnet18"}};
  try {
    parse_experiment_config(doc);
    FAIL() << "a resnet on 1-D samples was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "/data/synthetic/shape");
  }
}

TEST(Config, TheTopLevelMustBeAnObject) { EXPECT_THROW(parse_experiment_config(json::array()), InputError); }

TEST(Config, UnreadableOrMalformedFilesAreConfigErrors) {
  auto dir = std::filesystem::temp_directory_path() / ("ampbench_config_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto bad = dir / "bad.json";
  std::ofstream(bad) << "{\"name\": ";
  try {
    ampbench::config::read_config_file(bad);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid JSON"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ampbench::config::read_config_file(dir / "missing.json"), InputError);
  EXPECT_THROW(ampbench::config::read_config_file(dir), InputError);
  std::filesystem::remove_all(dir);
}

// Every input the fuzzer keeps (tests/fuzz/corpus: the shipped configs and what it found) must give a
// config or an InputError, never another exception.
TEST(Config, FuzzCorpusNeverCrashes) {
  int count = 0;
  for (const auto& file : std::filesystem::directory_iterator(source_dir() + "/tests/fuzz/corpus")) {
    SCOPED_TRACE(file.path().string());
    try {
      parse_experiment_config(ampbench::config::read_config_file(file.path()));
    } catch (const InputError&) {
    }
    ++count;
  }
  EXPECT_GT(count, 0);
}

TEST(Config, DataHoldsExactlyOneSourceThatFitsTheModel) {
  auto doc = valid();
  doc["data"]["mnist"] = {{"dir", "data/mnist"}};
  EXPECT_EQ(error_of(doc), "/data/mnist: a second data source; /data holds exactly one (synthetic is given)");
  doc["data"] = {{"synthetc", json::object()}};
  EXPECT_EQ(error_of(doc), "/data/synthetc: unknown key (did you mean \"synthetic\"?)");
  doc["data"] = json::object();
  EXPECT_EQ(error_of(doc),
            "/data: expected exactly one data source: synthetic, synthetic_tokens, mnist, cifar10, tokens");
  doc["data"] = {{"cifar10", json::object()}};
  EXPECT_EQ(error_of(doc), "/data/cifar10/dir: missing; expected a string");
  doc["data"] = {{"synthetic_tokens", {{"vocab", 50}, {"context", 8}}}};
  EXPECT_EQ(error_of(doc),
            "/model/type: mlp classifies images or vectors: token data needs a language model (gpt)");
  doc["model"] = {{"type", "gpt"}, {"options", {{"n_layer", 1}, {"n_head", 2}, {"d_model", 8}}}};
  auto config = parse_experiment_config(doc);
  EXPECT_EQ(config.model.spec->options_json()["context"], 8);  // the data's context, written out
  EXPECT_EQ(config.data.classes(), 50);
  doc["model"]["options"]["context"] = 4;
  EXPECT_EQ(error_of(doc),
            "/data/synthetic_tokens/context: sequences of 8 tokens are longer than the model's context (4)");
  doc["model"]["options"]["context"] = 8;
  doc["data"]["synthetic_tokens"]["branching"] = 51;
  EXPECT_EQ(error_of(doc), "/data/synthetic_tokens/branching: expected an integer in [1, 50], got 51");
  doc["data"]["synthetic_tokens"].erase("branching");
  doc["model"]["options"]["d_model"] = 9;
  EXPECT_EQ(error_of(doc), "/model/options/d_model: must be a multiple of n_head (2)");
  doc = valid();
  doc["model"] = {{"type", "gpt"}};
  EXPECT_EQ(error_of(doc),
            "/model/type: gpt is a language model: it needs token data (synthetic_tokens or tokens)");
}

// synthetic_tokens with classes is a sequence classifier's data: token ids with one label each, which no
// reference model takes (a language model needs next-token targets, the others features).
TEST(Config, SequenceClassesAreTokenDataForAModelThatClassifiesTokenIds) {
  auto doc = valid();
  doc["data"] = {{"synthetic_tokens", {{"vocab", 50}, {"context", 8}, {"classes", 4}}}};
  EXPECT_EQ(
      error_of(doc),
      "/model/type: mlp classifies images or vectors: sequence classes need a model that takes token ids "
      "(an exported one)");
  doc["model"] = {{"type", "gpt"}, {"options", {{"n_layer", 1}, {"n_head", 2}, {"d_model", 8}}}};
  EXPECT_EQ(
      error_of(doc),
      "/model/type: gpt is a language model: it needs next-token data (synthetic_tokens without classes, "
      "or tokens)");
  doc["data"]["synthetic_tokens"]["classes"] = 1;
  EXPECT_EQ(error_of(doc),
            "/data/synthetic_tokens/classes: expected 0 (next-token targets) or at least 2 classes");
  // Next-token data (classes 0, the default) resolves without the key, as configs written before it did.
  doc["data"]["synthetic_tokens"]["classes"] = 0;
  const auto config = parse_experiment_config(doc);
  EXPECT_TRUE(config.data.is_language_model());
  EXPECT_FALSE(to_json(config)["data"]["synthetic_tokens"].contains("classes"));
}

TEST(Config, PeakTflopsIsANumberForEveryModeOrOnePerMode) {
  auto doc = valid();
  doc["peak_tflops"] = 100;
  EXPECT_EQ(parse_experiment_config(doc).peak_tflops.size(), 4u);
  doc["peak_tflops"] = {{"bf16", 989}};
  auto config = parse_experiment_config(doc);
  ASSERT_EQ(config.peak_tflops.size(), 1u);
  EXPECT_EQ(config.peak_tflops.at(ampbench::amp::PrecisionMode::bf16), 989);
  EXPECT_EQ(
      error_for("/peak_tflops", "fast"),
      "/peak_tflops: expected a number (TFLOP/s for every mode) or per-mode numbers such as {\"bf16\": 989}");
  EXPECT_EQ(
      error_for("/peak_tflops", json{{"fp4", 1}}),
      "/peak_tflops/fp4: unknown mode \"fp4\"; expected one of " + ampbench::amp::precision_mode_names());
  EXPECT_EQ(error_for("/peak_tflops", 0), "/peak_tflops: expected a number > 0 and <= 1e+09, got 0");
}

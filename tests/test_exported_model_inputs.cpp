// What the exported model type refuses, each refusal one line naming the node, its op and the argument, and
// how a config's data is sized to the program where the config leaves it out.
#include <filesystem>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "config/experiment_config.h"
#include "models/registry.h"
#include "util/input_error.h"

#include "export_fixture.h"
#include "exported_model_test.h"

namespace {

using ampbench::models::InputSpec;
using ampbench::testing::batch_size;
using ampbench::testing::ExportedModel;
using ampbench::testing::json;
using ampbench::testing::kLinear;
using ampbench::testing::kRelu;
using ampbench::testing::ProgramBuilder;
using ampbench::testing::static_size;
using ampbench::testing::tensor_argument;

// Each refusal is one line at /model/options/path naming what is wrong: the node, its op and the argument.
TEST_F(ExportedModel, RefusesWhatItCannotRunNamingTheNodeOpAndArgument) {
  struct Case {
    std::string name;
    std::function<void(json&)> plant;
    std::string expected;
  };
  auto node = [](json& p, size_t i) -> json& { return p["graph_module"]["graph"]["nodes"][i]; };
  const std::vector<Case> cases{
      {"unknown op", [&](json& p) { node(p, 1)["target"] = "torch.ops.aten.no_such_op.default"; },
       "node \"relu\" (aten.no_such_op.default): is not an op this LibTorch's dispatcher has"},
      {"not an op", [&](json& p) { node(p, 1)["target"] = "builtins.print"; },
       "node \"relu\" (builtins.print): is not an op of c10's dispatcher"},
      {"higher-order op", [&](json& p) { node(p, 1)["target"] = "torch.ops.higher_order.cond"; },
       "node \"relu\" (higher_order.cond): is a higher-order op ampbench does not run (it runs "
       "wrap_with_set_grad_enabled and wrap_with_autocast)"},
      {"argument kind",
       [&](json& p) {
         node(p, 1)["inputs"][0]["arg"] = {{"as_custom_obj", {{"name", "o"}, {"class_fqn", "c"}}}};
       },
       "node \"relu\" (aten.relu.default): argument \"self\" is a kind of argument (as_custom_obj) that "
       "ampbench cannot pass"},
      {"unknown argument",
       [&](json& p) {
         node(p, 1)["inputs"].push_back({{"name", "bogus"}, {"arg", {{"as_int", 1}}}});
       },
       "node \"relu\" (aten.relu.default): has an argument \"bogus\" its schema does not name"},
      {"undefined value", [&](json& p) { node(p, 1)["inputs"][0]["arg"] = tensor_argument("ghost"); },
       "node \"relu\" (aten.relu.default): argument \"self\" reads the value \"ghost\" before any node "
       "defines it"},
      {"malformed node", [&](json& p) { node(p, 1).erase("target"); },
       "its program is not as torch.export writes it"},
      {"schema version", [](json& p) { p["schema_version"]["major"] = 9; },
       "its program's schema version is 9.20; ampbench reads version 8.x (torch 2.13 and 2.14)"},
      {"second user input",
       [](json& p) {
         p["graph_module"]["graph"]["inputs"].push_back(tensor_argument("y"));
         p["graph_module"]["signature"]["input_specs"].push_back(
             {{"user_input", {{"arg", tensor_argument("y")}}}});
       },
       "the program takes two tensors; ampbench gives it one batch"},
      {"update of no buffer",
       [](json& p) {
         p["graph_module"]["signature"]["output_specs"].push_back(
             {{"buffer_mutation", {{"arg", {{"name", "relu"}}}, {"buffer_name", "fc1.weight"}}}});
       },
       "the program updates \"fc1.weight\", which is no buffer it reads"},
      {"user-input mutation",
       [](json& p) {
         p["graph_module"]["signature"]["output_specs"].push_back(
             {{"user_input_mutation", {{"arg", {{"name", "relu"}}}, {"user_input_name", "x"}}}});
       },
       "the program returns a value of a kind (user_input_mutation) ampbench cannot take"},
  };
  const auto builder = mlp();
  for (const auto& c : cases) {
    auto program = builder.program();
    c.plant(program);
    const auto path = dir_ / (c.name + ".pt2");
    builder.write(path, program);
    try {
      read(path);
      ADD_FAILURE() << c.name << ": not refused";
    } catch (const ampbench::util::InputError& e) {
      EXPECT_EQ(e.where(), "/model/options/path") << c.name;
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << c.name << ": " << e.what();
    }
  }
}

TEST_F(ExportedModel, RefusesFilesThatAreNoArchiveOrWhoseWeightsFallShort) {
  const auto builder = mlp();
  std::ofstream(dir_ / "text.pt2") << "not a zip";
  {
    caffe2::serialize::PyTorchStreamWriter other((dir_ / "other.pt2").string());  // a zip of something else
    other.writeRecord("hello.txt", "hi", 2);
  }
  std::filesystem::create_directories(dir_ / "folder.pt2");
  builder.write(dir_ / "short.pt2", builder.program(), 4);
  builder.write(dir_ / "pickled.pt2", builder.program(), 0,
                [](json& c) { c["config"]["fc1.bias"]["use_pickle"] = true; });
  builder.write(dir_ / "renamed.pt2", builder.program(), 0, [](json& c) {
    c["config"]["fc9.bias"] = c["config"]["fc1.bias"];
    c["config"].erase("fc1.bias");
  });
  builder.write(dir_ / "untied.pt2", builder.program(), 0,
                [](json& c) { c["config"]["fc2.bias"]["path_name"] = c["config"]["fc1.bias"]["path_name"]; });
  const std::vector<std::pair<std::string, std::string>> cases{
      {"text.pt2", "is not a torch.export archive"},
      {"other.pt2", "is not a torch.export archive of one program: it holds 0 models/*.json records"},
      {"folder.pt2", "is not a regular file (expected a torch.export .pt2 archive)"},
      {"missing.pt2", "is not a regular file"},
      {"short.pt2",
       "weight \"fc2.bias\": its record data/weights/weight_3 holds 8 bytes, its metadata needs 12"},
      {"pickled.pt2", "weight \"fc1.bias\" is pickled"},
      {"untied.pt2", "weight \"fc2.bias\" is another view of \"fc1.bias\"'s storage"},
      {"renamed.pt2", "the program reads \"fc1.bias\", which the archive's weights and constants lack"}};
  for (const auto& [file, expected] : cases) {
    try {
      read(dir_ / file);
      ADD_FAILURE() << file << ": not refused";
    } catch (const ampbench::util::InputError& e) {
      EXPECT_EQ(e.where(), "/model/options/path") << file;
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << file << ": " << e.what();
      EXPECT_EQ(std::string(e.what()).find("Could this error message"), std::string::npos) << e.what();
    }
  }
}

TEST_F(ExportedModel, RefusesDataItsProgramCannotTakeOrWhoseTaskItsLogitsDoNotFit) {
  mlp().write(dir_ / "m.pt2");
  const std::vector<std::pair<InputSpec, std::string>> cases{
      {InputSpec{{5}, 3, false},
       "the exported program takes inputs [N, 4], the data gives samples of [N, 5]"},
      {InputSpec{{4}, 7, false},
       "the exported program returns [N, 3], not logits of [N, 7] for the data's 7 classes"},
      {InputSpec{{4}, 3, true},
       "the exported program takes features: token data needs a model that takes token ids"}};
  for (const auto& [input, expected] : cases) {
    try {
      read(dir_ / "m.pt2", input);
      ADD_FAILURE() << expected << ": not refused";
    } catch (const ampbench::util::InputError& e) {
      EXPECT_EQ(e.where(), "") << expected;  // the data's, which the config layer locates
      EXPECT_EQ(e.problem(), expected);
    }
  }
}

// An integer parameter (a count kept as a frozen nn.Parameter) or integer logits would fail every trial once
// the run began: refused when the archive is read, a dry run's time.
TEST_F(ExportedModel, RefusesAnIntegerParameterOrIntegerLogitsWhenTheArchiveIsRead) {
  ProgramBuilder counted;
  counted.state("fc.weight", torch::randn({3, 4}), true);
  counted.state("count", torch::tensor({3}, torch::kLong), true, /*frozen=*/true);
  counted.user_input("x", {batch_size(2), static_size(4)});
  counted.node(kLinear, {{"input", tensor_argument("x")}, {"weight", tensor_argument("p_fc_weight")}},
               "logits", {batch_size(2), static_size(3)});
  counted.output("logits");
  counted.write(dir_ / "count.pt2");
  auto rounded = mlp();
  auto program = rounded.program();
  program["graph_module"]["graph"]["tensor_values"]["linear_1"]["dtype"] = 5;  // int64
  rounded.write(dir_ / "rounded.pt2", program);
  for (const auto& [file, expected] :
       {std::pair{"count.pt2", "parameter \"count\" is Long: ampbench trains floating-point parameters"},
        std::pair{"rounded.pt2",
                  "the exported program returns Long values: logits must be floating point"}}) {
    try {
      read(dir_ / file);
      ADD_FAILURE() << file << ": not refused";
    } catch (const ampbench::util::InputError& e) {
      EXPECT_EQ(e.where(), "/model/options/path") << file;
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

// ids [N, 8] -> embedding (6 tokens, width 4) -> linear -> next-token logits [N, 8, 6], exported at a batch
// of 2; the context is dynamic too when `any_context`.
ProgramBuilder token_model(bool any_context = false) {
  ProgramBuilder b;
  b.state("embed.weight", torch::randn({6, 4}), true);
  b.state("head.weight", torch::randn({6, 4}), true);
  const auto context = any_context ? batch_size(8) : static_size(8);
  b.user_input("ids", {batch_size(2), context}, /*dtype=*/5);
  b.node("torch.ops.aten.embedding.default",
         {{"weight", tensor_argument("p_embed_weight")}, {"indices", tensor_argument("ids")}}, "hidden",
         {batch_size(2), context, static_size(4)});
  b.node(kLinear, {{"input", tensor_argument("hidden")}, {"weight", tensor_argument("p_head_weight")}},
         "logits", {batch_size(2), context, static_size(6)});
  b.output("logits");
  return b;
}

// A config's data sized to the program where the config leaves sizes out, all of it when "data" is missing;
// what the config gives is kept, and refused at its place when the program cannot take it.
TEST_F(ExportedModel, TheDataIsSizedToTheProgramWhereTheConfigLeavesItOut) {
  mlp().write(dir_ / "m.pt2");
  token_model().write(dir_ / "lm.pt2");
  token_model(/*any_context=*/true).write(dir_ / "any.pt2");
  auto parse = [&](const std::string& archive, const json& data) {
    json config{{"name", "fit"},
                {"model", {{"type", "exported"}, {"options", {{"path", (dir_ / archive).string()}}}}}};
    if (!data.is_null()) config["data"] = data;
    return ampbench::config::parse_experiment_config(config).data;
  };
  auto expect_input = [](const ampbench::data::DataOptions& data, const std::string& source,
                         std::vector<int64_t> shape, int64_t classes, int64_t train_samples) {
    EXPECT_EQ(ampbench::data::to_string(data.source()), source);
    EXPECT_EQ(data.sample_shape(), shape) << source;
    EXPECT_EQ(data.classes(), classes) << source;
    EXPECT_EQ(data.train_samples(), train_samples) << source;
  };
  expect_input(parse("m.pt2", nullptr), "synthetic", {4}, 3, 2048);
  expect_input(parse("m.pt2", {{"synthetic", {{"train_samples", 64}}}}), "synthetic", {4}, 3, 64);
  expect_input(parse("lm.pt2", nullptr), "synthetic_tokens", {8}, 6, 1024);
  expect_input(parse("lm.pt2", {{"tokens", {{"dir", "corpus"}}}}), "tokens", {8}, 6, 0);
  expect_input(parse("any.pt2", {{"synthetic_tokens", {{"context", 32}}}}), "synthetic_tokens", {32}, 6,
               1024);

  const std::vector<std::tuple<std::string, json, std::string, std::string>> refused{
      {"m.pt2",
       {{"synthetic", {{"shape", {5}}}}},
       "/data/synthetic/shape",
       "the exported program takes inputs [N, 4], the data gives samples of [N, 5]"},
      {"m.pt2",
       {{"synthetic", {{"classes", 7}}}},
       "/data/synthetic/shape",
       "the exported program returns [N, 3], not logits of [N, 7] for the data's 7 classes"},
      {"lm.pt2",
       {{"synthetic", json::object()}},
       "/data/synthetic/shape",
       "the exported program takes token ids: it needs token data (synthetic_tokens or tokens)"},
      {"lm.pt2",
       {{"mnist", {{"dir", "digits"}}}},
       "/data/mnist",
       "the exported program takes token ids: it needs token data (synthetic_tokens or tokens)"}};
  for (const auto& [archive, data, where, problem] : refused) {
    try {
      parse(archive, data);
      ADD_FAILURE() << problem << ": not refused";
    } catch (const ampbench::util::InputError& e) {
      EXPECT_EQ(e.where(), where) << problem;
      EXPECT_EQ(e.problem(), problem);
    }
  }
}

// Without "data", a program that takes a feature dimension of any size leaves the data unsized: refused.
TEST_F(ExportedModel, AProgramOfAnyFeatureSizeNeedsTheDataNamed) {
  ProgramBuilder b;
  b.user_input("x", {batch_size(2), batch_size(4)});
  b.node(kRelu, {{"self", tensor_argument("x")}}, "relu", {batch_size(2), batch_size(4)});
  b.output("relu");
  b.write(dir_ / "any.pt2");
  const json config{{"name", "fit"},
                    {"model", {{"type", "exported"}, {"options", {{"path", (dir_ / "any.pt2").string()}}}}}};
  try {
    ampbench::config::parse_experiment_config(config);
    ADD_FAILURE() << "not refused";
  } catch (const ampbench::util::InputError& e) {
    EXPECT_EQ(e.where(), "/data");
    EXPECT_EQ(e.problem(),
              "is missing, and the model takes inputs with a dimension of any size: name a data source that "
              "sets it");
  }
}

}  // namespace

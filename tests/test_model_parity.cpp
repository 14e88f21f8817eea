// ampbench's ViT and LLaMA decoder against the originals they are built after (torchvision's
// VisionTransformer, transformers' LlamaForCausalLM), run by tests/parity/model_oracles.py: the same
// weights by name, the same inputs, the same outputs within fp32 rounding. The originals come from the
// .venv-cuda that scripts/test installs (or python3's own packages); without them these tests skip and
// say why.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "models/registry.h"

#include "python_oracle.h"
#include "temp_dir_test.h"

namespace fs = std::filesystem;
using ampbench::models::InputSpec;

namespace {

class ModelParity : public ampbench::testing::TempDirTest {
 protected:
  // Builds `model`, gives every parameter random values (so that those the model zero-initialises, such
  // as ViT's head, carry a signal too), and runs `inputs` through it and through the original.
  void expect_original_agrees(const std::string& model, const nlohmann::json& options, const InputSpec& input,
                              const torch::Tensor& inputs) {
    ampbench::util::ObjectReader reader(options, "/model/options");
    auto spec = ampbench::models::find_model(model)->read(reader, input);
    torch::manual_seed(0);
    auto network = spec->build();
    network->eval();
    torch::NoGradGuard no_grad;
    c10::Dict<std::string, torch::Tensor> saved;
    for (const auto& item : network->named_parameters()) {
      item.value().add_(torch::randn_like(item.value()), /*alpha=*/0.1);
      saved.insert("weight/" + item.key(), item.value().detach());
    }
    saved.insert("inputs", inputs);
    save(saved, spec->options_json(), input);
    ASSERT_NO_FATAL_FAILURE(run_original(model));
    if (IsSkipped()) return;

    auto ours = network->forward(inputs);
    auto theirs = load_outputs();
    ASSERT_EQ(ours.sizes(), theirs.sizes());
    const double scale = std::max(1.0, theirs.abs().max().item<double>());
    EXPECT_LE((ours - theirs).abs().max().item<double>(), 1e-5 * scale);
    EXPECT_GT(theirs.std().item<double>(), 0.01);  // outputs that tell weights apart
    // The comparison notices a single changed weight.
    auto parameters = network->parameters();
    parameters.back().mul_(1.01);
    EXPECT_GT((network->forward(inputs) - theirs).abs().max().item<double>(), 1e-5 * scale);
  }

 private:
  void save(const c10::Dict<std::string, torch::Tensor>& saved, const nlohmann::json& options,
            const InputSpec& input) {
    ampbench::testing::write_tensors(saved, dir_ / "in.pt");
    std::ofstream(dir_ / "spec.json") << nlohmann::json{
        {"options", options}, {"shape", input.sample_shape}, {"classes", input.num_classes}};
  }

  void run_original(const std::string& model) {
    ampbench::testing::run_oracle("model_oracles.py",
                                  model + " " + (dir_ / "spec.json").string() + " " +
                                      (dir_ / "in.pt").string() + " " + (dir_ / "out.pt").string(),
                                  dir_ / "oracle.log");
  }

  torch::Tensor load_outputs() {
    return ampbench::testing::read_tensors(dir_ / "out.pt").at("outputs").toTensor();
  }
};

const nlohmann::json kVit{{"patch", 8}, {"n_layer", 2}, {"n_head", 4}, {"d_model", 32}, {"d_mlp", 64}};
const nlohmann::json kLlama{{"n_layer", 2},     {"n_head", 4},           {"n_kv_head", 2},
                            {"d_model", 32},    {"d_mlp", 48},           {"rope_theta", 10000.0},
                            {"norm_eps", 1e-6}, {"tie_embeddings", true}};

TEST_F(ModelParity, VitGivesTorchvisionsOutputsForTheSameWeights) {
  torch::manual_seed(1);
  expect_original_agrees("vit", kVit, InputSpec{{3, 32, 32}, 10}, torch::randn({2, 3, 32, 32}));
}

TEST_F(ModelParity, LlamaGivesTransformersOutputsForTheSameWeights) {
  torch::manual_seed(1);
  expect_original_agrees("llama", kLlama, InputSpec{{16}, 101, true}, torch::randint(101, {2, 16}));
}

TEST_F(ModelParity, UntiedLlamaGivesTransformersOutputsForTheSameWeights) {
  auto untied = kLlama;
  untied["tie_embeddings"] = false;
  torch::manual_seed(1);
  expect_original_agrees("llama", untied, InputSpec{{16}, 101, true}, torch::randint(101, {2, 16}));
}

}  // namespace

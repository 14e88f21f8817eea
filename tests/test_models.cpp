#include <gtest/gtest.h>
#include <torch/torch.h>

#include "models/llama.h"
#include "models/registry.h"

using namespace ampbench::models;

namespace {

// The model a config's model.options name, for this input.
std::shared_ptr<const ModelSpec> spec(const std::string& name, const nlohmann::json& options,
                                      const InputSpec& input) {
  ampbench::util::ObjectReader reader(options, "/model/options");
  return find_model(name)->read(reader, input);
}

// A reference model counts its training step as 3 x 2 x its forward pass's multiply-adds: those, back.
double forward_macs(const std::shared_ptr<const ModelSpec>& model) {
  return model->train_flops({}).per_sample / 6;
}

int64_t parameter_count(const torch::nn::Module& module) {
  int64_t count = 0;
  for (const auto& p : module.parameters()) count += p.numel();
  return count;
}

int64_t parameter_count(const std::string& name, int64_t classes, std::vector<int64_t> shape,
                        nlohmann::json options = {{"stem", "imagenet"}}) {
  return parameter_count(*spec(name, options, InputSpec{shape, classes})->build());
}

// Multiply-adds per sample of every Linear module of a model, applied once (to one token).
int64_t linear_weights(const torch::nn::Module& model) {
  int64_t count = 0;
  for (const auto& module : model.modules(/*include_self=*/false)) {
    if (auto* layer = module->as<torch::nn::Linear>()) count += layer->weight.numel();
  }
  return count;
}

// The message of the InputError that reading these options throws, or "" when they read.
std::string read_error(const std::string& name, const nlohmann::json& options, const InputSpec& input) {
  try {
    spec(name, options, input);
  } catch (const ampbench::util::InputError& e) {
    return e.what();
  }
  return "";
}

// A language model predicts every position, and changing the last token changes only the last
// position's prediction.
void expect_causal(Network& model, int64_t vocab, int64_t length) {
  torch::manual_seed(0);
  auto tokens = torch::randint(vocab, {2, length}, torch::kInt64);
  auto logits = model.forward(tokens);
  EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{2, length, vocab}));
  auto changed = tokens.clone();
  changed.select(1, length - 1).fill_(vocab - 1 - changed[0][length - 1].item<int64_t>());
  auto other = model.forward(changed);
  EXPECT_TRUE(torch::allclose(logits.narrow(1, 0, length - 1), other.narrow(1, 0, length - 1)));
  EXPECT_FALSE(torch::allclose(logits.narrow(1, length - 1, 1), other.narrow(1, length - 1, 1)));
}

// 3x32x32 images in 8x8 patches (16, and the class token), two blocks 32 wide with a 64-wide MLP.
const nlohmann::json kSmallVit{{"patch", 8}, {"n_layer", 2}, {"n_head", 4}, {"d_model", 32}, {"d_mlp", 64}};
const InputSpec kSmallImages{{3, 32, 32}, 10};
// Four query heads sharing two key/value heads, 8 wide each.
const nlohmann::json kSmallLlama{
    {"n_layer", 2}, {"n_head", 4}, {"n_kv_head", 2}, {"d_model", 32}, {"d_mlp", 48}};
const InputSpec kSmallTokens{{16}, 101, true};

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
  for (const char* name : {"mlp", "resnet18", "resnet34", "resnet50", "vit", "gpt", "llama"})
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
  expect_causal(*spec("gpt", options, InputSpec{{8}, 11, true})->build(), 11, 8);
}

TEST(Flops, ResNetForwardMultiplyAddsMatchTheKnownFigures) {
  auto macs = [](const std::string& name, std::vector<int64_t> shape, int64_t classes) {
    return forward_macs(spec(name, {{"stem", "imagenet"}}, InputSpec{shape, classes}));
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
  const int64_t linear = linear_weights(*model);
  EXPECT_EQ(linear, layers * 12 * width * width);
  // ...the tied head (d x vocab per token) and QK^T and AV (T x T x d each, per layer).
  const int64_t expected = (linear + width * vocab) * length + layers * 2 * length * length * width;
  EXPECT_EQ(forward_macs(spec("gpt", options, input)), expected);
}

TEST(Flops, MlpCountIsItsLinearLayers) {
  auto macs = forward_macs(spec("mlp", {{"width", 64}, {"depth", 2}}, InputSpec{{3, 4, 4}, 10}));
  EXPECT_EQ(macs, 48 * 64 + 64 * 64 + 64 * 10);
}

TEST(Models, VitAtVitB16SizeHasTorchvisionsParameterCount) {
  // torchvision.models.vit_b_16(): 224x224, patch 16, 12 layers, 12 heads, width 768, MLP 3072, 1000 classes.
  EXPECT_EQ(parameter_count("vit", 1000, {3, 224, 224}, nlohmann::json::object()), 86'567'656);
}

TEST(Models, SmallVitHasEachPartOnce) {
  const int64_t patch_embedding = 3 * 8 * 8 * 32 + 32, class_and_positions = 32 + 17 * 32;
  const int64_t block = 2 * (2 * 32) + (32 * 96 + 96) + (32 * 32 + 32) + (32 * 64 + 64) + (64 * 32 + 32);
  EXPECT_EQ(parameter_count("vit", 10, {3, 32, 32}, kSmallVit),
            patch_embedding + class_and_positions + 2 * block + 2 * 32 + (32 * 10 + 10));
}

TEST(Models, VitStartsFromUniformPredictions) {
  // torchvision zeroes the head, so every image starts at a loss of ln(classes).
  torch::manual_seed(0);
  auto logits = spec("vit", kSmallVit, kSmallImages)->build()->forward(torch::randn({4, 3, 32, 32}));
  EXPECT_EQ(logits.sizes(), (std::vector<int64_t>{4, 10}));
  EXPECT_TRUE(torch::equal(logits, torch::zeros({4, 10})));
}

TEST(Models, VitRefusesInputsItCannotCutIntoPatches) {
  EXPECT_EQ(read_error("vit", {{"patch", 5}}, kSmallImages),
            "a ViT with 5x5 patches needs images whose sides are multiples of 5, got 32x32");
  EXPECT_EQ(read_error("vit", {{"n_head", 5}}, kSmallImages),
            "/model/options/d_model: must be a multiple of n_head (5)");
  EXPECT_EQ(read_error("vit", nlohmann::json::object(), InputSpec{{48}, 10}), "a ViT needs [C, H, W] images");
}

TEST(Models, LlamaAtLlama32OneBShapeHasItsParameterCount) {
  // Llama-3.2-1B (the defaults): 16 layers, width 2048, 32 query and 8 key/value heads, MLP 8192, vocab
  // 128,256, tied head. Its 4.9 GB of fp32 weights are not allocated here: one block is built at that
  // shape, and SmallLlamaIsItsBlocksEmbeddingNormAndHead shows that a model is counted that way.
  auto read = spec("llama", nlohmann::json::object(), InputSpec{{2048}, 128'256, true});
  const auto& options = dynamic_cast<const ModelSpecOf<LlamaOptions>&>(*read).options();
  const int64_t block = parameter_count(*LlamaBlock(options)), embedding = 128'256 * 2048;
  EXPECT_EQ(options.n_layer() * block + embedding + 2048, 1'235'814'400);
  EXPECT_EQ(options.n_layer() * block + 2 * embedding + 2048, 1'498'482'688);  // untied
}

TEST(Models, SmallLlamaIsItsBlocksEmbeddingNormAndHead) {
  // Per block: two norms, q and o (32x32), k and v (32 -> 2 heads x 8), gate, up and down (32 x 48).
  const int64_t block = 2 * 32 + 2 * 32 * 32 + 2 * 32 * 16 + 3 * 32 * 48, embedding = 101 * 32;
  EXPECT_EQ(parameter_count(*LlamaBlock(LlamaOptions(101, 16).n_head(4).n_kv_head(2).d_model(32).d_mlp(48))),
            block);
  EXPECT_EQ(parameter_count(*spec("llama", kSmallLlama, kSmallTokens)->build()), 2 * block + embedding + 32);
  auto untied = kSmallLlama;
  untied["tie_embeddings"] = false;
  EXPECT_EQ(parameter_count(*spec("llama", untied, kSmallTokens)->build()), 2 * block + 2 * embedding + 32);
}

TEST(Models, LlamaIsCausalAndStartsNearUniformPredictions) {
  auto model = spec("llama", kSmallLlama, kSmallTokens)->build();
  expect_causal(*model, 101, 16);
  // N(0, 0.02) weights give near-zero logits: the first loss is close to ln(vocab), as in transformers.
  auto logits = model->forward(torch::randint(101, {4, 16}));
  auto loss = torch::nn::functional::cross_entropy(logits.flatten(0, 1), torch::randint(101, {64}));
  EXPECT_NEAR(loss.item<double>(), std::log(101.0), 0.05);
}

TEST(Models, LlamaNormalisesInFp32AndRoundsToTheInputsDtype) {
  RmsNorm norm(4, 1e-5);
  auto x = torch::tensor({{1.0, 2.0, 3.0, 4.0}});
  auto expected = x / std::sqrt((1.0 + 4.0 + 9.0 + 16.0) / 4.0 + 1e-5);
  EXPECT_TRUE(torch::allclose(norm->forward(x), expected));
  // A bf16 input is reduced in fp32, rounded to bf16, then scaled by the fp32 weight (as transformers does).
  auto from_bf16 = norm->forward(x.to(torch::kBFloat16));
  EXPECT_EQ(from_bf16.scalar_type(), torch::kFloat32);
  EXPECT_TRUE(torch::equal(from_bf16, expected.to(torch::kBFloat16).to(torch::kFloat32)));
}

TEST(Models, LlamaRefusesHeadsThatDoNotFit) {
  auto with = [](const char* key, int64_t value) {
    auto options = kSmallLlama;
    options[key] = value;
    return read_error("llama", options, kSmallTokens);
  };
  EXPECT_EQ(with("n_kv_head", 3), "/model/options/n_kv_head: must divide n_head (4)");
  EXPECT_EQ(
      with("d_model", 36),
      "/model/options/d_model: must give an even head width (d_model / n_head, 9): the rotary embedding "
      "turns pairs");
  EXPECT_EQ(with("context", 8), "sequences of 16 tokens are longer than the model's context (8)");
}

TEST(Flops, VitB16MatchesTorchvisionsFigure) {
  // torchvision gives vit_b_16 17.56 "GFLOPS", counted as multiply-adds.
  auto macs = forward_macs(spec("vit", nlohmann::json::object(), InputSpec{{3, 224, 224}, 1000}));
  EXPECT_NEAR(macs, 17.56e9, 0.005e9);
}

// Options within their ranges whose count is past int64 (a ViT of 1x1 patches on a 65536 x 65536 image
// attends over 2^32 + 1 tokens: 2 x 2^64 multiply-adds in its attention alone) are counted, not wrapped.
TEST(Flops, CountsPastInt64AreCountedNotWrapped) {
  const nlohmann::json options{{"patch", 1}, {"n_layer", 1}, {"n_head", 1}, {"d_model", 1}, {"d_mlp", 1}};
  const double macs = forward_macs(spec("vit", options, InputSpec{{1, 65536, 65536}, 2}));
  const double tokens = 65536.0 * 65536.0 + 1;
  EXPECT_DOUBLE_EQ(macs, 2 * tokens * tokens + (tokens - 1) + 6 * tokens + 2);
  const nlohmann::json gpt{{"n_layer", 1024}, {"n_head", 1}, {"d_model", 1 << 16}, {"context", 1 << 20}};
  EXPECT_GT(forward_macs(spec("gpt", gpt, InputSpec{{1 << 20}, 1 << 24, true})), 1e20);
}

TEST(Flops, VitCountIsItsLayersOnEveryTokenTheAttentionTheStemAndTheHead) {
  auto model = spec("vit", kSmallVit, kSmallImages)->build();
  const int64_t head = 32 * 10, tokens = 17;
  const int64_t encoder = linear_weights(*model) - head;
  EXPECT_EQ(encoder, 2 * (4 * 32 * 32 + 2 * 32 * 64));
  const int64_t expected = 16 * (3 * 8 * 8) * 32 + encoder * tokens + 2 * 2 * tokens * tokens * 32 + head;
  EXPECT_EQ(forward_macs(spec("vit", kSmallVit, kSmallImages)), expected);
}

TEST(Flops, LlamaCountIsEveryLinearLayerTheHeadAndTheAttentionMatmuls) {
  auto untied = kSmallLlama;
  untied["tie_embeddings"] = false;
  const int64_t length = 16, attention = 2 * 2 * length * length * 32;  // QK^T and AV per layer
  // Untied, the head is one more Linear module; tied, it is the embedding's d x vocab.
  const int64_t linear = linear_weights(*spec("llama", untied, kSmallTokens)->build());
  EXPECT_EQ(linear, 2 * (2 * 32 * 32 + 2 * 32 * 16 + 3 * 32 * 48) + 32 * 101);
  EXPECT_EQ(forward_macs(spec("llama", untied, kSmallTokens)), linear * length + attention);
  const int64_t tied_linear = linear_weights(*spec("llama", kSmallLlama, kSmallTokens)->build());
  EXPECT_EQ(forward_macs(spec("llama", kSmallLlama, kSmallTokens)),
            (tied_linear + 32 * 101) * length + attention);
}

// The memory estimate counts a model from its options before anything is made: for every model, and
// options that reach each branch of its count (stems, bottlenecks, projections, depth 0, untied heads,
// grouped heads), the count is the built model's.
TEST(ModelSize, CountedFromTheOptionsIsTheBuiltModels) {
  struct Case {
    std::string model;
    nlohmann::json options;
    InputSpec input;
  };
  const Case cases[] = {
      {"mlp", {{"width", 8}, {"depth", 2}}, {{3, 2, 2}, 3}},
      {"mlp", {{"width", 5}, {"depth", 0}}, {{7}, 4}},
      {"resnet18", {{"stem", "imagenet"}}, {{3, 32, 32}, 10}},
      {"resnet18", {{"stem", "cifar"}}, {{1, 8, 8}, 7}},
      {"resnet34", {{"stem", "cifar"}}, {{3, 8, 8}, 2}},
      {"resnet50", {{"stem", "imagenet"}}, {{2, 32, 32}, 5}},
      {"gpt", {{"n_layer", 2}, {"n_head", 2}, {"d_model", 8}}, {{6}, 11, true}},
      {"gpt", {{"n_layer", 1}, {"n_head", 1}, {"d_model", 4}, {"context", 9}}, {{3}, 5, true}},
      {"vit", kSmallVit, kSmallImages},
      {"vit", {{"patch", 4}, {"n_layer", 1}, {"n_head", 1}, {"d_model", 6}, {"d_mlp", 10}}, {{1, 8, 12}, 3}},
      {"llama", kSmallLlama, kSmallTokens},
      {"llama",
       {{"n_layer", 1},
        {"n_head", 2},
        {"n_kv_head", 1},
        {"d_model", 12},
        {"d_mlp", 7},
        {"tie_embeddings", false}},
       {{5}, 13, true}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.model + " " + c.options.dump());
    const auto read = spec(c.model, c.options, c.input);
    const auto model = read->build();
    int64_t buffers = 0;
    for (const auto& b : model->buffers()) buffers += b.numel();
    EXPECT_EQ(read->size().parameters, double(parameter_count(*model)));
    EXPECT_EQ(read->size().buffers, double(buffers));
  }
}

// Options far past what any machine holds are counted, not overflowed: GPT's vocabulary of 2^24 at
// width 2^16 is 2^40 embedding weights alone.
TEST(ModelSize, OptionsPastAnyMachineAreCountedWithoutOverflow) {
  const auto read =
      spec("gpt", {{"n_layer", 1024}, {"n_head", 1}, {"d_model", 1 << 16}}, {{8}, 1 << 24, true});
  EXPECT_GT(read->size().parameters, 12.0 * 1024 * double(1 << 16) * double(1 << 16));
}

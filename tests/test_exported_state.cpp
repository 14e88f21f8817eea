// An exported model's integer and bool state through the pure bf16 cast: only floating state changes format,
// so an int64 count used in the arithmetic keeps 257 (bf16 holds 256 or 258) and an index buffer still
// indexes, in an archive written here (export_fixture.h).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "amp/weight_format.h"
#include "models/network.h"
#include "models/registry.h"

#include "export_fixture.h"
#include "temp_dir_test.h"

namespace {

using ampbench::testing::batch_size;
using ampbench::testing::json;
using ampbench::testing::static_size;
using ampbench::testing::tensor_argument;

class ExportedState : public ampbench::testing::TempDirTest {};

// x [N, 4] -> fc (4 -> 3) -> index_select(columns by `order`) -> divided by `count`.
TEST_F(ExportedState, IntegerBuffersKeepTheirTypeAndValueWhenTheModelTrainsInPureBf16) {
  torch::manual_seed(3);
  const auto weight = torch::randn({3, 4}), bias = torch::randn({3});
  const auto order = torch::tensor({2, 0, 1}, torch::kLong);
  const auto count = torch::tensor(int64_t(257));
  ampbench::testing::ProgramBuilder b;
  b.state("fc.weight", weight, true);
  b.state("fc.bias", bias, true);
  b.state("order", order, false);
  b.state("count", count, false);
  const std::vector<json> sizes{batch_size(2), static_size(3)};
  b.user_input("x", {batch_size(2), static_size(4)});
  b.node("torch.ops.aten.linear.default",
         {{"input", tensor_argument("x")},
          {"weight", tensor_argument("p_fc_weight")},
          {"bias", tensor_argument("p_fc_bias")}},
         "scores", sizes);
  b.node(
      "torch.ops.aten.index_select.default",
      {{"self", tensor_argument("scores")}, {"dim", static_size(1)}, {"index", tensor_argument("b_order")}},
      "ordered", sizes);
  b.node("torch.ops.aten.div.Tensor",
         {{"self", tensor_argument("ordered")}, {"other", tensor_argument("b_count")}}, "scaled", sizes);
  b.output("scaled");
  const auto path = dir_ / "state.pt2";
  b.write(path);
  const json document{{"path", path.string()}};
  ampbench::util::ObjectReader options(document, "/model/options");
  auto model = ampbench::models::find_model("exported")->read(options, {{4}, 3, false})->build();

  ampbench::amp::cast_to_weight_dtype(*model, ampbench::amp::PrecisionMode::bf16_pure);
  const auto buffers = model->named_buffers();
  EXPECT_EQ(buffers["count"].scalar_type(), torch::kLong);
  EXPECT_EQ(buffers["count"].item<int64_t>(), 257);
  EXPECT_TRUE(buffers["order"].equal(order));
  for (const auto& parameter : model->parameters()) EXPECT_EQ(parameter.scalar_type(), torch::kBFloat16);
  const auto x = torch::randn({5, 4});
  const auto out = model->forward(x.to(torch::kBFloat16)).to(torch::kFloat32);
  const auto expected = torch::linear(x, weight, bias).index_select(1, order) / 257.0;
  EXPECT_TRUE(torch::allclose(out, expected, 0.02, 0.002)) << out << expected;
}

}  // namespace

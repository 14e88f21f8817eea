// A torch.export argument's floats are read as the serializer writes them: JSON numbers, and the strings
// "Infinity", "-Infinity" and "NaN" for the values JSON has no number for (a causal mask's
// masked_fill(-inf)); anything else is refused saying what it is.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "models/export_binding.h"
#include "util/input_error.h"

namespace {

using ampbench::models::bind_argument;
using nlohmann::json;

const auto kNoValues = [](const std::string&) -> ampbench::models::Slot { return -1; };

double float_bound(const json& serialized) {
  const c10::Argument value("value", c10::FloatType::get());
  const auto bound = bind_argument(serialized, value, kNoValues);
  EXPECT_EQ(bound.elements.size(), 1u);
  return bound.elements.at(0).constant.toDouble();
}

TEST(ExportBinding, AFloatIsANumberOrTheStringTheSerializerWritesForANonFiniteOne) {
  EXPECT_EQ(float_bound({{"as_float", 0.5}}), 0.5);
  EXPECT_EQ(float_bound({{"as_float", "-Infinity"}}), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(float_bound({{"as_float", "Infinity"}}), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(float_bound({{"as_float", "NaN"}})));
}

TEST(ExportBinding, AListOfFloatsAndASymbolicFloatReadTheSameStrings) {
  const c10::Argument list("values", c10::ListType::ofFloats());
  const auto bound = bind_argument({{"as_floats", {1.0, "-Infinity", "NaN"}}}, list, kNoValues);
  const auto values = bound.elements.at(0).constant.toDoubleVector();
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0], 1.0);
  EXPECT_EQ(values[1], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(values[2]));
  const c10::Argument scalar("value", c10::FloatType::get());
  const auto symbolic = bind_argument({{"as_sym_float", {{"as_float", "Infinity"}}}}, scalar, kNoValues);
  EXPECT_EQ(symbolic.elements.at(0).constant.toDouble(), std::numeric_limits<double>::infinity());
}

TEST(ExportBinding, AStringThatIsNoFloatIsRefusedNamingIt) {
  try {
    float_bound({{"as_float", "-inf"}});
    FAIL() << "a float \"-inf\" was read";
  } catch (const ampbench::util::InputError& e) {
    EXPECT_EQ(e.problem(), "has a float \"-inf\" that is neither a number nor Infinity, -Infinity or NaN");
  }
}

}  // namespace

#include "profile/op_class.h"

#include <initializer_list>

#include "util/enum_names.h"

namespace ampbench::profile {
namespace {

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool any_of(std::string_view name, std::initializer_list<std::string_view> names) {
  for (auto candidate : names) {
    if (name == candidate) return true;
  }
  return false;
}

bool contains_any(std::string_view name, std::initializer_list<std::string_view> parts) {
  for (auto part : parts) {
    if (contains(name, part)) return true;
  }
  return false;
}

// copy_(dst, src) between two dtypes is a conversion; within one dtype it only moves data.
bool converts(std::string_view name, const std::vector<std::string>& dtypes) {
  if (any_of(name, {"_to_copy", "to", "_autocast_to_reduced_precision", "_autocast_to_full_precision"}))
    return true;
  return name == "copy_" && dtypes.size() >= 2 && dtypes[0] != dtypes[1];
}

bool is_matmul_or_conv(std::string_view name) {
  return contains(name, "conv") ||
         any_of(name, {"mm", "addmm", "bmm", "baddbmm", "addbmm", "matmul", "linear", "addmv", "mv", "dot",
                       "einsum", "mkldnn_linear", "_addmm_activation", "linalg_vecdot", "_scaled_mm"});
}

bool is_elementwise(std::string_view name) {
  return contains_any(name,
                      {"relu", "gelu", "silu", "sigmoid", "tanh", "threshold", "dropout", "softplus"}) ||
         any_of(name,
                {"add",       "add_",       "sub",    "sub_",        "mul",          "mul_",       "div",
                 "div_",      "rsub",       "neg",    "exp",         "log",          "pow",        "sqrt",
                 "rsqrt",     "reciprocal", "square", "abs",         "sign",         "erf",        "clamp",
                 "clamp_min", "clamp_max",  "where",  "masked_fill", "masked_fill_", "lerp_",      "addcmul_",
                 "addcdiv_",  "eq",         "ne",     "lt",          "le",           "gt",         "ge",
                 "isfinite",  "isinf",      "isnan",  "logical_not", "logical_and",  "logical_or", "cos",
                 "sin",       "triu",       "tril"});
}

bool is_data_movement(std::string_view name) {
  return contains_any(name, {"index", "gather", "scatter", "embedding"}) || any_of(name, {"copy_",
                                                                                          "cat",
                                                                                          "stack",
                                                                                          "clone",
                                                                                          "contiguous",
                                                                                          "view",
                                                                                          "_unsafe_view",
                                                                                          "reshape",
                                                                                          "_reshape_alias",
                                                                                          "t",
                                                                                          "transpose",
                                                                                          "permute",
                                                                                          "expand",
                                                                                          "as_strided",
                                                                                          "narrow",
                                                                                          "slice",
                                                                                          "select",
                                                                                          "unsqueeze",
                                                                                          "squeeze",
                                                                                          "split",
                                                                                          "split_with_sizes",
                                                                                          "chunk",
                                                                                          "unbind",
                                                                                          "flatten",
                                                                                          "unflatten",
                                                                                          "detach",
                                                                                          "alias",
                                                                                          "resolve_conj",
                                                                                          "resolve_neg",
                                                                                          "repeat",
                                                                                          "roll",
                                                                                          "pad",
                                                                                          "constant_pad_nd",
                                                                                          "_pin_memory",
                                                                                          "pin_memory"});
}

}  // namespace

std::string_view to_string(OpClass op_class) {
  static constexpr util::EnumNames<OpClass, kOpClasses> kNames{{{OpClass::matmul_conv, "matmul_conv"},
                                                                {OpClass::attention, "attention"},
                                                                {OpClass::normalization, "normalization"},
                                                                {OpClass::elementwise, "elementwise"},
                                                                {OpClass::reduction_loss, "reduction_loss"},
                                                                {OpClass::cast, "cast"},
                                                                {OpClass::optimizer, "optimizer"},
                                                                {OpClass::data_movement, "data_movement"},
                                                                {OpClass::other, "other"}}};
  return util::name_of(kNames, op_class);
}

OpClass classify_op(std::string_view name, const std::vector<std::string>& dtypes) {
  if (name.starts_with("aten::")) name.remove_prefix(6);
  // The optimizer and GradScaler run LibTorch's fused and foreach kernels (gradient clipping too).
  if (contains_any(name, {"_fused_", "_foreach_", "_amp_"})) return OpClass::optimizer;
  if (converts(name, dtypes)) return OpClass::cast;
  if (contains_any(name, {"scaled_dot_product", "flash_attention", "efficient_attention", "cudnn_attention"}))
    return OpClass::attention;
  if (contains_any(name, {"layer_norm", "batch_norm", "group_norm", "rms_norm", "instance_norm"}))
    return OpClass::normalization;
  if (is_matmul_or_conv(name)) return OpClass::matmul_conv;
  if (contains_any(name, {"softmax", "loss", "pool", "logsumexp"}) ||
      any_of(name, {"sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "norm",
                    "linalg_vector_norm", "var", "std", "var_mean", "cumsum", "prod"}))
    return OpClass::reduction_loss;
  if (is_elementwise(name)) return OpClass::elementwise;
  if (is_data_movement(name)) return OpClass::data_movement;
  return OpClass::other;
}

bool is_16bit_dtype(std::string_view dtype) { return dtype == "c10::Half" || dtype == "c10::BFloat16"; }

bool is_float8_dtype(std::string_view dtype) { return dtype.starts_with("c10::Float8_"); }

bool is_floating_dtype(std::string_view dtype) {
  return is_16bit_dtype(dtype) || is_float8_dtype(dtype) || dtype == "float" || dtype == "double";
}

}  // namespace ampbench::profile

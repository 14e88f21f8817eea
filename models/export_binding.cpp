#include "models/export_binding.h"

#include <ATen/ScalarOps.h>
#include <ATen/core/jit_type.h>

#include <limits>
#include <vector>

#include "models/export_enums.h"
#include "util/input_error.h"

namespace ampbench::models {
namespace {

using nlohmann::json;
using Kind = BoundArgument::Kind;
using util::InputError;

BoundArgument constant(c10::IValue value) {
  return {Kind::single, {BoundElement{-1, std::move(value)}}, true, false};
}

// A schema argument's type, an Optional's element type for an optional one.
c10::TypePtr element_type(const c10::Argument& schema_argument) {
  auto type = schema_argument.type();
  if (const auto* optional = type->castRaw<c10::OptionalType>()) return optional->getElementType();
  return type;
}

// batch_norm's and native_batch_norm's `training`, dropout's `train`, and native_dropout's `bool? train`.
bool is_training_flag(const c10::Argument& schema_argument) {
  return element_type(schema_argument)->kind() == c10::TypeKind::BoolType &&
         (schema_argument.name() == "training" || schema_argument.name() == "train");
}

// The program's value of a training flag: true, false, or None, which native_dropout reads as true.
BoundArgument training_flag(const std::string& kind, const json& value) {
  BoundArgument out{Kind::training_flag, {}, true, false};
  if (kind == "as_bool")
    out.exported_training = value.get<bool>();
  else if (kind != "as_none")
    throw InputError("is a training flag of kind " + kind + ", where ampbench reads true, false or None");
  return out;
}

// Whether the schema wants a float, or a list of them, where the program wrote an int (Python's 1 for 1.0,
// upsample's scale_factors=[2, 2]).
bool wants_float(const c10::Argument& schema_argument) {
  auto type = element_type(schema_argument);
  if (const auto* list = type->castRaw<c10::ListType>()) type = list->getElementType();
  return type->kind() == c10::TypeKind::FloatType;
}

// Where the schema wants a tensor the program may pass a Python number (add_(1)), which eager PyTorch
// wraps into a 0-dim tensor that type promotion treats as a number; so does this.
c10::IValue as_schema_wants(c10::IValue value, const c10::Argument& schema_argument) {
  if (element_type(schema_argument)->kind() != c10::TypeKind::TensorType ||
      !(value.isInt() || value.isDouble() || value.isBool()))
    return value;
  return at::native::wrapped_scalar_tensor(value.toScalar());
}

// A float as torch.export's serializer writes it: a JSON number, or for the values JSON has no number for,
// the strings "Infinity", "-Infinity" and "NaN" (a causal mask's masked_fill(-inf)).
double float_of(const json& value) {
  if (value.is_number()) return value.get<double>();
  if (value == "Infinity") return std::numeric_limits<double>::infinity();
  if (value == "-Infinity") return -std::numeric_limits<double>::infinity();
  if (value == "NaN") return std::numeric_limits<double>::quiet_NaN();
  throw InputError("has a float " + value.dump() +
                   " that is neither a number nor Infinity, -Infinity or NaN");
}

std::vector<double> floats_of(const json& values) {
  if (!values.is_array()) throw InputError("has a list of floats " + values.dump() + " that is not a list");
  std::vector<double> out;
  for (const auto& value : values) out.push_back(float_of(value));
  return out;
}

// A union member that names a value or holds a constant: {"as_name": ...} or {"as_int"/"as_bool"/...}.
BoundElement element_of(const json& member, const std::function<Slot(const std::string&)>& slot_of) {
  if (member.contains("as_name")) return {slot_of(member.at("as_name").get<std::string>()), {}};
  if (member.contains("name"))
    return {slot_of(member.at("name").get<std::string>()), {}};  // a TensorArgument
  if (member.contains("as_tensor"))
    return {slot_of(member.at("as_tensor").at("name").get<std::string>()), {}};
  if (member.contains("as_int")) return {-1, member.at("as_int").get<int64_t>()};
  if (member.contains("as_float")) return {-1, float_of(member.at("as_float"))};
  if (member.contains("as_bool")) return {-1, member.at("as_bool").get<bool>()};
  if (member.contains("as_none")) return {-1, c10::IValue()};
  throw InputError("has a list element " + member.dump() + " that ampbench cannot read");
}

BoundArgument list_of(Kind kind, const json& members,
                      const std::function<Slot(const std::string&)>& slot_of) {
  BoundArgument out{kind, {}};
  for (const auto& member : members) out.elements.push_back(element_of(member, slot_of));
  return out;
}

template <typename Enum>
c10::IValue enum_value(std::optional<Enum> value, const std::string& kind, const json& serialized) {
  if (!value)
    throw InputError("is " + kind + " " + serialized.dump() + ", which torch.export's schema does not name");
  return *value;
}

template <typename T>
c10::List<T> list_from(const json& values) {
  c10::List<T> out;
  for (const auto& value : values) out.push_back(value.get<T>());
  return out;
}

// The constant kinds: a value the program fixed.
std::optional<c10::IValue> constant_of(const std::string& kind, const json& value, bool as_float) {
  if (kind == "as_none") return c10::IValue();
  if (kind == "as_int")
    return as_float ? c10::IValue(double(value.get<int64_t>())) : c10::IValue(value.get<int64_t>());
  if (kind == "as_ints" && as_float) {
    const auto ints = value.get<std::vector<int64_t>>();
    return c10::IValue(std::vector<double>(ints.begin(), ints.end()));
  }
  if (kind == "as_ints") return c10::IValue(value.get<std::vector<int64_t>>());
  if (kind == "as_float") return float_of(value);
  if (kind == "as_floats") return c10::IValue(floats_of(value));
  if (kind == "as_bool") return value.get<bool>();
  if (kind == "as_bools") return c10::IValue(list_from<bool>(value));
  if (kind == "as_string") return value.get<std::string>();
  if (kind == "as_strings") return c10::IValue(list_from<std::string>(value));
  if (kind == "as_scalar_type") return enum_value(scalar_type_of(value.get<int64_t>()), "scalar type", value);
  if (kind == "as_layout") return enum_value(layout_of(value.get<int64_t>()), "layout", value);
  if (kind == "as_memory_format")
    return enum_value(memory_format_of(value.get<int64_t>()), "memory format", value);
  return std::nullopt;
}

}  // namespace

const json& union_member(const json& value, std::string& kind) {
  if (!value.is_object() || value.size() != 1) throw InputError("has a malformed value " + value.dump());
  kind = value.begin().key();
  return value.begin().value();
}

BoundArgument bind_argument(const json& argument, const c10::Argument& schema_argument,
                            const std::function<Slot(const std::string&)>& slot_of) {
  std::string kind;
  const auto& value = union_member(argument, kind);
  if (is_training_flag(schema_argument)) return training_flag(kind, value);
  if (kind == "as_device") return {Kind::device, {}};  // the export's device (arange's, to's) is the run's
  if (auto fixed = constant_of(kind, value, wants_float(schema_argument)))
    return constant(as_schema_wants(std::move(*fixed), schema_argument));
  if (kind == "as_tensor" || kind == "as_sym_int" || kind == "as_sym_bool" || kind == "as_sym_float")
    return {Kind::single, {element_of(value, slot_of)}};
  if (kind == "as_tensors") return list_of(Kind::tensor_list, value, slot_of);
  if (kind == "as_optional_tensors") return list_of(Kind::optional_tensor_list, value, slot_of);
  if (kind == "as_sym_ints") return list_of(Kind::int_list, value, slot_of);
  if (kind == "as_sym_floats") return list_of(Kind::float_list, value, slot_of);
  if (kind == "as_sym_bools") return list_of(Kind::bool_list, value, slot_of);
  throw InputError("is a kind of argument (" + kind + ") that ampbench cannot pass");
}

BoundArgument bind_default(const c10::Argument& schema_argument) {
  if (!schema_argument.default_value()) throw InputError("is required and not given");
  return constant(*schema_argument.default_value());
}

namespace {

template <typename T>
c10::List<T> list_value(const BoundArgument& argument, const std::vector<c10::IValue>& values) {
  c10::List<T> out;
  out.reserve(argument.elements.size());
  for (const auto& element : argument.elements)
    out.push_back((element.slot >= 0 ? values[element.slot] : element.constant).to<T>());
  return out;
}

}  // namespace

c10::IValue value_of(const BoundArgument& argument, const std::vector<c10::IValue>& values,
                     const RunState& state) {
  switch (argument.kind) {
    case Kind::single: {
      const auto& element = argument.elements.front();
      return element.slot >= 0 ? values[element.slot] : element.constant;
    }
    case Kind::training_flag:
      return state.training ? argument.exported_training : argument.training_in_eval;
    case Kind::device:
      return state.device;
    case Kind::tensor_list:
      return list_value<at::Tensor>(argument, values);
    case Kind::optional_tensor_list:
      return list_value<std::optional<at::Tensor>>(argument, values);
    case Kind::int_list:
      return list_value<int64_t>(argument, values);
    case Kind::float_list:
      return list_value<double>(argument, values);
    case Kind::bool_list:
      return list_value<bool>(argument, values);
  }
  return {};
}

}  // namespace ampbench::models

#include "util/json_schema.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

#include "util/embedded_schemas.h"
#include "util/input_error.h"
#include "util/json_reader.h"
#include "util/printable.h"

namespace ampbench::util {
namespace {

using nlohmann::json;

// The keywords a subschema may hold: the rules checked below, and the annotations that check nothing.
const std::set<std::string>& known_keywords() {
  static const std::set<std::string> keywords{"type",    "enum",        "const",    "minimum",
                                              "maximum", "properties",  "required", "additionalProperties",
                                              "items",   "minItems",    "maxItems", "anyOf",
                                              "$ref",    "$schema",     "$id",      "$defs",
                                              "title",   "description", "$comment"};
  return keywords;
}

bool is_integer(const json& value) {
  if (value.is_number_integer()) return true;
  if (!value.is_number_float()) return false;
  const auto number = value.get<double>();
  return std::isfinite(number) && std::floor(number) == number;
}

bool has_type(const json& value, const std::string& type) {
  if (type == "null") return value.is_null();
  if (type == "boolean") return value.is_boolean();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "number") return value.is_number();
  if (type == "integer") return is_integer(value);
  throw std::invalid_argument("unknown type \"" + type + "\"");
}

// Every subschema of `schema` holds only known keywords, and every $ref points into the document.
void check_keywords(const json& root, const json& schema, const std::string& where) {
  if (schema.is_boolean()) return;
  if (!schema.is_object()) throw std::invalid_argument(where + " is not a schema");
  for (const auto& [keyword, value] : schema.items()) {
    if (!known_keywords().count(keyword))
      throw std::invalid_argument(where + ": the keyword \"" + keyword +
                                  "\" is not one this validator checks");
    if (keyword == "type") {
      for (const auto& name : value.is_array() ? value : json::array({value}))
        has_type(json(), name.get<std::string>());  // throws for a type it does not know
    }
    if (keyword == "$ref") {
      const auto ref = value.get<std::string>();
      if (ref.rfind("#/", 0) != 0 || !root.contains(json::json_pointer(ref.substr(1))))
        throw std::invalid_argument(where + ": $ref \"" + ref + "\" is not a place in this schema");
    }
  }
  for (const char* keyword : {"properties", "$defs"}) {
    if (!schema.contains(keyword)) continue;
    for (const auto& [name, sub] : schema[keyword].items())
      check_keywords(root, sub, where + "/" + keyword + "/" + name);
  }
  for (const char* keyword : {"items", "additionalProperties"}) {
    if (schema.contains(keyword)) check_keywords(root, schema[keyword], where + "/" + keyword);
  }
  if (schema.contains("anyOf")) {
    for (size_t i = 0; i < schema["anyOf"].size(); ++i)
      check_keywords(root, schema["anyOf"][i], where + "/anyOf/" + std::to_string(i));
  }
}

std::string escaped(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

class Validation {
 public:
  explicit Validation(const json& root) : root_(root) {}

  // The first rule of `schema` that `value`, at `pointer`, breaks.
  std::optional<std::string> check(const json& schema, const json& value, const std::string& pointer) const {
    if (schema.is_boolean())
      return schema.get<bool>() ? std::nullopt : violation(pointer, "no value is allowed here");
    if (schema.contains("$ref")) {
      const auto ref = schema["$ref"].get<std::string>();
      if (auto found = check(root_[json::json_pointer(ref.substr(1))], value, pointer)) return found;
    }
    if (auto found = check_value(schema, value, pointer)) return found;
    if (value.is_object()) return check_object(schema, value, pointer);
    if (value.is_array()) return check_array(schema, value, pointer);
    return std::nullopt;
  }

 private:
  static std::optional<std::string> violation(const std::string& pointer, const std::string& rule) {
    return (pointer.empty() ? "the document" : pointer) + ": " + rule;
  }

  // The rules on the value itself: its type, the values allowed, its bounds, and the alternatives.
  std::optional<std::string> check_value(const json& schema, const json& value,
                                         const std::string& pointer) const {
    if (schema.contains("type")) {
      const auto& type = schema["type"];
      bool matched = false;
      for (const auto& name : type.is_array() ? type : json::array({type}))
        matched = matched || has_type(value, name.get<std::string>());
      if (!matched) return violation(pointer, describe_json(value) + " is not of type " + type.dump());
    }
    if (schema.contains("const") && value != schema["const"])
      return violation(pointer, describe_json(value) + " is not " + schema["const"].dump());
    if (schema.contains("enum")) {
      const auto& allowed = schema["enum"];
      if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
        return violation(pointer, describe_json(value) + " is not one of " + allowed.dump());
    }
    if (value.is_number()) {
      const auto number = value.get<double>();
      if (schema.contains("minimum") && number < schema["minimum"].get<double>())
        return violation(pointer, value.dump() + " is below the minimum " + schema["minimum"].dump());
      if (schema.contains("maximum") && number > schema["maximum"].get<double>())
        return violation(pointer, value.dump() + " is above the maximum " + schema["maximum"].dump());
    }
    if (schema.contains("anyOf")) {
      bool matched = false;
      for (const auto& alternative : schema["anyOf"])
        matched = matched || !check(alternative, value, pointer);
      if (!matched)
        return violation(pointer, describe_json(value) + " matches none of the schemas allowed here");
    }
    return std::nullopt;
  }

  std::optional<std::string> check_object(const json& schema, const json& value,
                                          const std::string& pointer) const {
    if (schema.contains("required")) {
      for (const auto& key : schema["required"]) {
        if (!value.contains(key.get<std::string>()))
          return violation(pointer, "the required key " + key.dump() + " is missing");
      }
    }
    const auto* properties = schema.contains("properties") ? &schema["properties"] : nullptr;
    for (const auto& [key, member] : value.items()) {
      const auto at = pointer + "/" + escaped(key);
      if (properties && properties->contains(key)) {
        if (auto found = check((*properties)[key], member, at)) return found;
      } else if (schema.contains("additionalProperties")) {
        const auto& extra = schema["additionalProperties"];
        if (extra.is_boolean() && !extra.get<bool>())
          return violation(at, "the key is not one the schema allows here");
        if (auto found = check(extra, member, at)) return found;
      }
    }
    return std::nullopt;
  }

  std::optional<std::string> check_array(const json& schema, const json& value,
                                         const std::string& pointer) const {
    const auto count = static_cast<int64_t>(value.size());
    if (schema.contains("minItems") && count < schema["minItems"].get<int64_t>())
      return violation(pointer, std::to_string(count) + " items, fewer than " + schema["minItems"].dump());
    if (schema.contains("maxItems") && count > schema["maxItems"].get<int64_t>())
      return violation(pointer, std::to_string(count) + " items, more than " + schema["maxItems"].dump());
    if (!schema.contains("items")) return std::nullopt;
    for (size_t i = 0; i < value.size(); ++i) {
      if (auto found = check(schema["items"], value[i], pointer + "/" + std::to_string(i))) return found;
    }
    return std::nullopt;
  }

  const json& root_;
};

}  // namespace

JsonSchema::JsonSchema(json schema) : schema_(std::move(schema)) { check_keywords(schema_, schema_, "#"); }

std::optional<std::string> JsonSchema::first_violation(const json& document) const {
  return Validation(schema_).check(schema_, document, "");
}

void require_schema(const json& document, const std::string& schema_file, const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, JsonSchema> loaded;
  const JsonSchema* schema = nullptr;
  {
    std::lock_guard lock(mutex);
    auto it = loaded.find(schema_file);
    if (it == loaded.end())
      it = loaded.emplace(schema_file, JsonSchema(json::parse(embedded_schema(schema_file)))).first;
    schema = &it->second;
  }
  if (auto violation = schema->first_violation(document))
    throw InputError(path, "does not match docs/" + schema_file + ": " + printable(*violation, 300));
}

}  // namespace ampbench::util

#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ampbench::util {

// A JSON Schema (draft 2020-12) for checking the reports ampbench reads back, written for the keywords the
// project's own schemas use: type, enum, const, minimum, maximum, properties, required,
// additionalProperties, items, minItems, maxItems, anyOf and $ref into the document's $defs. No packaged
// C++ validator is available to the build, so this one refuses at construction any schema with a keyword
// it does not check (std::invalid_argument naming it), rather than skipping a rule silently; a test holds
// it to Python's jsonschema on mutated reports.
class JsonSchema {
 public:
  explicit JsonSchema(nlohmann::json schema);

  // The first place where `document` breaks the schema: its JSON pointer and the rule, e.g.
  // "/trials/0/memory/peak_bytes: -7 is below the minimum 0"; nullopt when it is valid.
  std::optional<std::string> first_violation(const nlohmann::json& document) const;

 private:
  nlohmann::json schema_;
};

// Refuses a document that breaks docs/<schema_file> as this build embedded it (util/embedded_schemas.h):
// throws InputError naming `path`, the schema and the first violation.
void require_schema(const nlohmann::json& document, const std::string& schema_file, const std::string& path);

}  // namespace ampbench::util

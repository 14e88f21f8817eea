#pragma once

#include <string>
#include <string_view>

namespace ampbench::util {

// The text of one of docs/'s schema files ("report.schema.json", "sweep.schema.json",
// "max_batch.schema.json") as this build embedded it (cmake/EmbedSchemas.cmake), so that what ampbench reads
// back is checked against the schema its docs publish; std::invalid_argument for another name.
std::string_view embedded_schema(const std::string& file_name);

}  // namespace ampbench::util

// libFuzzer target for the config reader: any bytes must give a config or an InputError, never a crash,
// a hang or another exception. Built by scripts/fuzz (clang); its corpus is tests/fuzz/corpus.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "config/experiment_config.h"
#include "util/json_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json document;
  try {
    // As read_config_file: every nlohmann exception while parsing is the user's bad input, and so is a
    // key given twice.
    document = ampbench::util::parse_json_strictly(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const nlohmann::json::exception&) {
    return 0;
  } catch (const ampbench::util::InputError&) {
    return 0;
  }
  try {
    auto config = ampbench::config::parse_experiment_config(document);
    // What parses must also resolve and parse again to the same thing.
    auto resolved = ampbench::config::to_json(config);
    if (ampbench::config::to_json(ampbench::config::parse_experiment_config(resolved)) != resolved)
      __builtin_trap();
  } catch (const ampbench::util::InputError&) {
  }
  return 0;
}

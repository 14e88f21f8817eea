// libFuzzer target for the report reader behind `compare`: any bytes must give a comparison or an
// InputError, never a crash, a hang or another exception; and a report compared with itself changed in
// nothing. Built by scripts/fuzz (clang); its corpus is tests/fuzz/report_corpus.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "compare/compare.h"
#include "compare/compare_render.h"

namespace {

// Every figure of a mode NEW finished is BASE's own: no change, and nothing past a limit.
void expect_unchanged(const ampbench::compare::Comparison& comparison) {
  using ampbench::compare::ChangeVerdict;
  for (const auto& mode : comparison.modes) {
    if (mode.unfinished_in_new) continue;
    for (const auto* change : {&mode.speed, &mode.memory, &mode.val_loss}) {
      if (change->change != 0 || change->verdict != ChangeVerdict::ok) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json document;
  try {
    // As compare reads a file: what does not parse is not a report.
    document = nlohmann::json::parse(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  try {
    const auto comparison = ampbench::compare::compare_reports(document, document, {}, /*force=*/false);
    expect_unchanged(comparison);
    // Every format compare writes, from whatever the reader let through.
    ampbench::compare::comparison_to_console(comparison);
    ampbench::compare::comparison_to_markdown(comparison);
    ampbench::compare::comparison_to_json(comparison).dump();
  } catch (const ampbench::util::InputError&) {
  }
  return 0;
}

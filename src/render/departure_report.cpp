#include "render/departure_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/json_values.h"
#include "util/text_table.h"

namespace ampbench::report {
namespace {

// The layers a line names.
constexpr size_t kLayersNamed = 3;

std::optional<double> relative_error(const amp::OperandFigures& f) {
  if (!(f.squares > 0)) return std::nullopt;
  return std::sqrt(f.error_squares / f.squares);
}

nlohmann::json operand_json(const std::string& name, const amp::OperandFigures& f) {
  return {{"operand", name},
          {"blocks", f.blocks},
          {"saturated_share", optional_json(share(f.saturated, f.blocks))},
          {"flushed_share", optional_json(share(f.flushed, f.blocks))},
          {"relative_error", optional_json(relative_error(f))},
          {"largest", f.largest}};
}

std::string percent(const std::optional<double>& value) {
  return value ? util::format_number("%.2f%%", 100 * *value) : "-";
}

// The operand whose quantization lost the most, as a table cell: "grad_output 12.3% (flushed 4.0%)".
std::string worst_operand(const train::LayerDeparture& layer) {
  const std::pair<const std::string, amp::OperandFigures>* worst = nullptr;
  for (const auto& operand : layer.operands) {
    const auto error = relative_error(operand.second);
    if (error && (!worst || *error > relative_error(worst->second).value_or(0))) worst = &operand;
  }
  if (!worst) return "-";
  const auto& f = worst->second;
  return worst->first + " " + percent(relative_error(f)) + " (saturated " +
         percent(share(f.saturated, f.blocks)) + ", flushed " + percent(share(f.flushed, f.blocks)) + ")";
}

}  // namespace

std::vector<const train::LayerDeparture*> most_departing(const train::NumericsRecord& record) {
  std::vector<const train::LayerDeparture*> layers;
  for (const auto& layer : record.departures) layers.push_back(&layer);
  std::stable_sort(layers.begin(), layers.end(), [](const auto* a, const auto* b) {
    return a->output_relative_error().value_or(0) > b->output_relative_error().value_or(0);
  });
  return layers;
}

nlohmann::json departures_json(const train::NumericsRecord& record) {
  auto out = nlohmann::json::array();
  for (const auto& layer : record.departures) {
    auto operands = nlohmann::json::array();
    for (const auto& [name, figures] : layer.operands) operands.push_back(operand_json(name, figures));
    out.push_back({{"layer", layer.layer},
                   {"output_relative_error", optional_json(layer.output_relative_error())},
                   {"weight_gradient_cosine", optional_json(layer.gradient_cosine())},
                   {"operands", operands}});
  }
  return out;
}

util::TextRows departures_table(const std::vector<train::NumericsRecord>& records) {
  util::TextRows rows;
  for (const auto& record : records) {
    for (const auto* layer : most_departing(record)) {
      const auto cosine = layer->gradient_cosine();
      rows.push_back({std::string(amp::to_string(record.mode)), layer->layer,
                      percent(layer->output_relative_error()),
                      cosine ? util::format_number("%.6f", *cosine) : "-", worst_operand(*layer)});
    }
  }
  if (rows.empty()) return rows;
  rows.insert(rows.begin(), {"mode", "layer", "output off fp32's", "weight-gradient cosine",
                             "operand quantized worst (error, blocks saturated and flushed)"});
  return rows;
}

std::vector<std::string> departure_lines(const std::vector<train::NumericsRecord>& records) {
  std::vector<std::string> lines;
  for (const auto& record : records) {
    const auto layers = most_departing(record);
    if (layers.empty()) continue;
    std::vector<std::string> named;
    for (size_t i = 0; i < std::min(layers.size(), kLayersNamed); ++i) {
      const auto cosine = layers[i]->gradient_cosine();
      named.push_back(fmt::format("{} (output {} off fp32's{})", layers[i]->layer,
                                  percent(layers[i]->output_relative_error()),
                                  cosine ? fmt::format(", weight-gradient cosine {:.4f}", *cosine) : ""));
    }
    lines.push_back(
        fmt::format("{} departs most from fp32 at {}", amp::to_string(record.mode), util::join(named, ", ")));
  }
  return lines;
}

}  // namespace ampbench::report

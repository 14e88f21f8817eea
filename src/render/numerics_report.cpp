#include "render/numerics_report.h"

#include <cmath>

#include <spdlog/fmt/fmt.h>

#include "numerics/format_limits.h"
#include "render/departure_report.h"
#include "report/json_values.h"
#include "train/stop_request.h"
#include "util/csv_cells.h"
#include "util/csv_table.h"

namespace ampbench::report {
namespace {

using numerics::LayerRanges;
using numerics::RangeFigures;
using train::NumericsRecord;
using train::ParameterNumerics;

std::optional<double> largest(const RangeFigures& r) {
  return r.elements > 0 ? std::optional<double>(r.largest) : std::nullopt;
}

std::optional<double> headroom(const RangeFigures& r, c10::ScalarType format) {
  return r.elements > 0 ? numerics::headroom_binades(r.largest, format) : std::nullopt;
}

// Of a layer's nonzero gradient elements at the loss scale, those that without it would flush or turn
// subnormal (a lower bound: see RangeFigures).
std::optional<double> underflow_unscaled(const RangeFigures& r) {
  return share(r.flushed_unscaled + r.subnormal_unscaled, r.nonzero);
}

std::optional<double> gradient_headroom(const ParameterNumerics& p, c10::ScalarType format) {
  return p.gradient_nonzero > 0 ? numerics::headroom_binades(p.gradient_largest_at_scale, format)
                                : std::nullopt;
}

std::optional<double> update_ratio(const ParameterNumerics& p) {
  if (!(p.weight_squares > 0)) return std::nullopt;
  return std::sqrt(p.update_squares / p.weight_squares);
}

std::optional<double> lost_share(const ParameterNumerics& p) {
  return p.updates_lost ? share(*p.updates_lost, p.updates) : std::nullopt;
}

bool stopped(const NumericsRecord& r) { return r.failure && r.failure->starts_with(train::kStoppedBy); }

// A stopped pass's steps measured before the stop keep their figures; an error leaves none.
bool measured(const NumericsRecord& r) { return (!r.failure || stopped(r)) && !r.steps.empty(); }

nlohmann::json range_json(const RangeFigures& r, c10::ScalarType format) {
  return {{"largest", optional_json(largest(r))},
          {"headroom_binades", optional_json(headroom(r, format))},
          {"elements", r.elements},
          {"nonzero", r.nonzero},
          {"subnormal", r.subnormal},
          {"subnormal_share", optional_json(share(r.subnormal, r.elements))},
          {"nonfinite", r.nonfinite}};
}

// A layer's gradients: their range at the loss scale, and under one what dividing by it would have done.
nlohmann::json gradients_json(const RangeFigures& r, const NumericsRecord& record) {
  auto out = range_json(r, record.format);
  out["unscaled"] = record.loss_scales.empty()
                        ? nlohmann::json()
                        : nlohmann::json{{"flushed", r.flushed_unscaled},
                                         {"subnormal", r.subnormal_unscaled},
                                         {"underflow_share", optional_json(underflow_unscaled(r))}};
  return out;
}

nlohmann::json parameter_json(const ParameterNumerics& p, c10::ScalarType format) {
  const auto ratio = update_ratio(p);
  const auto in_epsilons = ratio ? nlohmann::json(*ratio / *numerics::epsilon(format)) : nlohmann::json();
  return {{"name", p.name},
          {"elements", p.elements},
          {"gradient",
           {{"largest", p.gradient_nonzero > 0 ? nlohmann::json(p.gradient_largest) : nlohmann::json()},
            {"largest_at_scale",
             p.gradient_nonzero > 0 ? nlohmann::json(p.gradient_largest_at_scale) : nlohmann::json()},
            {"headroom_binades_at_scale", optional_json(gradient_headroom(p, format))},
            {"nonzero", p.gradient_nonzero},
            {"nonfinite", p.gradient_nonfinite}}},
          {"update",
           {{"ratio_to_weight", optional_json(ratio)},
            {"ratio_in_epsilons", in_epsilons},
            {"changed", p.updates},
            {"lost_in_format", optional_json(p.updates_lost)},
            {"lost_share", optional_json(lost_share(p))}}}};
}

nlohmann::json record_json(const NumericsRecord& r) {
  auto layers = nlohmann::json::array();
  for (const auto& l : r.layers)
    layers.push_back({{"layer", l.layer},
                      {"activations", range_json(l.forward, r.format)},
                      {"gradients", gradients_json(l.backward, r)}});
  auto parameters = nlohmann::json::array();
  for (const auto& p : r.parameters) parameters.push_back(parameter_json(p, r.format));
  return {{"mode", amp::to_string(r.mode)},
          {"format", amp::dtype_name(r.format)},
          {"format_largest", *numerics::largest_finite(r.format)},
          {"format_smallest_normal", *numerics::smallest_normal(r.format)},
          {"format_epsilon", *numerics::epsilon(r.format)},
          {"steps", r.steps},
          {"loss_scales", r.loss_scales},
          {"layers", layers},
          {"parameters", parameters},
          {"departures", departures_json(r)},
          {"failure", optional_json(r.failure)}};
}

std::string number_text(const std::optional<double>& value, const char* pattern = "%.4g") {
  return value ? util::format_number(pattern, *value) : "-";
}

std::string percent_text(const std::optional<double>& value) {
  return value ? util::format_number("%.2f%%", 100 * *value) : "-";
}

// The loss scales in force at the sampled steps: "65536", or "1024 to 65536".
std::string scales_text(const std::vector<double>& scales) {
  if (scales.empty()) return "";
  const auto [low, high] = std::minmax_element(scales.begin(), scales.end());
  return *low == *high ? fmt::format("{:g}", *low) : fmt::format("{:g} to {:g}", *low, *high);
}

// The layer whose figures in one direction come nearest the format's largest value.
const LayerRanges* least_headroom(const NumericsRecord& r, bool forward) {
  const LayerRanges* least = nullptr;
  std::optional<double> lowest;
  for (const auto& l : r.layers) {
    const auto h = headroom(forward ? l.forward : l.backward, r.format);
    if (h && (!lowest || *h < *lowest)) {
      lowest = h;
      least = &l;
    }
  }
  return least;
}

template <typename Row, typename Figure>
const Row* most(const std::vector<Row>& rows, Figure figure) {
  const Row* top = nullptr;
  double highest = 0;
  for (const auto& row : rows) {
    const auto value = figure(row);
    if (value && *value > highest) {
      highest = *value;
      top = &row;
    }
  }
  return top;
}

std::string nonfinite_text(const NumericsRecord& r) {
  std::vector<std::string> parts;
  for (const auto& l : r.layers) {
    if (l.forward.nonfinite > 0)
      parts.push_back(fmt::format("{} inf/NaN activations in {}", l.forward.nonfinite, l.layer));
    if (l.backward.nonfinite > 0)
      parts.push_back(fmt::format("{} inf/NaN gradients in {}", l.backward.nonfinite, l.layer));
  }
  return parts.empty() ? "" : util::join(parts, ", ") + "; ";
}

std::string headroom_text(const NumericsRecord& r) {
  const auto max = *numerics::largest_finite(r.format);
  std::vector<std::string> parts;
  if (const auto* l = least_headroom(r, true))
    parts.push_back(fmt::format("activations {} {:.1f} binades (largest {:.6g} of {:g})", l->layer,
                                *headroom(l->forward, r.format), l->forward.largest, max));
  if (const auto* l = least_headroom(r, false))
    parts.push_back(fmt::format("gradients {} {:.1f} binades (largest {:.6g})", l->layer,
                                *headroom(l->backward, r.format), l->backward.largest));
  return parts.empty() ? "" : "least headroom: " + util::join(parts, ", ");
}

// The layer whose fp16 gradients would lose the most to underflow without the loss scale, and what they
// lose at it; a mode without a loss scale has only the latter.
std::string underflow_text(const NumericsRecord& r) {
  if (r.loss_scales.empty()) {
    const auto* l =
        most(r.layers, [](const LayerRanges& l) { return share(l.backward.subnormal, l.backward.nonzero); });
    if (!l) return "no gradient element is subnormal in " + amp::dtype_name(r.format);
    return fmt::format("most subnormal gradients: {} {:.2f}% of nonzero elements", l->layer,
                       100 * *share(l->backward.subnormal, l->backward.nonzero));
  }
  const auto* l = most(r.layers, [](const LayerRanges& l) { return underflow_unscaled(l.backward); });
  if (!l) return "no gradient element would flush or turn subnormal without the loss scale";
  return fmt::format(
      "most gradient underflow without the loss scale: {} {:.2f}% of its nonzero fp16 gradient elements "
      "would flush or turn subnormal (at least), {:.2f}% are subnormal at it",
      l->layer, 100 * *underflow_unscaled(l->backward),
      100 * *share(l->backward.subnormal, l->backward.nonzero));
}

std::string lost_text(const NumericsRecord& r) {
  if (amp::recipe_of(r.mode).weights == r.format) return "";
  const auto* p = most(r.parameters, lost_share);
  if (!p) return fmt::format("no update would be lost in {} weights", amp::dtype_name(r.format));
  return fmt::format("most updates that would be lost were the weights stored in {}: {} {:.2f}%",
                     amp::dtype_name(r.format), p->name, 100 * *lost_share(*p));
}

std::string line_of(const NumericsRecord& r) {
  const auto mode = std::string(amp::to_string(r.mode));
  if (r.failure && !stopped(r)) return mode + ": the numerics pass failed: " + *r.failure;
  if (r.steps.empty())
    return mode + ": the numerics pass measured no step" + (r.failure ? ": " + *r.failure : "");
  std::vector<std::string> steps;
  for (auto s : r.steps) steps.push_back(std::to_string(s));
  auto text = fmt::format("{} ({}) at step{} {}", mode, amp::dtype_name(r.format),
                          steps.size() > 1 ? "s" : "", util::join(steps, ", "));
  if (!r.loss_scales.empty()) text += ", loss scale " + scales_text(r.loss_scales);
  std::vector<std::string> parts{headroom_text(r), underflow_text(r), lost_text(r)};
  std::erase(parts, std::string());
  if (r.failure) parts.push_back("then " + *r.failure);
  return text + ": " + nonfinite_text(r) + util::join(parts, "; ");
}

// A row of numerics.csv; a layer row has `layer`, a parameter row `parameter`.
struct NumericsRow {
  const NumericsRecord* record;
  const LayerRanges* layer = nullptr;
  const ParameterNumerics* parameter = nullptr;
};

template <typename Cell>
std::function<std::string(const NumericsRow&)> layer_cell(Cell cell) {
  return [cell](const NumericsRow& r) { return r.layer ? cell(*r.layer, r.record->format) : std::string(); };
}

// A layer's cell that only a mode with a loss scale has.
template <typename Cell>
std::function<std::string(const NumericsRow&)> scaled_layer_cell(Cell cell) {
  return [cell](const NumericsRow& r) {
    return r.layer && !r.record->loss_scales.empty() ? cell(*r.layer) : std::string();
  };
}

template <typename Cell>
std::function<std::string(const NumericsRow&)> parameter_cell(Cell cell) {
  return [cell](const NumericsRow& r) {
    return r.parameter ? cell(*r.parameter, r.record->format) : std::string();
  };
}

template <typename T>
std::string cell(const T& value) {
  return util::csv_number(value);
}

const util::CsvColumns<NumericsRow>& numerics_columns() {
  using L = const LayerRanges&;
  using P = const ParameterNumerics&;
  using F = c10::ScalarType;
  static const util::CsvColumns<NumericsRow> columns{
      {"mode", [](const NumericsRow& r) { return std::string(amp::to_string(r.record->mode)); }},
      {"format", [](const NumericsRow& r) { return amp::dtype_name(r.record->format); }},
      {"row", [](const NumericsRow& r) { return std::string(r.layer ? "layer" : "parameter"); }},
      {"name",
       [](const NumericsRow& r) { return util::text_cell(r.layer ? r.layer->layer : r.parameter->name); }},
      {"activation_largest", layer_cell([](L l, F) { return util::optional_cell(largest(l.forward)); })},
      {"activation_headroom_binades",
       layer_cell([](L l, F f) { return util::optional_cell(headroom(l.forward, f)); })},
      {"activation_elements", layer_cell([](L l, F) { return cell(l.forward.elements); })},
      {"activation_subnormal", layer_cell([](L l, F) { return cell(l.forward.subnormal); })},
      {"activation_nonfinite", layer_cell([](L l, F) { return cell(l.forward.nonfinite); })},
      {"layer_gradient_largest", layer_cell([](L l, F) { return util::optional_cell(largest(l.backward)); })},
      {"layer_gradient_headroom_binades",
       layer_cell([](L l, F f) { return util::optional_cell(headroom(l.backward, f)); })},
      {"layer_gradient_elements", layer_cell([](L l, F) { return cell(l.backward.elements); })},
      {"layer_gradient_nonzero", layer_cell([](L l, F) { return cell(l.backward.nonzero); })},
      {"layer_gradient_subnormal", layer_cell([](L l, F) { return cell(l.backward.subnormal); })},
      {"layer_gradient_nonfinite", layer_cell([](L l, F) { return cell(l.backward.nonfinite); })},
      {"layer_gradient_flushed_unscaled",
       scaled_layer_cell([](L l) { return cell(l.backward.flushed_unscaled); })},
      {"layer_gradient_subnormal_unscaled",
       scaled_layer_cell([](L l) { return cell(l.backward.subnormal_unscaled); })},
      {"elements", parameter_cell([](P p, F) { return cell(p.elements); })},
      {"gradient_largest", parameter_cell([](P p, F) { return cell(p.gradient_largest); })},
      {"gradient_largest_at_scale", parameter_cell([](P p, F) { return cell(p.gradient_largest_at_scale); })},
      {"gradient_headroom_binades_at_scale",
       parameter_cell([](P p, F f) { return util::optional_cell(gradient_headroom(p, f)); })},
      {"gradient_nonzero", parameter_cell([](P p, F) { return cell(p.gradient_nonzero); })},
      {"gradient_nonfinite", parameter_cell([](P p, F) { return cell(p.gradient_nonfinite); })},
      {"update_weight_ratio", parameter_cell([](P p, F) { return util::optional_cell(update_ratio(p)); })},
      {"updates", parameter_cell([](P p, F) { return cell(p.updates); })},
      {"updates_lost_in_format", parameter_cell([](P p, F) { return util::optional_cell(p.updates_lost); })},
  };
  return columns;
}

}  // namespace

nlohmann::json numerics_json(const std::vector<NumericsRecord>& records) {
  auto out = nlohmann::json::array();
  for (const auto& r : records) out.push_back(record_json(r));
  return out;
}

util::TextRows numerics_layers_table(const std::vector<NumericsRecord>& records) {
  util::TextRows rows{{"mode", "layer", "activation max", "headroom", "subnormal", "gradient max", "headroom",
                       "subnormal", "underflow unscaled", "inf/NaN"}};
  for (const auto& r : records) {
    if (!measured(r)) continue;
    for (const auto& l : r.layers) {
      rows.push_back({std::string(amp::to_string(r.mode)), l.layer, number_text(largest(l.forward)),
                      number_text(headroom(l.forward, r.format), "%.1f"),
                      percent_text(share(l.forward.subnormal, l.forward.elements)),
                      number_text(largest(l.backward)), number_text(headroom(l.backward, r.format), "%.1f"),
                      percent_text(share(l.backward.subnormal, l.backward.elements)),
                      r.loss_scales.empty() ? "-" : ">= " + percent_text(underflow_unscaled(l.backward)),
                      std::to_string(l.forward.nonfinite + l.backward.nonfinite)});
    }
  }
  return rows.size() == 1 ? util::TextRows{} : rows;
}

util::TextRows numerics_parameters_table(const std::vector<NumericsRecord>& records) {
  util::TextRows rows{
      {"mode", "parameter", "gradient max", "headroom at scale", "update/weight", "in eps", "updates lost"}};
  for (const auto& r : records) {
    if (!measured(r)) continue;
    for (const auto& p : r.parameters) {
      const auto ratio = update_ratio(p);
      rows.push_back({std::string(amp::to_string(r.mode)), p.name,
                      p.gradient_nonzero > 0 ? util::format_number("%.4g", p.gradient_largest) : "-",
                      number_text(gradient_headroom(p, r.format), "%.1f"), number_text(ratio, "%.3g"),
                      ratio ? util::format_number("%.3g", *ratio / *numerics::epsilon(r.format)) : "-",
                      p.updates_lost ? percent_text(lost_share(p)) : "audit"});
    }
  }
  return rows.size() == 1 ? util::TextRows{} : rows;
}

std::string numerics_footnote(const std::vector<NumericsRecord>& records) {
  if (numerics_layers_table(records).empty() && numerics_parameters_table(records).empty()) return "";
  return "numerics: an untimed replay of each mode's first trial but fp32's, the figures summed over the "
         "sampled "
         "steps; layers: the results in the format of the ops each layer ran, forward (activation) and "
         "backward (gradient, as backward carries it: at the loss scale in fp16); headroom: binades from the "
         "largest finite magnitude to the format's largest value; subnormal: elements below the format's "
         "smallest normal; underflow unscaled (fp16): of the nonzero gradient elements at the loss scale, "
         "those that divided by it and rounded to fp16 flush or turn subnormal, what backward would lose "
         "without the scaler at least; update/weight: the root-mean-square of the optimizer's fp32 update "
         "over the weights', in eps the format's epsilon (an update below 0.25 to 0.5 eps of its weight is "
         "lost to rounding to nearest); updates lost: "
         "updates below half an ulp of the weight were it stored in the format (audit: the pure bf16 modes "
         "store it, their lost-update audit counts them); departure: each linear layer against an fp32 copy "
         "of the model given the mode's weights at the sampled step, on the same batch and random numbers: "
         "its output's relative error and its weight gradient's cosine; a block-scaled mode's operands: the "
         "relative error of the quantized operand and its blocks that saturated or flushed";
}

std::vector<std::string> numerics_lines(const std::vector<NumericsRecord>& records) {
  std::vector<std::string> lines;
  for (const auto& r : records) lines.push_back(line_of(r));
  return lines;
}

std::string to_numerics_csv(const std::vector<NumericsRecord>& records) {
  std::vector<NumericsRow> rows;
  for (const auto& r : records) {
    for (const auto& l : r.layers) rows.push_back({&r, &l, nullptr});
    for (const auto& p : r.parameters) rows.push_back({&r, nullptr, &p});
  }
  return util::render_csv(numerics_columns(), rows);
}

}  // namespace ampbench::report

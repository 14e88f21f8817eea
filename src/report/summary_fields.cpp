#include "report/summary_fields.h"

#include "report/json_values.h"
#include "util/csv_cells.h"

namespace ampbench::report {
namespace {

using Getter = std::function<nlohmann::json(const ModeSummary&)>;

template <typename T>
Getter member(T ModeSummary::*field) {
  return [field](const ModeSummary& s) {
    if constexpr (requires { (s.*field).has_value(); }) {
      return optional_json(s.*field);
    } else {
      return nlohmann::json(s.*field);
    }
  };
}

nlohmann::json statistics_json(const measure::Summary& s) {
  return {{"count", s.count},
          {"mean", optional_json(s.mean)},
          {"median", optional_json(s.median)},
          {"stddev", optional_json(s.stddev)},
          {"cv", optional_json(s.cv)},
          {"iqr", optional_json(s.iqr)},
          {"min", optional_json(s.min)},
          {"max", optional_json(s.max)}};
}

nlohmann::json interval_json(const std::optional<measure::Interval>& interval) {
  return interval ? nlohmann::json{interval->low, interval->high} : nlohmann::json();
}

nlohmann::json trials_compared_json(const std::vector<TrialRate>& rates) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rates)
    out.push_back({{"trial", r.trial}, {"epochs", r.epochs}, {"samples_per_second", r.samples_per_second}});
  return out;
}

nlohmann::json step_seconds_json(const ModeSummary& s) {
  if (!s.step_seconds) return nullptr;
  return {{"p50", s.step_seconds->p50}, {"p90", s.step_seconds->p90}, {"p99", s.step_seconds->p99}};
}

nlohmann::json fidelity_detail_json(const ModeSummary& s) {
  const auto& f = s.fidelity;
  return {{"seeds", f.seeds},
          {"val_loss", statistics_json(f.val_loss)},
          {"val_accuracy_mean", optional_json(f.val_accuracy_mean)},
          {"val_perplexity_mean", optional_json(f.val_perplexity_mean)},
          {"noise_floor", optional_json(s.fidelity_noise_floor)},
          {"tolerance", f.tolerance},
          {"paired_seeds", f.paired_seeds},
          {"delta_mean", optional_json(f.delta_mean)},
          {"delta_interval_95", interval_json(f.delta_interval)},
          {"seeds_needed", optional_json(f.seeds_needed)},
          {"seeds_never_stepped", f.seeds_never_stepped}};
}

const std::vector<std::string_view> kStatisticsParts{"count", "median", "cv"};

// The fields, in report.json's order. Each description is the one docs/report.schema.json gives (a test
// holds them equal).
std::vector<SummaryField> make_fields() {
  using T = FieldType;
  return {
      {"mode", T::string, false, "the precision mode (modes[] has its row)",
       [](const ModeSummary& s) { return nlohmann::json(amp::to_string(s.mode)); }},
      {"trials", T::integer, false, "finished timed trials", member(&ModeSummary::trials)},
      {"epochs_compared", T::list, false,
       "the epochs every speed figure compares (the first is left out when there are several)",
       member(&ModeSummary::epochs_compared)},
      {"trials_compared", T::list, false,
       "each finished timed trial of the mode, in the order they ran: its compared epochs (the first is left "
       "out when there are several) and its samples/s over them; every speed figure, and compare, is built "
       "from these",
       [](const ModeSummary& s) { return trials_compared_json(s.trials_compared); }},
      {"samples_per_second", T::object, false,
       "samples/s over the compared epochs of every finished timed trial",
       [](const ModeSummary& s) { return statistics_json(s.samples_per_second); }, kStatisticsParts},
      {"epoch_seconds", T::object, false, "the compared epochs' timed seconds",
       [](const ModeSummary& s) { return statistics_json(s.epoch_seconds); }, kStatisticsParts},
      {"step_seconds",
       T::object,
       true,
       "percentiles of the compared epochs' step times; null on a GPU",
       step_seconds_json,
       {"p50", "p90", "p99"}},
      {"peak_bytes", T::integer, false, "the largest peak memory over trials",
       member(&ModeSummary::peak_bytes)},
      {"static_bytes", T::integer, true, "weights + gradients + optimizer state (largest over trials)",
       member(&ModeSummary::static_bytes)},
      {"activation_bytes", T::integer, true, "peak - static (largest over trials)",
       member(&ModeSummary::activation_bytes)},
      {"val_loss", T::number, false, "the final epoch's val loss, median over trials",
       member(&ModeSummary::val_loss)},
      {"val_accuracy", T::number, false, "the final epoch's val accuracy, median over trials",
       member(&ModeSummary::val_accuracy)},
      {"val_perplexity", T::number, true, "language models: exp(val_loss), median over trials",
       member(&ModeSummary::val_perplexity)},
      {"achieved_tflops", T::number, true,
       "train_flops_per_sample x median trial samples/s / 1e12; null for an emulated mode",
       member(&ModeSummary::achieved_tflops)},
      {"peak_tflops", T::number, true,
       "the device's dense peak for this mode's arithmetic (built-in table or peak_tflops); null when "
       "unknown",
       member(&ModeSummary::peak_tflops)},
      {"mfu", T::number, true,
       "achieved_tflops / peak_tflops; null when the peak is unknown, and for an emulated mode",
       member(&ModeSummary::mfu)},
      {"emulated", T::boolean, false,
       "its products were emulated here (a block-scaled mode on a device without the format's kernels; the "
       "emulated warning says why): its time is the emulation's, so no speed-up, TFLOP/s or MFU is read from "
       "it",
       member(&ModeSummary::emulated)},
      {"speedup_vs_fp32", T::number, true,
       "median trial samples/s over fp32's; null without fp32, and for an emulated mode (emulated)",
       member(&ModeSummary::speedup_vs_fp32)},
      {"speedup_interval_95", T::interval, true,
       "95 % bootstrap interval of speedup_vs_fp32 over trials; null for fp32, for an emulated mode, and "
       "with fewer than two trials of either mode",
       [](const ModeSummary& s) { return interval_json(s.speedup_interval); }},
      {"speedup_vs_bf16", T::number, true,
       "the modes whose row is also read against bf16 (modes[].also_against), when bf16 ran too: median "
       "samples/s over bf16's; null otherwise, and for an emulated mode",
       member(&ModeSummary::speedup_vs_bf16)},
      {"speedup_vs_bf16_interval_95", T::interval, true,
       "95 % bootstrap interval of speedup_vs_bf16 over trials; null with fewer than two trials of either "
       "mode",
       [](const ModeSummary& s) { return interval_json(s.speedup_vs_bf16_interval); }},
      {"memory_ratio_vs_fp32", T::number, true, "peak_bytes over fp32's",
       member(&ModeSummary::memory_ratio_vs_fp32)},
      {"activation_ratio_vs_fp32", T::number, true, "activation_bytes over fp32's",
       member(&ModeSummary::activation_ratio_vs_fp32)},
      {"static_ratio_vs_fp32", T::number, true,
       "static memory (weights, gradients, optimizer state as the allocator held them after the first "
       "optimizer step) over fp32's",
       member(&ModeSummary::static_ratio_vs_fp32)},
      {"static_ratio_vs_bf16", T::number, true,
       "the modes also read against bf16: static memory over mixed bf16's",
       member(&ModeSummary::static_ratio_vs_bf16)},
      {"lost_update_share", T::number, true,
       "the pure bf16 modes: of the audited steps' weight elements whose exact update changed them, the "
       "share whose stored bf16 weight (and Kahan compensation) did not change",
       member(&ModeSummary::lost_update_share)},
      {"lost_update_mass", T::number, true,
       "the pure bf16 modes: 1 - taken / wanted over the audited steps (update_audits[]): the share of the "
       "updates' magnitude the stored weights did not take",
       member(&ModeSummary::lost_update_mass)},
      {"val_loss_delta_vs_fp32", T::number, true, "val_loss - fp32's",
       member(&ModeSummary::val_loss_delta_vs_fp32)},
      {"fidelity", T::string, true,
       "the val loss's paired difference from fp32 over fidelity_detail.paired_seeds seeds, within "
       "+-fidelity_detail.tolerance: pass when its 95 % interval lies inside, fail when wholly outside, "
       "inconclusive when it straddles a bound; with one seed, |delta| <= tolerance decides (pass or fail) "
       "and a no_noise_floor warning says so; null for fp32 and without fp32",
       [](const ModeSummary& s) {
         return s.fidelity.verdict ? nlohmann::json(to_string(*s.fidelity.verdict)) : nlohmann::json();
       }},
      {"fidelity_detail",
       T::object,
       false,
       "the final val loss over the fidelity seeds, and against fp32's",
       fidelity_detail_json,
       {"seeds", "val_loss.mean", "val_loss.stddev", "val_accuracy_mean", "noise_floor", "tolerance",
        "paired_seeds", "delta_mean", "delta_interval_95.low", "delta_interval_95.high", "seeds_needed"}},
      {"grad_cosine_vs_fp32", T::number, true,
       "cosine similarity of the first batch's gradient at the initial weights with fp32's",
       member(&ModeSummary::grad_cosine_vs_fp32)},
      {"low_precision_flop_share", T::number, true,
       "the profiled pass's share of matrix FLOPs that ran in fp16, bf16 or float8 "
       "(profiles[].precision.low_precision_flop_share); null without a profiled pass, when it failed, or "
       "without matrix FLOPs",
       member(&ModeSummary::low_precision_flop_share)},
      {"cpu_share", T::number, true, "the median compared epoch's trials[].epochs[].cpu.cpu_share",
       member(&ModeSummary::cpu_share)},
      {"run_queue_wait_share_max", T::number, true,
       "the largest compared epoch's cpu.run_queue_wait_share; null where the kernel keeps no run-queue "
       "figures",
       member(&ModeSummary::run_queue_wait_share)},
  };
}

// A part of a value: keys through objects, "low" and "high" through an interval; null where it is missing.
nlohmann::json part_of(const nlohmann::json& value, std::string_view path) {
  const nlohmann::json* at = &value;
  while (!path.empty() && !at->is_null()) {
    const auto dot = path.find('.');
    const auto key = std::string(path.substr(0, dot));
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    if (at->is_array()) {
      at = &at->at(key == "low" ? 0 : 1);
    } else {
      static const nlohmann::json kNull;
      at = at->contains(key) ? &at->at(key) : &kNull;
    }
  }
  return *at;
}

std::string cell(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return util::text_cell(value.get<std::string>());
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  return util::csv_number(value.get<double>());
}

// The parts of a field that summary.csv has columns for: the value itself, an interval's ends or an
// object's csv_parts; none for a list.
std::vector<std::string_view> csv_parts(const SummaryField& f) {
  switch (f.type) {
    case FieldType::list:
      return {};
    case FieldType::interval:
      return {"low", "high"};
    case FieldType::object:
      return f.csv_parts;
    default:
      return {""};
  }
}

}  // namespace

std::string_view schema_type(FieldType type) {
  switch (type) {
    case FieldType::integer:
      return "integer";
    case FieldType::number:
      return "number";
    case FieldType::string:
      return "string";
    case FieldType::boolean:
      return "boolean";
    case FieldType::object:
      return "object";
    case FieldType::interval:
    case FieldType::list:
      return "array";
  }
  return "null";
}

const std::vector<SummaryField>& summary_fields() {
  static const std::vector<SummaryField> fields = make_fields();
  return fields;
}

nlohmann::json summary_json(const ModeSummary& summary) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : summary_fields()) out[std::string(f.name)] = f.value(summary);
  return out;
}

std::vector<std::string> summary_csv_header() {
  std::vector<std::string> header;
  for (const auto& f : summary_fields()) {
    for (auto part : csv_parts(f))
      header.push_back(std::string(f.name) + (part.empty() ? "" : "." + std::string(part)));
  }
  return header;
}

std::vector<std::string> summary_csv_cells(const ModeSummary& summary) {
  std::vector<std::string> cells;
  for (const auto& f : summary_fields()) {
    const auto parts = csv_parts(f);
    if (parts.empty()) continue;
    const auto value = f.value(summary);
    for (auto part : parts) cells.push_back(cell(part_of(value, part)));
  }
  return cells;
}

}  // namespace ampbench::report

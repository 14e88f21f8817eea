#include "sweep/sweep_report.h"

#include <algorithm>

#include "util/enum_names.h"
#include "util/text_table.h"

namespace ampbench::sweep {

namespace {

constexpr const char* kBatchSizeKey = "/train/batch_size";

const report::SummaryFigures* figures_at(const SweepPointReport& point, amp::PrecisionMode mode) {
  for (const auto& figures : point.modes) {
    if (figures.mode == mode && figures.speedup_vs_fp32) return &figures;
  }
  return nullptr;
}

bool overlap(const measure::Interval& a, const measure::Interval& b) {
  return a.low <= b.high && b.low <= a.high;
}

// Which side of 1.0 each point's speed-up lies on, by its interval; the best point and its ties.
SpeedupShape shape_of(amp::PrecisionMode mode, const std::vector<SweepPointReport>& points, bool one_axis) {
  SpeedupShape shape{mode, {}, {}, {}, {}, {}, {}, 0};
  const report::SummaryFigures* best = nullptr;
  std::vector<std::pair<int64_t, int>> sides;  // (point, +1 faster / -1 slower), in sweep order
  for (const auto& point : points) {
    const auto* f = figures_at(point, mode);
    if (!f) continue;
    const auto index = point.point.index;
    if (!best || *f->speedup_vs_fp32 > *best->speedup_vs_fp32) {
      best = f;
      shape.best_point = index;
    }
    const auto& interval = f->speedup_interval;
    if (interval && interval->low > 1.0) {
      shape.faster.push_back(index);
      sides.emplace_back(index, 1);
    } else if (interval && interval->high < 1.0) {
      shape.slower.push_back(index);
      sides.emplace_back(index, -1);
    } else {
      shape.undecided.push_back(index);
      if (!interval) ++shape.without_interval;
    }
  }
  for (const auto& point : points) {
    const auto* f = figures_at(point, mode);
    if (!f || point.point.index == shape.best_point || !f->speedup_interval || !best->speedup_interval)
      continue;
    if (overlap(*f->speedup_interval, *best->speedup_interval))
      shape.tied_with_best.push_back(point.point.index);
  }
  // Only along one key is "between" meaningful: the first pair of decided neighbours on opposite sides.
  for (size_t i = 1; one_axis && !shape.crossing && i < sides.size(); ++i) {
    if (sides[i].second != sides[i - 1].second) shape.crossing = {{sides[i - 1].first, sides[i].first}};
  }
  return shape;
}

std::string settings_of(const SweepReport& report, int64_t index) {
  return describe(report.points.at(index - 1).point);
}

std::string points_text(const SweepReport& report, const std::vector<int64_t>& indices) {
  std::vector<std::string> names;
  for (auto index : indices) names.push_back(settings_of(report, index));
  return util::join(names, "; ");
}

// The fit is over the points, each its trials' median step time: a point's trials share a process and a
// stretch of time, and the points run one after another, so the trials are no independent samples of the
// line (drift would pass for the batch's effect, with intervals too narrow).
std::optional<StepCostFit> step_cost_of(amp::PrecisionMode mode,
                                        const std::vector<SweepPointReport>& points) {
  std::vector<double> batch, seconds;
  for (const auto& point : points) {
    for (const auto& figures : point.modes) {
      if (figures.mode != mode || figures.emulated || figures.trial_rates.empty()) continue;
      std::vector<double> steps;
      for (double rate : figures.trial_rates) steps.push_back(static_cast<double>(point.batch_size) / rate);
      batch.push_back(static_cast<double>(point.batch_size));
      seconds.push_back(*measure::median(steps));
    }
  }
  const auto fit = measure::fit_line(batch, seconds);
  if (!fit) return std::nullopt;
  StepCostFit out{mode, *fit, {}};
  for (const auto& point : points) {
    if (point.modes.empty()) continue;  // it did not run here
    const double step = fit->intercept + fit->slope * static_cast<double>(point.batch_size);
    if (step > 0) out.fixed_share.emplace_back(point.point.index, fit->intercept / step);  // else no share
  }
  return out;
}

bool holds_zero(const std::optional<measure::Interval>& interval) {
  return interval && interval->low <= 0 && interval->high >= 0;
}

std::string milliseconds(double seconds, const std::optional<measure::Interval>& interval) {
  std::string text = util::format_number("%.3g ms", seconds * 1e3);
  if (interval)
    text += " [" + util::format_number("%.3g", interval->low * 1e3) + ", " +
            util::format_number("%.3g", interval->high * 1e3) + "]";
  return text;
}

}  // namespace

std::string_view to_string(SweepPointStatus status) {
  static constexpr util::EnumNames<SweepPointStatus, 4> kNames{{{SweepPointStatus::finished, "finished"},
                                                                {SweepPointStatus::partial, "partial"},
                                                                {SweepPointStatus::missing, "missing"},
                                                                {SweepPointStatus::elsewhere, "elsewhere"}}};
  return util::name_of(kNames, status);
}

std::string speedup_text(const report::SummaryFigures& f) {
  if (!f.speedup_vs_fp32) return "-";
  std::string text = util::format_number("%.2fx", *f.speedup_vs_fp32);
  if (f.speedup_interval)
    text += " [" + util::format_number("%.2f", f.speedup_interval->low) + ", " +
            util::format_number("%.2f", f.speedup_interval->high) + "]";
  return text;
}

bool SweepReport::complete() const {
  return std::all_of(points.begin(), points.end(), [](const auto& p) {
    return p.status == SweepPointStatus::finished || p.status == SweepPointStatus::elsewhere;
  });
}

SweepPointReport point_report(const SweepPoint& point, int64_t batch_size, const report::RunReport& report,
                              bool finished, std::string run_folder) {
  SweepPointReport out{point,
                       batch_size,
                       finished ? SweepPointStatus::finished : SweepPointStatus::partial,
                       std::move(run_folder),
                       {}};
  for (const auto& summary : report.summary) out.modes.push_back(report::figures_of(summary));
  return out;
}

SweepReport make_sweep_report(std::string name, std::vector<SweepAxis> axes, std::optional<Shard> shard,
                              std::vector<SweepPointReport> points) {
  SweepReport report{std::move(name), std::move(axes), shard, std::move(points), {}, {}, {}, {}};
  std::vector<amp::PrecisionMode> modes;
  for (const auto& point : report.points) {
    for (const auto& figures : point.modes) {
      if (std::find(modes.begin(), modes.end(), figures.mode) == modes.end()) modes.push_back(figures.mode);
    }
  }
  for (auto mode : modes) {
    // Only the batch size may vary between the points fitted: another swept key changes the cost itself.
    const bool batch_sweep = report.axes.size() == 1 && report.axes[0].key == kBatchSizeKey;
    if (auto cost = step_cost_of(mode, report.points); cost && batch_sweep)
      report.step_costs.push_back(*cost);
    if (mode == amp::PrecisionMode::fp32) continue;
    auto shape = shape_of(mode, report.points, report.axes.size() == 1);
    if (shape.best_point) report.shapes.push_back(std::move(shape));
  }
  return report;
}

std::vector<std::string> step_cost_lines(const SweepReport& report) {
  std::vector<std::string> lines;
  for (const auto& cost : report.step_costs) {
    const auto& fit = cost.fit;
    std::string line = std::string(amp::to_string(cost.mode)) + ": a fixed " +
                       milliseconds(fit.intercept, fit.intercept_interval) + " a step plus " +
                       milliseconds(fit.slope, fit.slope_interval) + " a sample";
    if (!cost.fixed_share.empty()) {
      auto by_batch = [&](const auto& a, const auto& b) {
        return report.points.at(a.first - 1).batch_size < report.points.at(b.first - 1).batch_size;
      };
      const auto [smallest, largest] =
          std::minmax_element(cost.fixed_share.begin(), cost.fixed_share.end(), by_batch);
      line += "; the fixed cost is " + util::format_number("%.0f %%", 100 * smallest->second) +
              " of the step at " + settings_of(report, smallest->first) + " and " +
              util::format_number("%.0f %%", 100 * largest->second) + " at " +
              settings_of(report, largest->first);
    }
    if (!fit.intercept_interval)
      line += " (" + std::to_string(fit.samples) + " batch sizes give no interval: sweep three or more)";
    std::vector<std::string> around_zero;
    if (holds_zero(fit.intercept_interval)) around_zero.push_back("the fixed cost");
    if (holds_zero(fit.slope_interval)) around_zero.push_back("the cost per sample");
    if (!around_zero.empty())
      line += " (the intervals cannot tell " + util::join(around_zero, " or ") + " from 0)";
    lines.push_back(line + ".");
  }
  return lines;
}

std::vector<std::string> speedup_lines(const SweepReport& report) {
  std::vector<std::string> lines;
  for (const auto& shape : report.shapes) {
    const auto mode = std::string(amp::to_string(shape.mode));
    const auto& best = *figures_at(report.points.at(*shape.best_point - 1), shape.mode);
    std::string line = mode + ": best at " + settings_of(report, *shape.best_point) + ", " +
                       speedup_text(best) + " fp32's speed";
    if (!shape.tied_with_best.empty())
      line += " (its interval overlaps those of " + points_text(report, shape.tied_with_best) + ")";
    if (shape.crossing) {
      line += "; crosses 1.0 between " + settings_of(report, shape.crossing->first) + " and " +
              settings_of(report, shape.crossing->second);
    } else if (shape.slower.empty() && shape.undecided.empty()) {
      line += "; faster than fp32 at every point";
    } else if (shape.faster.empty() && shape.undecided.empty()) {
      line += "; slower than fp32 at every point";
    } else {
      if (!shape.faster.empty()) line += "; faster than fp32 at " + points_text(report, shape.faster);
      if (!shape.slower.empty()) line += "; slower at " + points_text(report, shape.slower);
    }
    if (!shape.undecided.empty())
      line += "; the intervals cannot tell it from fp32 at " + points_text(report, shape.undecided);
    if (shape.without_interval > 0)
      line += " (" + std::to_string(shape.without_interval) +
              " of them without one: an interval needs two timed trials or more)";
    lines.push_back(line + ".");
  }
  return lines;
}

namespace {

// A line per mode whose products were emulated at some point: no speed is read from its time.
std::vector<std::string> emulated_lines(const SweepReport& report) {
  std::vector<std::string> lines;
  std::vector<amp::PrecisionMode> said;
  for (const auto& point : report.points) {
    for (const auto& figures : point.modes) {
      if (!figures.emulated || std::find(said.begin(), said.end(), figures.mode) != said.end()) continue;
      said.push_back(figures.mode);
      lines.push_back(std::string(amp::to_string(figures.mode)) +
                      ": its products were emulated (no kernels for its format here): its time is the "
                      "emulation's, so no speed-up or step cost is read from it.");
    }
  }
  return lines;
}

}  // namespace

std::vector<std::string> report_lines(const SweepReport& report) {
  auto lines = speedup_lines(report);
  for (auto& line : step_cost_lines(report)) lines.push_back(std::move(line));
  for (auto& line : emulated_lines(report)) lines.push_back(std::move(line));
  for (const auto& difference : report.environment_differences)
    lines.push_back("merged with --force from another build, machine or archive: " + difference);
  return lines;
}

}  // namespace ampbench::sweep

#include "report/csv_report.h"

#include <charconv>
#include <sstream>

namespace ampbench::report {
namespace {

// Shortest text that reads back to the same double.
std::string number(double value) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

template <typename T>
std::string optional_cell(const std::optional<T>& value) {
  if (!value) return "";
  if constexpr (std::is_floating_point_v<T>) {
    return number(*value);
  } else {
    return std::to_string(*value);
  }
}

}  // namespace

std::string to_csv(const RunReport& report) {
  std::ostringstream out;
  out << kCsvColumns << "\n";
  for (const auto& t : report.trials) {
    for (const auto& e : t.epochs) {
      auto percentile = [&](double q) { return optional_cell(measure::quantile(e.step_seconds, q)); };
      out << amp::to_string(t.mode) << ',' << t.trial << ',' << e.epoch << ',' << t.status << ','
          << number(e.seconds) << ',' << e.timed_steps << ',' << e.timed_samples << ','
          << number(e.samples_per_second) << ',' << percentile(0.5) << ',' << percentile(0.9) << ','
          << percentile(0.99) << ',' << number(e.train_loss) << ',' << number(e.val_loss) << ','
          << number(e.val_accuracy) << ',' << t.memory.peak_bytes << ',' << t.memory.probe << ','
          << optional_cell(e.loss_scale) << ',' << optional_cell(e.skipped_steps) << "\n";
    }
  }
  return out.str();
}

}  // namespace ampbench::report

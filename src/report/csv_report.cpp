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
  if constexpr (std::is_floating_point_v<T>)
    return number(*value);
  else
    return std::to_string(*value);
}

}  // namespace

std::string to_csv(const RunReport& report) {
  std::ostringstream out;
  out << kCsvColumns << "\n";
  for (const auto& m : report.modes) {
    for (const auto& e : m.epochs) {
      out << amp::to_string(m.mode) << ',' << e.epoch << ',' << m.status << ',' << number(e.seconds) << ','
          << e.timed_steps << ',' << e.timed_samples << ',' << number(e.samples_per_second) << ','
          << number(e.train_loss) << ',' << number(e.val_loss) << ',' << number(e.val_accuracy) << ','
          << m.memory.peak_bytes << ',' << m.memory.probe << ',' << optional_cell(e.loss_scale) << ','
          << optional_cell(e.skipped_steps) << "\n";
    }
  }
  return out.str();
}

}  // namespace ampbench::report

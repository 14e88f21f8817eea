#include "max_batch/max_batch_report.h"

#include "measure/host_memory.h"
#include "util/text_table.h"

namespace ampbench::max_batch {

namespace {

std::string rate_text(const report::SummaryFigures& f) {
  std::string text = util::format_number("%.1f", *f.samples_per_second) + " samples/s";
  if (f.throughput_interval)
    text += " [" + util::format_number("%.1f", f.throughput_interval->low) + ", " +
            util::format_number("%.1f", f.throughput_interval->high) + "]";
  return text;
}

bool measured(const MaxBatchMode& m) { return m.figures && m.figures->samples_per_second; }

std::string bound_line(const MaxBatchReport& report, const MaxBatchMode& m) {
  const auto mode = std::string(amp::to_string(m.mode));
  if (m.search.largest == 0)
    return mode + ": not even a batch of 1 fits " + measure::human_bytes(double(report.budget_bytes));
  const auto batch = std::to_string(m.search.largest);
  if (m.search.reached_limit)
    return mode + ": batch " + batch + " fits, the largest the data allows (" +
           std::to_string(report.train_samples) + " training samples, an epoch of at least " +
           std::to_string(report.steps_needed) + " step(s)): the budget does not bound it";
  return mode + ": largest batch " + batch + " (" + std::to_string(*m.search.smallest_refused) +
         " ran out of memory)";
}

std::string against_fp32_line(const MaxBatchMode& fp32, const MaxBatchMode& m) {
  const auto mode = std::string(amp::to_string(m.mode));
  // A batch the data bounded is a floor of what memory would allow.
  const char* bound = m.search.reached_limit && !fp32.search.reached_limit   ? "at least "
                      : fp32.search.reached_limit && !m.search.reached_limit ? "at most "
                                                                             : "";
  std::string line = mode + " fits " + bound +
                     util::format_number("%.2f", static_cast<double>(m.search.largest) /
                                                     static_cast<double>(fp32.search.largest)) +
                     "x fp32's batch (" + std::to_string(m.search.largest) + " against " +
                     std::to_string(fp32.search.largest) + ")";
  if (!measured(m) || !measured(fp32)) return line + "; its throughput there was not measured";
  if (m.figures->emulated) return line + "; its products were emulated there, so no throughput is read";
  return line + " and runs it at " + rate_text(*m.figures) + ", against fp32's " + rate_text(*fp32.figures) +
         " at its own";
}

}  // namespace

bool MaxBatchReport::complete() const {
  for (const auto& m : modes) {
    if (m.search.largest > 0 && !measured(m)) return false;
  }
  return true;
}

std::vector<std::string> max_batch_lines(const MaxBatchReport& report) {
  std::vector<std::string> lines;
  const MaxBatchMode* fp32 = nullptr;
  for (const auto& m : report.modes) {
    lines.push_back(bound_line(report, m));
    if (m.mode == amp::PrecisionMode::fp32 && m.search.largest > 0) fp32 = &m;
  }
  for (const auto& m : report.modes) {
    if (fp32 && &m != fp32 && m.search.largest > 0) lines.push_back(against_fp32_line(*fp32, m));
  }
  return lines;
}

}  // namespace ampbench::max_batch

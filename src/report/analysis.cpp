#include "report/analysis.h"

#include "report/gates.h"
#include "report/summary.h"
#include "report/warnings.h"

namespace ampbench::report {

RunReport analyse(const RunContext& context, const train::ExperimentResult& measured) {
  RunReport report{context, measured, {}, {}, {}};
  report.summary = summarize(context, measured);
  report.warnings = find_warnings(report);
  if (measured.complete) report.gates = check_gates(context.gates, report.summary);
  return report;
}

}  // namespace ampbench::report

#include "measure/cpu_usage.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ampbench::measure {
namespace {

double seconds_of(const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * t.tv_usec; }

// Run-queue delay of every thread of the process, in seconds: the second field of each thread's
// schedstat (nanoseconds). A thread that ended between two samples takes its delay with it, so a
// difference is clamped at zero by the caller.
std::optional<double> run_queue_wait_seconds() {
  std::error_code error;
  std::filesystem::directory_iterator tasks("/proc/self/task", error);
  if (error) return std::nullopt;
  double total_ns = 0;
  bool any = false;
  for (const auto& task : tasks) {
    std::ifstream in(task.path() / "schedstat");
    double on_cpu_ns = 0, waiting_ns = 0;
    if (!(in >> on_cpu_ns >> waiting_ns)) continue;
    total_ns += waiting_ns;
    any = true;
  }
  if (!any) return std::nullopt;
  return total_ns * 1e-9;
}

}  // namespace

CpuUsageSample sample_cpu_usage() {
  CpuUsageSample out;
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    out.cpu_seconds = seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
    out.involuntary_switches = usage.ru_nivcsw;
  }
  out.run_queue_wait_seconds = run_queue_wait_seconds();
  return out;
}

CpuUsage cpu_usage_between(const CpuUsageSample& start, const CpuUsageSample& end, double wall_seconds,
                           int64_t threads) {
  CpuUsage out;
  out.threads = std::max<int64_t>(threads, 1);
  out.cpu_seconds = std::max(0.0, end.cpu_seconds - start.cpu_seconds);
  out.involuntary_switches = std::max<int64_t>(0, end.involuntary_switches - start.involuntary_switches);
  const double capacity = wall_seconds * static_cast<double>(out.threads);
  out.cpu_share = capacity > 0 ? out.cpu_seconds / capacity : 0.0;
  if (start.run_queue_wait_seconds && end.run_queue_wait_seconds) {
    out.run_queue_wait_seconds = std::max(0.0, *end.run_queue_wait_seconds - *start.run_queue_wait_seconds);
    out.run_queue_wait_share = capacity > 0 ? *out.run_queue_wait_seconds / capacity : 0.0;
  }
  return out;
}

std::optional<double> load_average_1min() {
  double load[1];
  if (getloadavg(load, 1) != 1) return std::nullopt;
  return load[0];
}

nlohmann::json cpu_usage_json(const CpuUsage& cpu) {
  auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"cpu_seconds", cpu.cpu_seconds},
          {"threads", cpu.threads},
          {"cpu_share", cpu.cpu_share},
          {"involuntary_context_switches", cpu.involuntary_switches},
          {"run_queue_wait_seconds", optional(cpu.run_queue_wait_seconds)},
          {"run_queue_wait_share", optional(cpu.run_queue_wait_share)}};
}

}  // namespace ampbench::measure

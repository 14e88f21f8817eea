#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace ampbench::measure {

// What the process got of the CPU over a timed region: sampled at both ends, outside the clock, so that a
// slow epoch can be told apart from one whose threads were kept waiting by another process.

// The process's counters at one moment.
struct CpuUsageSample {
  double cpu_seconds = 0;            // user + system time of all its threads (getrusage)
  int64_t involuntary_switches = 0;  // times its threads were preempted (getrusage's ru_nivcsw)
  // Time its threads were runnable but waiting for a CPU (the kernel's run-queue delay, summed over
  // /proc/self/task/*/schedstat); empty where the kernel does not keep it.
  std::optional<double> run_queue_wait_seconds;
};
CpuUsageSample sample_cpu_usage();

// Between two samples `wall_seconds` apart, for a process computing on `threads` threads.
struct CpuUsage {
  double cpu_seconds = 0;
  int64_t threads = 1;
  int64_t involuntary_switches = 0;
  std::optional<double> run_queue_wait_seconds;
  // Of the CPU time its threads could have used (wall time x threads): what it got...
  double cpu_share = 0;
  // ...and how much of it they spent waiting for a CPU (empty without run-queue figures).
  std::optional<double> run_queue_wait_share;
};
CpuUsage cpu_usage_between(const CpuUsageSample& start, const CpuUsageSample& end, double wall_seconds,
                           int64_t threads);

// As report.json writes it (its schema's $defs/cpu_usage).
nlohmann::json cpu_usage_json(const CpuUsage& cpu);

// The system's load average over the last minute (runnable and waiting tasks), or empty.
std::optional<double> load_average_1min();

}  // namespace ampbench::measure

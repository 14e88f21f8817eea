#pragma once

#include <optional>
#include <string>

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

namespace ampbench::measure {

// Where a run happened: every report carries it, so numbers are never separated from their machine.
struct Environment {
  std::string ampbench_version;
  std::string git_commit;
  std::string build_type;
  std::string compiler;
  std::string libtorch_version;
  std::string libtorch_choice;  // how the set-up chose this build's LibTorch: "cuda (AMPBENCH_TORCH=cuda)"
  std::optional<std::string> cuda_version;
  std::optional<std::string> cudnn_version;
  std::string device;
  std::string device_name;
  std::optional<std::string> gpu_capability;  // GPU runs only
  std::optional<int64_t> gpu_memory_bytes;
  std::optional<std::string> gpu_driver;
  std::string cpu_model;
  int cpu_cores = 0;
  int torch_threads = 0;
  std::optional<double> load_average;  // the system's 1-minute load average as the run started
  std::string host_malloc;             // how host memory is allocated: see host_malloc.h
  std::string hostname;
  std::string config_hash;  // FNV-1a of the resolved config's JSON: equal hashes, same experiment
  uint64_t seed = 0;
  std::string timestamp_utc;
};

// The experiment's identity: equal for two runs of the same resolved config, wherever they write.
std::string config_hash(nlohmann::json resolved_config);
Environment capture_environment(const c10::Device& device, const nlohmann::json& resolved_config,
                                uint64_t seed);
std::string cpu_model_name();
std::string libtorch_version();
// How the set-up chose this build's LibTorch (scripts/torch-flavour): "cpu (no NVIDIA GPU visible)".
std::string libtorch_choice();
// "12.8", or nullopt without CUDA; likewise cuDNN "9.10.2".
std::optional<std::string> cuda_runtime_version();
std::optional<std::string> cudnn_version();
std::string utc_timestamp();

}  // namespace ampbench::measure

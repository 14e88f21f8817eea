#include "measure/environment.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>

#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/version.h>

#include "measure/build_info.h"
#include "measure/cpu_usage.h"
#include "measure/gpu_info.h"
#include "measure/host_malloc.h"
#include "util/fnv1a.h"

namespace ampbench::measure {

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

std::string libtorch_version() { return TORCH_VERSION; }

std::string libtorch_choice() { return AMPBENCH_TORCH_CHOICE; }

std::optional<std::string> cuda_runtime_version() {
  const auto& hooks = at::detail::getCUDAHooks();
  if (!hooks.hasCUDART()) return std::nullopt;
  long v = hooks.versionCUDART();  // e.g. 12080
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::optional<std::string> cudnn_version() {
  const auto& hooks = at::detail::getCUDAHooks();
  if (!hooks.hasCUDA() || !hooks.hasCuDNN()) return std::nullopt;
  long v = hooks.versionCuDNN();  // e.g. 91002 (9.10.2)
  return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100);
}

std::string utc_timestamp() {
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string config_hash(nlohmann::json resolved_config) {
  // Where the reports go does not change the experiment.
  resolved_config.erase("output");
  auto text = resolved_config.dump();
  return util::hex64(util::fnv1a(text.data(), text.size()));
}

Environment capture_environment(const torch::Device& device, const nlohmann::json& resolved_config,
                                uint64_t seed) {
  Environment env;
  env.ampbench_version = AMPBENCH_VERSION;
  env.git_commit = git_commit();
  env.build_type = AMPBENCH_BUILD_TYPE;
#if defined(__clang__)
  env.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
  env.compiler = "gcc " __VERSION__;
#endif
  env.libtorch_version = libtorch_version();
  env.libtorch_choice = libtorch_choice();
  env.cuda_version = cuda_runtime_version();
  env.cudnn_version = cudnn_version();
  env.device = device.str();
  env.cpu_model = cpu_model_name();
  env.device_name = device.is_cpu() ? env.cpu_model : gpu_name(device.index());
  if (device.is_cuda()) {
    if (auto gpu = gpu_details(device.index())) {
      env.gpu_capability = gpu->capability;
      env.gpu_memory_bytes = gpu->memory_bytes;
      env.gpu_driver = gpu->driver;
    }
  }
  env.cpu_cores = static_cast<int>(std::thread::hardware_concurrency());
  env.torch_threads = at::get_num_threads();
  env.load_average = load_average_1min();
  env.host_malloc = host_malloc_description();
  char host[256] = {};
  env.hostname = gethostname(host, sizeof host - 1) == 0 ? host : "unknown";
  env.config_hash = config_hash(resolved_config);
  env.seed = seed;
  env.timestamp_utc = utc_timestamp();
  return env;
}

}  // namespace ampbench::measure

#include "measure/device.h"

#include <algorithm>
#include <cctype>

#include <ATen/DeviceAccelerator.h>
#include <torch/cuda.h>

#include "measure/environment.h"
#include "measure/gpu_info.h"
#include "util/input_error.h"

namespace ampbench::measure {

bool is_valid_device_spec(const std::string& spec) {
  if (spec == "auto" || spec == "cpu" || spec == "cuda") return true;
  if (spec.rfind("cuda:", 0) != 0) return false;
  // Up to three digits, without leading zeros: the index a GPU has, written one way only.
  const auto index = spec.substr(5);
  return !index.empty() && index.size() <= 3 && (index == "0" || index[0] != '0') &&
         std::all_of(index.begin(), index.end(), [](unsigned char c) { return std::isdigit(c); });
}

torch::Device resolve_device(const std::string& spec) {
  if (!is_valid_device_spec(spec)) {
    throw util::InputError("expected auto, cpu, cuda or cuda:N, got \"" + spec + "\"");
  }
  if (spec == "cpu") return torch::kCPU;
  if (spec == "auto") return torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0) : torch::kCPU;
  if (!torch::cuda::is_available()) {
    throw util::InputError(spec + " requested, but this LibTorch has no CUDA or no GPU is visible");
  }
  // Parsed here, not by torch::Device(spec): its 8-bit index would wrap an index of 128 or more.
  const int index = spec == "cuda" ? 0 : std::stoi(spec.substr(5));
  if (index >= static_cast<int>(torch::cuda::device_count())) {
    throw util::InputError(spec + " requested, but only " + std::to_string(torch::cuda::device_count()) +
                           " GPU(s) are visible");
  }
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

void make_current(const torch::Device& device) {
  if (device.is_cuda()) at::accelerator::setDeviceIndex(device.index());
}

void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

std::string device_name(const torch::Device& device) {
  if (device.is_cpu()) return cpu_model_name();
  return gpu_name(device.index());
}

}  // namespace ampbench::measure

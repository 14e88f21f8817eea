#pragma once

#include <string>

#include <torch/torch.h>

namespace ampbench::measure {

// True when `spec` is one of: auto, cpu, cuda, cuda:N.
bool is_valid_device_spec(const std::string& spec);
// Resolves a valid spec to a device on this machine: auto picks CUDA when LibTorch has it and a GPU is
// present. Throws util::InputError (without a location)
// when the device is not available here.
torch::Device resolve_device(const std::string& spec);
// Waits until all work queued on the device has finished (a no-op on the CPU, whose ops are synchronous).
void synchronize(const torch::Device& device);
// A human-readable name: the CPU model, or the GPU's name.
std::string device_name(const torch::Device& device);

}  // namespace ampbench::measure

#pragma once

#include <string>

#include <c10/core/Device.h>

namespace ampbench::measure {

// True when `spec` is one of: auto, cpu, cuda, cuda:N.
bool is_valid_device_spec(const std::string& spec);
// Resolves a valid spec to a device on this machine: auto picks CUDA when LibTorch has it and a GPU is
// present. Throws util::InputError (without a location)
// when the device is not available here.
c10::Device resolve_device(const std::string& spec);
// Makes a GPU the current device for this process (nothing on the CPU): LibTorch's current-device
// defaults (the profiler's device context, cuBLAS and cuDNN handles, streams made without an index)
// otherwise land on GPU 0 whatever device the run trains on.
void make_current(const c10::Device& device);
// Waits until all work queued on the device has finished (a no-op on the CPU, whose ops are synchronous).
void synchronize(const c10::Device& device);
// A human-readable name: the CPU model, or the GPU's name.
std::string device_name(const c10::Device& device);

}  // namespace ampbench::measure

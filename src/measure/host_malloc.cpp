#include "measure/host_malloc.h"

#include <dlfcn.h>

#include <filesystem>
#include <system_error>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ampbench::measure {
namespace {

constexpr int kMmapThreshold = 32 << 20;  // glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit: its largest
constexpr int kTrimThreshold = 64 << 20;  // what glibc's rule pairs with it: twice the mmap threshold
std::string g_description = "default";

bool is_glibc(const std::string& path) {
  return std::filesystem::path(path).filename().string().starts_with("libc.so");
}

}  // namespace

std::string malloc_library_path() {
  // RTLD_DEFAULT looks malloc up as every library's calls to it resolve: a replacement loaded before
  // libc (linked by the executable or preloaded) wins.
  void* malloc_address = dlsym(RTLD_DEFAULT, "malloc");
  Dl_info info{};
  if (malloc_address == nullptr || dladdr(malloc_address, &info) == 0 || info.dli_fname == nullptr) return "";
  std::error_code error;
  auto resolved = std::filesystem::canonical(info.dli_fname, error);  // the versioned file behind the link
  return error ? std::string(info.dli_fname) : resolved.string();
}

bool malloc_is_glibc() { return is_glibc(malloc_library_path()); }

void settle_host_malloc() {
  const std::string library = malloc_library_path();
  if (!library.empty() && !is_glibc(library)) {
    g_description = library + " (replaces glibc's malloc)";
    return;
  }
#if defined(__GLIBC__)
  if (mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 && mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1)
    g_description = "glibc: mmap threshold 32 MiB, trim threshold 64 MiB (fixed)";
#endif
}

std::string host_malloc_description() { return g_description; }

}  // namespace ampbench::measure

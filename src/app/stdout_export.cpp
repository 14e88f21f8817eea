#include "app/stdout_export.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "app/exit_codes.h"

namespace ampbench::app {
namespace {

bool g_stdout_closed = false;

}  // namespace

void guard_standard_streams() {
  std::signal(SIGPIPE, SIG_IGN);
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (fd == 1) g_stdout_closed = true;
    // open() takes the lowest free descriptor: this one, as the lower ones are open by now.
    ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
  }
}

std::optional<std::string> write_stdout_export(const std::string& text) {
  if (g_stdout_closed) return "the export to stdout could not be written: stdout is closed";
  errno = 0;
  const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  if (std::fflush(stdout) == 0 && written) return std::nullopt;
  const int error = errno;
  std::clearerr(stdout);
  return "the export to stdout could not be written" +
         (error != 0 ? std::string(": ") + std::strerror(error) : std::string());
}

int finish_stdout(int exit_code) {
  errno = 0;
  std::cout.flush();
  const bool lost = std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout.good();
  if (!lost) return exit_code;
  const int error = errno;
  std::cerr << "error: the output to stdout could not be written"
            << (error != 0 ? std::string(": ") + std::strerror(error) : std::string()) << "\n";
  return kExitRuntimeFailure;
}

}  // namespace ampbench::app

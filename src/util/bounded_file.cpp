#include "util/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/input_error.h"

namespace ampbench::util {
namespace {

// Closes a descriptor when the read ends, however it ends.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string mib(int64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

}  // namespace

std::string read_bounded_file(const std::filesystem::path& path, int64_t max_bytes, const std::string& what) {
  const Descriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (file.get() < 0) throw InputError(path.string(), std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(file.get(), &info) != 0)
    throw InputError(path.string(), std::string("cannot read: ") + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    throw InputError(path.string(), "is " + kind_of(info.st_mode) + ", not a " + what + " file");
  if (info.st_size > max_bytes)
    throw InputError(path.string(),
                     "is " + mib(info.st_size) + ": a " + what + " file is at most " + mib(max_bytes));
  std::string text(static_cast<size_t>(info.st_size), '\0');
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(file.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path.string(), std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) break;  // it shrank while being read: what is there is what it holds
    done += static_cast<size_t>(n);
  }
  text.resize(done);
  return text;
}

}  // namespace ampbench::util

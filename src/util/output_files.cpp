#include "util/output_files.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ampbench::util {
namespace {

std::string safe_name(const std::string& name) {
  std::string out;
  for (char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out.empty() ? "run" : out;
}

std::string utc_stamp() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", &utc);
  return text;
}

// Where an output folder's path stands: the deepest part of it that exists (a folder, a file or a link,
// dangling or not), and the folders still to be made below it, deepest first.
struct OutputPath {
  std::filesystem::path existing;
  std::vector<std::filesystem::path> missing;
};

// Throws std::runtime_error for a path that cannot be looked at (a name too long, a loop of links), which
// creating the folders would fail on too.
OutputPath look_up(const std::filesystem::path& output_dir) {
  OutputPath out;
  auto p = output_dir.empty() ? std::filesystem::path(".") : output_dir;
  if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();  // "out/" is "out"
  while (!p.empty()) {
    std::error_code error;
    // A link is not followed: one that dangles exists, and is never taken for a folder this run made.
    const auto status = std::filesystem::symlink_status(p, error);
    if (status.type() != std::filesystem::file_type::not_found) {
      if (error) {
        throw std::runtime_error("cannot create output folder " + output_dir.string() + ": " + p.string() +
                                 ": " + error.message());
      }
      out.existing = p;
      return out;
    }
    out.missing.push_back(p);
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  out.existing = ".";  // a relative path made entirely of new folders starts here
  return out;
}

void check_creatable(const OutputPath& path, const std::filesystem::path& output_dir) {
  std::error_code error;
  const bool is_output_dir = path.missing.empty();
  if (!std::filesystem::is_directory(path.existing, error)) {
    throw std::runtime_error(is_output_dir
                                 ? "cannot use output folder " + output_dir.string() + ": it is not a folder"
                                 : "cannot create output folder " + output_dir.string() + ": " +
                                       path.existing.string() + " is not a folder");
  }
  if (::access(path.existing.c_str(), W_OK | X_OK) != 0) {
    throw std::runtime_error(is_output_dir ? "cannot write to output folder " + output_dir.string() + ": " +
                                                 std::strerror(errno)
                                           : "cannot create output folder " + output_dir.string() + ": " +
                                                 path.existing.string() + ": " + std::strerror(errno));
  }
}

}  // namespace

std::filesystem::path create_run_folder(const std::filesystem::path& output_dir, const std::string& name) {
  const auto path = look_up(output_dir);
  check_creatable(path, output_dir);
  // The folders this call makes, deepest first: a run that cannot start leaves nothing behind, not even
  // the empty folders made for it.
  auto remove_if_created = [&] {
    std::error_code ignored;
    for (const auto& folder : path.missing) std::filesystem::remove(folder, ignored);
  };
  std::error_code error;
  std::filesystem::create_directories(output_dir, error);
  if (error) {
    const auto reason = error.message();
    remove_if_created();
    throw std::runtime_error("cannot create output folder " + output_dir.string() + ": " + reason);
  }
  const std::string base = safe_name(name) + "-" + utc_stamp();
  for (int attempt = 1; attempt < 1000; ++attempt) {
    auto folder = output_dir / (attempt == 1 ? base : base + "-" + std::to_string(attempt));
    // mkdir is atomic: two runs in the same second cannot get the same folder.
    if (::mkdir(folder.c_str(), 0777) == 0) return folder;
    if (errno != EEXIST) {
      const std::string reason = std::strerror(errno);
      remove_if_created();
      throw std::runtime_error("cannot create run folder " + folder.string() + ": " + reason);
    }
  }
  remove_if_created();
  throw std::runtime_error("cannot find a free run folder name under " + output_dir.string());
}

void check_run_folder_creatable(const std::filesystem::path& output_dir) {
  check_creatable(look_up(output_dir), output_dir);
}

namespace {

// A new file beside `path` with a name no other write uses, created exclusively: never through a link
// or onto a file someone planted there. Returns its descriptor and name.
std::pair<int, std::filesystem::path> create_temporary_beside(const std::filesystem::path& path) {
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 64; ++attempt) {
    auto name = path;
    name += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return {fd, name};
    if (errno != EEXIST)
      throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  }
  throw std::runtime_error("cannot write " + path.string() + ": no free temporary name beside it");
}

// 0 when all of `content` reached the descriptor, else the errno of what stopped it.
int write_all(int fd, const std::string& content) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  const auto [fd, temporary] = create_temporary_beside(path);
  int reason = write_all(fd, content);
  if (::close(fd) != 0 && reason == 0) reason = errno;
  std::error_code error;
  if (reason == 0) std::filesystem::rename(temporary, path, error);
  if (reason == 0 && !error) return;
  std::error_code ignored;
  std::filesystem::remove(temporary, ignored);
  throw std::runtime_error("cannot write " + path.string() + ": " +
                           (reason != 0 ? std::string(std::strerror(reason)) : error.message()));
}

std::optional<std::string> write_files(const std::filesystem::path& folder,
                                       const std::vector<OutputFile>& files) {
  try {
    for (const auto& file : files) write_file_atomically(folder / file.name, file.content);
  } catch (const std::exception& e) {
    return e.what();
  }
  return std::nullopt;
}

void check_file_writable(const std::filesystem::path& path) {
  if (path.empty()) throw std::runtime_error("an empty file name");
  std::error_code error;
  const auto status = std::filesystem::symlink_status(path, error);
  if (std::filesystem::is_directory(status)) {
    throw std::runtime_error("cannot write " + path.string() + ": is a directory");
  }
  // The write renames a new file over the path: a link, a device or a pipe would be replaced, not written.
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw std::runtime_error("cannot write " + path.string() + ": not a regular file (- is stdout)");
  }
  // The file is replaced through a new file beside it, so its folder must take new files.
  const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(folder, error)) {
    throw std::runtime_error("cannot write " + path.string() + ": no folder " + folder.string());
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  }
  struct stat file {
  }, dir{};
  if (::lstat(path.c_str(), &file) == 0 && ::stat(folder.c_str(), &dir) == 0 &&
      !replaceable(file.st_uid, dir.st_uid, dir.st_mode, ::geteuid())) {
    throw std::runtime_error("cannot write " + path.string() +
                             ": it belongs to another user in a sticky folder, so it cannot be replaced");
  }
}

namespace {

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code error;
  if (std::filesystem::equivalent(a, b, error)) return true;  // both exist: one inode
  const auto resolved_a = std::filesystem::weakly_canonical(std::filesystem::absolute(a, error), error);
  const auto resolved_b = std::filesystem::weakly_canonical(std::filesystem::absolute(b, error), error);
  return resolved_a == resolved_b;
}

}  // namespace

void check_distinct_files(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      if (same_file(outputs[i].path, outputs[j].path))
        throw std::runtime_error(outputs[i].name + " and " + outputs[j].name + " are one file, " +
                                 outputs[i].path.string() + ": give each its own");
    }
    for (const auto& input : inputs) {
      if (same_file(outputs[i].path, input.path))
        throw std::runtime_error(outputs[i].name + " " + outputs[i].path.string() + " is " + input.name +
                                 ", which it would replace");
    }
  }
}

bool replaceable(uid_t file_owner, uid_t folder_owner, mode_t folder_mode, uid_t user) {
  // In a sticky folder (such as /tmp) only a file's owner, the folder's owner or root may rename over it.
  return !(folder_mode & S_ISVTX) || user == 0 || user == file_owner || user == folder_owner;
}

}  // namespace ampbench::util

#include "report/run_folder.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <stdexcept>

#include <sys/stat.h>

namespace ampbench::report {
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

}  // namespace

std::filesystem::path create_run_folder(const std::filesystem::path& output_dir, const std::string& name) {
  std::error_code error;
  std::filesystem::create_directories(output_dir, error);
  if (error)
    throw std::runtime_error("cannot create output folder " + output_dir.string() + ": " + error.message());
  const std::string base = safe_name(name) + "-" + utc_stamp();
  for (int attempt = 1; attempt < 1000; ++attempt) {
    auto folder = output_dir / (attempt == 1 ? base : base + "-" + std::to_string(attempt));
    // mkdir is atomic: two runs in the same second cannot get the same folder.
    if (::mkdir(folder.c_str(), 0777) == 0) return folder;
    if (errno != EEXIST) {
      throw std::runtime_error("cannot create run folder " + folder.string() + ": " + std::strerror(errno));
    }
  }
  throw std::runtime_error("cannot find a free run folder name under " + output_dir.string());
}

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  auto temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + temporary.string());
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error)
    throw std::runtime_error("cannot rename " + temporary.string() + " to " + path.string() + ": " +
                             error.message());
}

}  // namespace ampbench::report

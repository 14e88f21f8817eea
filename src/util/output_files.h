#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ampbench::util {

// A report file or run folder that cannot be written, found before anything ran.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Creates a new folder <output_dir>/<name>-<UTC time>[-N] for one run and returns it; never reuses an
// existing folder, so an earlier run is never overwritten. Throws std::runtime_error when it cannot.
std::filesystem::path create_run_folder(const std::filesystem::path& output_dir, const std::string& name);

// Throws std::runtime_error naming the folder and the reason when create_run_folder() could not make a
// run folder under output_dir (a file in its place or on its path, a folder that is not writable), so a
// dry run can say so. Creates nothing.
void check_run_folder_creatable(const std::filesystem::path& output_dir);

// Writes the whole file or nothing: to a temporary file beside it (created exclusively, with a name of its
// own, so never through a link), then renamed over it, which replaces a link at the path rather than
// writing through it. Throws std::runtime_error naming the file and the reason, and leaves no temporary
// file behind.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

// A file of an output folder: its name there and what it holds.
struct OutputFile {
  std::string name;
  std::string content;
};

// The one writer of an output folder's files (a run's reports, a sweep's, a max-batch search's): writes
// them into `folder` in order, each whole or not at all (write_file_atomically), and stops at the first
// that fails; returns that one's message, nothing when every file was written.
std::optional<std::string> write_files(const std::filesystem::path& folder,
                                       const std::vector<OutputFile>& files);

// Throws std::runtime_error naming the file and the reason when write_file_atomically() could not write it
// (a folder in its place, a parent folder that is missing or not writable, a file of another user's in a
// sticky folder), so a run can refuse before it starts. Creates nothing.
void check_file_writable(const std::filesystem::path& path);

// A file the tool reads or writes, with what names it to the user ("--export-json", "the config").
struct NamedPath {
  std::string name;
  std::filesystem::path path;
};

// Throws std::runtime_error when two outputs, or an output and an input, are one file (after links and
// dot segments are resolved, or a hard link): writing one would silently replace the other.
void check_distinct_files(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

// Whether `user` may rename a new file over one of `file_owner`'s in a folder of `folder_owner` with
// `folder_mode`: in a sticky folder only the file's owner, the folder's owner or root may.
bool replaceable(uid_t file_owner, uid_t folder_owner, mode_t folder_mode, uid_t user);

}  // namespace ampbench::util

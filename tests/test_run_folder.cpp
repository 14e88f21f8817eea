// Where reports go: a new folder per run, files written whole or not at all, and checks that refuse a
// run before it starts without creating anything.
#include "util/output_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "temp_dir_test.h"

namespace fs = std::filesystem;
using ampbench::util::check_file_writable;
using ampbench::util::check_run_folder_creatable;
using ampbench::util::create_run_folder;
using ampbench::util::write_file_atomically;

namespace {

class RunFolder : public ampbench::testing::TempDirTest {};

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The message of the runtime_error that `call` throws; fails the test when it throws none.
template <typename Call>
std::string error_of(Call call) {
  try {
    call();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error thrown";
  return "";
}

TEST_F(RunFolder, EveryCallGetsANewFolderNamedAfterTheRun) {
  auto first = create_run_folder(dir_ / "out", "my run/1");
  auto second = create_run_folder(dir_ / "out", "my run/1");
  EXPECT_NE(first, second);
  EXPECT_TRUE(fs::is_directory(first));
  EXPECT_TRUE(fs::is_directory(second));
  EXPECT_EQ(first.filename().string().rfind("my_run_1-", 0), 0u) << first;
}

TEST_F(RunFolder, AFolderThatCannotBeMadeLeavesNoneOfTheFoldersMadeForIt) {
  // The output folders can be made, the run folder inside them not (a name longer than a file system
  // allows).
  const auto output_dir = dir_ / "made" / "too";
  EXPECT_EQ(error_of([&] {
              create_run_folder(output_dir, std::string(300, 'x'));
            }).rfind("cannot create run folder " + output_dir.string() + "/xxx", 0),
            0u);
  EXPECT_FALSE(fs::exists(dir_ / "made"));
  EXPECT_TRUE(fs::exists(dir_));  // what was there before stays
}

// The dry run's check and the run itself refuse the same paths with the same message, and neither
// creates or removes anything.
TEST_F(RunFolder, ThePreRunCheckRefusesWhatCreatingWouldAndCreatesNothing) {
  std::ofstream(dir_ / "a-file") << "in the way";
  fs::create_symlink(dir_ / "nowhere", dir_ / "dangling");
  const std::vector<std::pair<fs::path, std::string>> refused{
      {dir_ / "a-file" / "out", (dir_ / "a-file").string() + " is not a folder"},
      {dir_ / "a-file", "cannot use output folder " + (dir_ / "a-file").string() + ": it is not a folder"},
      {dir_ / "dangling",
       "cannot use output folder " + (dir_ / "dangling").string() + ": it is not a folder"},
      {dir_ / std::string(300, 'x') / "out", "File name too long"},
  };
  for (const auto& [output_dir, reason] : refused) {
    const auto checked = error_of([&] { check_run_folder_creatable(output_dir); });
    EXPECT_NE(checked.find(reason), std::string::npos) << checked;
    EXPECT_EQ(error_of([&] { create_run_folder(output_dir, "run"); }), checked);
  }
  EXPECT_TRUE(fs::is_symlink(dir_ / "dangling"));  // the user's link is not taken for a folder to remove
  EXPECT_NO_THROW(check_run_folder_creatable(dir_ / "new" / "out/"));
  EXPECT_NO_THROW(check_run_folder_creatable(dir_));
  EXPECT_FALSE(fs::exists(dir_ / "new"));
}

TEST_F(RunFolder, AFileIsReplacedWholeAndAFailedWriteLeavesNoTemporaryFile) {
  const auto path = dir_ / "report.json";
  write_file_atomically(path, "first");
  write_file_atomically(path, "second");
  EXPECT_EQ(read_file(path), "second");

  const auto in_missing_folder = dir_ / "missing" / "report.json";
  EXPECT_EQ(error_of([&] {
              write_file_atomically(in_missing_folder, "x");
            }).rfind("cannot write " + in_missing_folder.string() + ": ", 0),
            0u);
  fs::create_directories(dir_ / "a-folder");
  EXPECT_EQ(error_of([&] {
              write_file_atomically(dir_ / "a-folder", "x");
            }).rfind("cannot write " + (dir_ / "a-folder").string() + ": ", 0),
            0u);
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
  }
}

TEST_F(RunFolder, TheWritableCheckRefusesWhatAWriteWouldFailOrReplaceAndCreatesNothing) {
  fs::create_directories(dir_ / "a-folder");
  EXPECT_EQ(error_of([&] { check_file_writable(dir_ / "a-folder"); }),
            "cannot write " + (dir_ / "a-folder").string() + ": is a directory");
  EXPECT_EQ(
      error_of([&] { check_file_writable(dir_ / "missing" / "r.csv"); }),
      "cannot write " + (dir_ / "missing" / "r.csv").string() + ": no folder " + (dir_ / "missing").string());
  EXPECT_EQ(error_of([&] { check_file_writable("/dev/null"); }),
            "cannot write /dev/null: not a regular file (- is stdout)");
  EXPECT_EQ(error_of([&] { check_file_writable(""); }), "an empty file name");
  EXPECT_NO_THROW(check_file_writable(dir_ / "new.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "new.csv"));
}

// What someone planted beside the file (a link to an unrelated file, a folder, at the old fixed name or at
// every name the write could pick) is never written through: the write goes to a file it created itself.
TEST_F(RunFolder, AWriteNeverGoesThroughALinkOrFolderPlantedBesideTheFile) {
  const auto unrelated = dir_ / "unrelated.txt";
  std::ofstream(unrelated) << "keep me";
  const auto path = dir_ / "export.json";
  fs::create_symlink(unrelated, path.string() + ".tmp");
  fs::create_directory(path.string() + ".tmp." + std::to_string(::getpid()) + ".0");
  write_file_atomically(path, "{}");
  EXPECT_EQ(read_file(path), "{}");
  EXPECT_EQ(read_file(unrelated), "keep me");
  // Every name taken by a link: the write gives up rather than follow one.
  const auto other = dir_ / "other.json";
  for (int n = 0; n < 200; ++n)
    fs::create_symlink(unrelated,
                       other.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(n));
  EXPECT_NE(error_of([&] { write_file_atomically(other, "{}"); }).find("no free temporary name"),
            std::string::npos);
  EXPECT_EQ(read_file(unrelated), "keep me");
  EXPECT_FALSE(fs::exists(other));
}

// In a sticky folder (/tmp) a file of another user cannot be renamed over: refused before the run.
TEST(RunFolderRules, AnotherUsersFileInAStickyFolderCannotBeReplaced) {
  using ampbench::util::replaceable;
  const mode_t sticky = S_IFDIR | 01777, plain = S_IFDIR | 0777;
  EXPECT_FALSE(replaceable(/*file_owner=*/0, /*folder_owner=*/0, sticky, /*user=*/1000));
  EXPECT_TRUE(replaceable(1000, 0, sticky, 1000));  // one's own file
  EXPECT_TRUE(replaceable(0, 1000, sticky, 1000));  // one's own folder
  EXPECT_TRUE(replaceable(0, 0, sticky, 0));        // root
  EXPECT_TRUE(replaceable(0, 0, plain, 1000));      // no sticky bit: the folder's write permission decides
}

}  // namespace

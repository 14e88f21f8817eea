// Reading a config or report whole: only a regular file, only up to its size limit, never blocking.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "temp_dir_test.h"
#include "util/bounded_file.h"
#include "util/input_error.h"

namespace {

using ampbench::util::InputError;
using ampbench::util::read_bounded_file;

class BoundedFile : public ampbench::testing::TempDirTest {
 protected:
  // The message read_bounded_file refuses `path` with, or "" when it reads it.
  std::string refusal(const std::filesystem::path& path, int64_t max_bytes = 1024) {
    try {
      read_bounded_file(path, max_bytes, "config");
      return "";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), path.string());
      return e.what();
    }
  }
};

TEST_F(BoundedFile, ARegularFileWithinItsLimitIsReadWhole) {
  std::ofstream(dir_ / "c.json") << "{\"name\": \"x\"}";
  EXPECT_EQ(read_bounded_file(dir_ / "c.json", 13, "config"), "{\"name\": \"x\"}");
}

TEST_F(BoundedFile, AnythingButARegularFileIsRefusedAndAFifoDoesNotHang) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  EXPECT_NE(refusal(dir_ / "fifo").find("is a FIFO, not a config file"), std::string::npos);
  EXPECT_NE(refusal("/dev/zero").find("is a device, not a config file"), std::string::npos);
  EXPECT_NE(refusal(dir_).find("is a directory, not a config file"), std::string::npos);
  EXPECT_NE(refusal(dir_ / "missing.json").find("cannot open: No such file or directory"), std::string::npos);
  std::filesystem::create_symlink(dir_ / "loop", dir_ / "loop");
  EXPECT_NE(refusal(dir_ / "loop").find("cannot open: Too many levels of symbolic links"), std::string::npos);
}

TEST_F(BoundedFile, AFileOverTheLimitIsRefusedBeforeAnythingIsRead) {
  { std::ofstream big(dir_ / "big.json"); }
  std::filesystem::resize_file(dir_ / "big.json", int64_t(8) << 30);  // sparse: 8 GiB, nothing on disk
  EXPECT_NE(refusal(dir_ / "big.json", int64_t(4) << 20).find("is 8192 MiB: a config file is at most 4 MiB"),
            std::string::npos);
}

}  // namespace

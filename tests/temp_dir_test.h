#pragma once
// A fixture whose tests each get a fresh, empty folder, removed afterwards.

#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace ampbench::testing {

class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Per test and per process: two suites (say a sanitizer build) may run at once.
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() / ("ampbench_" + std::string(test->test_suite_name()) +
                                                     "_" + test->name() + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

}  // namespace ampbench::testing

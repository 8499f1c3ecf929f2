#include "cli/output_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kith::cli {
namespace {

std::string readAll(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// What close() says on stderr; it must report a failure.
std::string failedCloseMessage(OutputFile& out) {
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(out.close());
  return ::testing::internal::GetCapturedStderr();
}

constexpr const char* kDeviceFull = "kith: /dev/full: No space left on device\n";

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("kith-output-file-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::filesystem::path directory_;
};

TEST_F(OutputFileTest, WritesAndClosesAFile) {
  const std::string path = (directory_ / "out.txt").string();
  OutputFile out;
  ASSERT_TRUE(out.open(path));
  EXPECT_EQ(out.name(), path);
  EXPECT_TRUE(out.write("one\n"));
  EXPECT_TRUE(out.write("two\n"));
  EXPECT_TRUE(out.close());
  EXPECT_FALSE(out.isOpen());
  EXPECT_EQ(readAll(path), "one\ntwo\n");
  EXPECT_TRUE(out.close());  // a second close does nothing
}

TEST_F(OutputFileTest, OpeningCreatesTheFileBeforeAnythingIsWritten) {
  const std::filesystem::path path = directory_ / "created.json";
  OutputFile out;
  ASSERT_TRUE(out.open(path.string()));
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST_F(OutputFileTest, AnUncreatablePathIsReportedWithTheSystemsReason) {
  OutputFile out;
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(out.open(directory_.string()));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "kith: " + directory_.string() + ": Is a directory\n");
  EXPECT_FALSE(out.isOpen());

  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(out.open((directory_ / "missing" / "out.txt").string()));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "kith: " + (directory_ / "missing" / "out.txt").string() + ": No such file or directory\n");
}

TEST_F(OutputFileTest, AWriteThatFailsAtCloseIsReported) {
  OutputFile out;
  ASSERT_TRUE(out.open("/dev/full"));
  out.write("buffered, so the write fails when it is flushed\n");
  EXPECT_EQ(failedCloseMessage(out), kDeviceFull);
}

TEST_F(OutputFileTest, AWriteThatFailedEarlierKeepsItsReason) {
  OutputFile out;
  ASSERT_TRUE(out.open("/dev/full"));
  const std::string big(1 << 20, 'x');  // more than the stdio buffer: fails during the write
  EXPECT_FALSE(out.write(big));
  out.write("more\n");
  EXPECT_EQ(failedCloseMessage(out), kDeviceFull);
}

TEST_F(OutputFileTest, AFailureThroughTheStreamIsFoundAtClose) {
  // As the trace and fragmentation writers use it: fwrite to stream(), not write().
  OutputFile out;
  ASSERT_TRUE(out.open("/dev/full"));
  const std::string big(1 << 20, 'x');
  std::fwrite(big.data(), 1, big.size(), out.stream());
  EXPECT_EQ(failedCloseMessage(out), kDeviceFull);
}

TEST_F(OutputFileTest, DashIsStandardOutputAndIsNotClosed) {
  OutputFile out;
  ASSERT_TRUE(out.open("-"));
  EXPECT_EQ(out.stream(), stdout);
  EXPECT_EQ(out.name(), "standard output");
  EXPECT_TRUE(out.close());
  EXPECT_GE(std::fprintf(stdout, "%s", ""), 0);  // still open
  EXPECT_TRUE(flushStandardOutput());
}

TEST_F(OutputFileTest, AnExitCodeStaysWhenStandardOutputArrived) {
  EXPECT_EQ(exitCodeAfterStandardOutput(0), 0);
  EXPECT_EQ(exitCodeAfterStandardOutput(70), 70);
}

}  // namespace
}  // namespace kith::cli

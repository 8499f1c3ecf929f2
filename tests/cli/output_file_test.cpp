#include "cli/output_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// The names in the test's directory, for what a temporary file left behind.
std::vector<std::string> namesIn(const std::filesystem::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

void writeFile(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

TEST_F(OutputFileTest, NothingIsAtThePathUntilTheOutputIsClosed) {
  const std::filesystem::path path = directory_ / "created.json";
  OutputFile out;
  ASSERT_TRUE(out.open(path.string()));
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_EQ(namesIn(directory_).size(), 1u);  // the temporary file beside it
  EXPECT_TRUE(namesIn(directory_)[0].starts_with(".created.json.kith-")) << namesIn(directory_)[0];
  out.write("{}\n");
  EXPECT_TRUE(out.close());
  EXPECT_EQ(readAll(path), "{}\n");
  EXPECT_EQ(namesIn(directory_), std::vector<std::string>{"created.json"});
}

TEST_F(OutputFileTest, AnEarlierFileIsReplacedOnlyWhenTheOutputIsClosed) {
  const std::filesystem::path path = directory_ / "stats.json";
  writeFile(path, "earlier\n");
  OutputFile out;
  ASSERT_TRUE(out.open(path.string()));
  EXPECT_EQ(readAll(path), "earlier\n");  // not emptied
  out.write("later\n");
  EXPECT_EQ(readAll(path), "earlier\n");
  EXPECT_TRUE(out.close());
  EXPECT_EQ(readAll(path), "later\n");
}

TEST_F(OutputFileTest, ADiscardedOrDestroyedOutputLeavesThePathAsItWas) {
  const std::filesystem::path kept = directory_ / "kept.json", never = directory_ / "never.json";
  writeFile(kept, "earlier\n");
  {
    OutputFile discarded, destroyed;
    ASSERT_TRUE(discarded.open(kept.string()));
    ASSERT_TRUE(destroyed.open(never.string()));
    discarded.write("half");
    destroyed.write("half");
    discarded.discard();
    EXPECT_FALSE(discarded.isOpen());
    EXPECT_TRUE(discarded.close());  // nothing left to close
  }
  EXPECT_EQ(readAll(kept), "earlier\n");
  EXPECT_EQ(namesIn(directory_), std::vector<std::string>{"kept.json"});  // no temporary file left
}

TEST_F(OutputFileTest, TheFileKeepsItsModeAndASymbolicLinkStaysALink) {
  const std::filesystem::path target = directory_ / "target.json", link = directory_ / "link.json";
  writeFile(target, "earlier\n");
  std::filesystem::permissions(target, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                           std::filesystem::perms::group_read);
  std::filesystem::create_symlink("target.json", link);
  OutputFile out;
  ASSERT_TRUE(out.open(link.string()));
  out.write("later\n");
  EXPECT_TRUE(out.close());
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(readAll(target), "later\n");
  EXPECT_EQ(std::filesystem::status(target).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                std::filesystem::perms::group_read);
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

// Only a regular file of at most 256 MiB is source (LANGUAGE.md, Modules): reading a
// device, a FIFO or a directory, or a file over the cap, fails with the reason.
#include "vm/source_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

namespace kith::vm {
namespace {

std::string temporaryPath(const char* name) {
  return ::testing::TempDir() + "kith_source_file_test_" + std::to_string(::getpid()) + "_" + name;
}

TEST(SourceFile, ReadsARegularFileWhole) {
  std::string path = temporaryPath("small.kith");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("print(1);\n", f);
  std::fclose(f);
  std::string error;
  std::optional<std::string> text = readSourceFile(path, error);
  ASSERT_TRUE(text.has_value()) << error;
  EXPECT_EQ(*text, "print(1);\n");
  std::remove(path.c_str());
}

TEST(SourceFile, RefusesAFileOverTheCapWithoutReadingIt) {
  // A sparse file: 256 MiB + 1 byte long, no blocks written, so the test is quick.
  std::string path = temporaryPath("huge.kith");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(::ftruncate(::fileno(f), static_cast<off_t>(kMaxSourceBytes + 1)), 0);
  std::fclose(f);
  std::string error;
  EXPECT_FALSE(readSourceFile(path, error).has_value());
  EXPECT_EQ(error, "source too large");
  EXPECT_FALSE(isRegularSourceFile(path, error));
  EXPECT_EQ(error, "source too large");
  std::remove(path.c_str());
}

TEST(SourceFile, RefusesWhatIsNotARegularFile) {
  std::string error;
  EXPECT_FALSE(readSourceFile("/dev/zero", error).has_value());
  EXPECT_EQ(error, "not a regular file");
  EXPECT_FALSE(readSourceFile("/", error).has_value());
  EXPECT_EQ(error, "Is a directory");
  EXPECT_FALSE(readSourceFile("/no/such/file.kith", error).has_value());
  EXPECT_EQ(error, "No such file or directory");
  // A FIFO with no writer: refused at once, not waited on.
  std::string fifo = temporaryPath("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(readSourceFile(fifo, error).has_value());
  EXPECT_EQ(error, "not a regular file");
  EXPECT_FALSE(isRegularSourceFile(fifo, error));
  std::remove(fifo.c_str());
}

TEST(SourceFile, ADescriptorIsReadWhole) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  std::string text(200000, 'x');  // more than one read's buffer
  text += "\nprint(1);\n";
  std::fwrite(text.data(), 1, text.size(), f);
  std::fflush(f);
  ASSERT_EQ(::lseek(::fileno(f), 0, SEEK_SET), 0);
  std::string error;
  std::optional<std::string> read = readSourceDescriptor(::fileno(f), error);
  std::fclose(f);
  ASSERT_TRUE(read) << error;
  EXPECT_EQ(*read, text);
}

TEST(SourceFile, AnUnreadableDescriptorGivesTheReason) {
  std::FILE* f = std::fopen("/dev/null", "w");  // open for writing only: reading fails
  ASSERT_NE(f, nullptr);
  std::string error;
  EXPECT_EQ(readSourceDescriptor(::fileno(f), error), std::nullopt);
  EXPECT_EQ(error, "Bad file descriptor");
  std::fclose(f);
}

}  // namespace
}  // namespace kith::vm

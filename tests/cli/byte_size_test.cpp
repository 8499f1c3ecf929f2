#include "cli/byte_size.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace kith::cli {
namespace {

TEST(ByteSize, PlainAndSuffixed) {
  EXPECT_EQ(parseByteSize("65536"), 65536u);
  EXPECT_EQ(parseByteSize("512K"), 512u << 10);
  EXPECT_EQ(parseByteSize("16m"), 16u << 20);
  EXPECT_EQ(parseByteSize("1G"), 1u << 30);
  EXPECT_EQ(parseByteSize("2T"), std::size_t{2} << 40);
}

TEST(ByteSize, RejectsMalformedZeroAndOverflow) {
  for (const char* bad : {"", "M", "0", "0K", "-1M", "1.5M", "12X", "1MB", " 1M", "99999999999999999999",
                          "18014398509481984G", "16777216T"})
    EXPECT_EQ(parseByteSize(bad), std::nullopt) << bad;
}

// What an option's message says: which of malformed, too large and too small the value is.
std::string sizeError(std::string_view text, std::size_t minimum = 16u << 10) {
  std::size_t out = 0;
  testing::internal::CaptureStderr();
  std::optional<int> exit = readSizeOption("--heap-size", text, minimum, out);
  std::string message = testing::internal::GetCapturedStderr();
  EXPECT_EQ(exit, 64) << text;
  return message.substr(0, message.find('\n'));
}

TEST(ByteSize, AnOptionSaysWhyItsSizeIsRefused) {
  EXPECT_EQ(sizeError("12Q"), "kith: --heap-size wants a size like 512K, 64M, 2G or 1T; got '12Q'");
  EXPECT_EQ(sizeError("99999999999T"), "kith: --heap-size is too large: '99999999999T' is more than 2^64 - 1 bytes");
  EXPECT_EQ(sizeError("99999999999999999999"),
            "kith: --heap-size is too large: '99999999999999999999' is more than 2^64 - 1 bytes");
  EXPECT_EQ(sizeError("0"), "kith: --heap-size must be at least 16K; got '0'");
  EXPECT_EQ(sizeError("1K"), "kith: --heap-size must be at least 16K; got '1K'");
  EXPECT_EQ(sizeError("512K", 1u << 20), "kith: --heap-size must be at least 1M; got '512K'");
  std::size_t out = 0;
  EXPECT_EQ(readSizeOption("--heap-size", "16K", 16u << 10, out), std::nullopt);
  EXPECT_EQ(out, 16u << 10);
}

TEST(ByteSize, NamesInTheLargestWholeUnit) {
  EXPECT_EQ(byteSizeName(16u << 10), "16K");
  EXPECT_EQ(byteSizeName(1u << 20), "1M");
  EXPECT_EQ(byteSizeName(std::size_t{3} << 40), "3T");
  EXPECT_EQ(byteSizeName(65537), "65537");
}

}  // namespace
}  // namespace kith::cli

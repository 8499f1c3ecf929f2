#include "cli/byte_size.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kith::cli

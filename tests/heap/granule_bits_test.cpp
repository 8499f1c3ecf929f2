// GranuleBits: a bit per 16-byte granule, by byte offset; the range queries cross
// 64-granule words.
#include "heap/layers/granule_bits.h"

#include <gtest/gtest.h>

namespace kith::heap {
namespace {

TEST(GranuleBits, OffHoldsNothing) {
  GranuleBits bits;
  EXPECT_FALSE(bits.on());
  EXPECT_EQ(bits.bytes(), 0u);
  bits = GranuleBits(1 << 16);  // 4096 granules: 64 words, and one for the end
  EXPECT_TRUE(bits.on());
  EXPECT_EQ(bits.bytes(), 65u * 8);
  bits.release();
  EXPECT_FALSE(bits.on());
}

TEST(GranuleBits, SetTestTakeReset) {
  GranuleBits bits(1 << 16);
  bits.set(16 * 63);
  bits.set(16 * 64);
  EXPECT_TRUE(bits.test(16 * 63));
  EXPECT_FALSE(bits.test(16 * 62));
  EXPECT_TRUE(bits.take(16 * 64));
  EXPECT_FALSE(bits.take(16 * 64));
  bits.reset(16 * 63);
  EXPECT_FALSE(bits.test(16 * 63));
}

TEST(GranuleBits, RangesCoverTheGranulesThatStartInThem) {
  GranuleBits bits(1 << 16);
  bits.set(16 * 200);
  EXPECT_TRUE(bits.anyIn(16 * 200, 16 * 201));
  EXPECT_TRUE(bits.anyIn(16 * 199 + 1, 16 * 200 + 1));  // granule 200 starts in it
  EXPECT_FALSE(bits.anyIn(16 * 200 + 1, 16 * 300));    // starts before the range
  EXPECT_FALSE(bits.anyIn(16 * 100, 16 * 200));         // the end is excluded
  EXPECT_TRUE(bits.anyIn(0, 1 << 16));                  // across many words
  bits.set(16 * 10);
  bits.set(16 * 4000);
  bits.clearIn(16 * 11, 16 * 4000);  // granules 11 .. 3999
  EXPECT_FALSE(bits.test(16 * 200));
  EXPECT_TRUE(bits.test(16 * 10));
  EXPECT_TRUE(bits.test(16 * 4000));
  bits.clearIn(0, 1 << 16);
  EXPECT_FALSE(bits.anyIn(0, 1 << 16));
}

}  // namespace
}  // namespace kith::heap

#include "cli/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace kith::cli {
namespace {

TEST(JsonWriter, MembersAreSeparatedByCommaAndSpace) {
  JsonWriter w;
  w.beginObject().key("policy").string("knuth").key("heap_size").number(std::uint64_t{65536});
  w.key("bare").boolean(true).key("timed").boolean(false).endObject();
  EXPECT_EQ(w.text(), R"({"policy": "knuth", "heap_size": 65536, "bare": true, "timed": false})");
}

TEST(JsonWriter, NestedObjectsAndArrays) {
  JsonWriter w;
  w.beginObject().key("gc").beginObject().key("cycles").number(std::uint64_t{3}).endObject();
  w.key("list").beginArray().number(std::uint64_t{1}).string("two").beginObject().endObject().beginArray().endArray();
  w.endArray().key("empty").beginObject().endObject().endObject();
  EXPECT_EQ(w.text(), R"({"gc": {"cycles": 3}, "list": [1, "two", {}, []], "empty": {}})");
}

TEST(JsonWriter, LineBreakAppliesToTheNextSeparatorOnly) {
  JsonWriter w;
  w.beginObject().key("policy").string("knuth").lineBreak(1).key("gc").beginObject();
  w.key("cycles").number(std::uint64_t{3}).lineBreak(2).key("mmu").beginObject().key("1ms").number(0.5);
  w.endObject().key("slices").number(std::uint64_t{7}).endObject().endObject();
  EXPECT_EQ(w.text(), "{\"policy\": \"knuth\",\n \"gc\": {\"cycles\": 3,\n  \"mmu\": {\"1ms\": 0.5}, \"slices\": 7}}");
}

TEST(JsonWriter, NumbersAsTheStatisticsPrintThem) {
  JsonWriter w;
  w.beginArray().number(0.1).number(1234567.0).number(2.5e-7).number(std::nan(""));
  w.number(std::numeric_limits<double>::infinity()).number(std::numeric_limits<std::uint64_t>::max()).endArray();
  EXPECT_EQ(w.text(), "[0.1, 1.23457e+06, 2.5e-07, 0, 0, 18446744073709551615]");
}

TEST(JsonWriter, StringsAndKeysAreEscaped) {
  JsonWriter w;
  w.beginObject().key("a\"b").string("x\\y\n").endObject();
  EXPECT_EQ(w.text(), R"({"a\"b": "x\\y\u000a"})");
}

TEST(JsonWriter, JsonFromElsewhereGoesInVerbatim) {
  JsonWriter w;
  w.beginObject().key("heap").json("{\"allocations\": 1,\n  \"frees\": 0}").key("n").number(std::uint64_t{2});
  w.endObject();
  EXPECT_EQ(w.text(), "{\"heap\": {\"allocations\": 1,\n  \"frees\": 0}, \"n\": 2}");
}

}  // namespace
}  // namespace kith::cli

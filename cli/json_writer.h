// JsonWriter: a JSON text built value by value, in the layout `kith`'s statistics
// print (CLI.md): members and elements separated by ", ", or by ",\n" and an indent
// where lineBreak() asks for one; numbers and strings formatted as the heap block's
// (heap::jsonNumber: %.6g, 0 for NaN and infinities; heap::jsonString), so that
// `kith run` and `kith replay` print one dialect that one parser reads.
//
//   JsonWriter w;
//   w.beginObject().key("policy").string("knuth").lineBreak(1).key("gc").beginObject()
//    .key("cycles").number(std::uint64_t{3}).endObject().endObject();
//   w.text() == "{\"policy\": \"knuth\",\n \"gc\": {\"cycles\": 3}}"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kith::cli {

class JsonWriter {
 public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  // The next member's name; its value follows.
  JsonWriter& key(std::string_view name);
  JsonWriter& number(std::uint64_t value);
  JsonWriter& number(double value);
  JsonWriter& string(std::string_view value);
  JsonWriter& boolean(bool value);
  // A value another module wrote as JSON already (heap::heapStatisticsJson), verbatim.
  JsonWriter& json(std::string_view value);
  // The next member or element starts a new line, `indent` spaces in.
  JsonWriter& lineBreak(int indent);

  const std::string& text() const { return out_; }

 private:
  void beginValue();
  void begin(char bracket);
  void end(char bracket);

  std::string out_;
  std::vector<bool> containerEmpty_;  // one entry per open object or array
  bool afterKey_ = false;             // a key was written: its value takes no separator
  std::string separator_ = ", ";      // before the next member or element
};

}  // namespace kith::cli

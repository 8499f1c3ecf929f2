#include "cli/json_writer.h"

#include "heap/statistics/statistics_report.h"

namespace kith::cli {

// Keys and array elements are separated from what came before in their container;
// an object's value follows its key directly.
void JsonWriter::beginValue() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (containerEmpty_.empty()) return;  // the top-level value
  if (!containerEmpty_.back()) out_ += separator_;
  containerEmpty_.back() = false;
  separator_ = ", ";
}

void JsonWriter::begin(char bracket) {
  beginValue();
  out_ += bracket;
  containerEmpty_.push_back(true);
}

void JsonWriter::end(char bracket) {
  out_ += bracket;
  containerEmpty_.pop_back();
  separator_ = ", ";
}

JsonWriter& JsonWriter::beginObject() {
  begin('{');
  return *this;
}

JsonWriter& JsonWriter::endObject() {
  end('}');
  return *this;
}

JsonWriter& JsonWriter::beginArray() {
  begin('[');
  return *this;
}

JsonWriter& JsonWriter::endArray() {
  end(']');
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  beginValue();
  out_ += heap::jsonString(name);
  out_ += ": ";
  afterKey_ = true;
  return *this;
}

JsonWriter& JsonWriter::number(std::uint64_t value) { return json(std::to_string(value)); }

JsonWriter& JsonWriter::number(double value) { return json(heap::jsonNumber(value)); }

JsonWriter& JsonWriter::string(std::string_view value) { return json(heap::jsonString(value)); }

JsonWriter& JsonWriter::boolean(bool value) { return json(value ? "true" : "false"); }

JsonWriter& JsonWriter::json(std::string_view value) {
  beginValue();
  out_ += value;
  return *this;
}

JsonWriter& JsonWriter::lineBreak(int indent) {
  separator_ = ",\n" + std::string(static_cast<std::size_t>(indent), ' ');
  return *this;
}

}  // namespace kith::cli

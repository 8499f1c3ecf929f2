// The heap verifier's object checks, which live on the VM's side of the binding
// (vm/object_scanning.h: objectLayoutProblem): a sound object passes, and each kind
// of damage is named — through verifyHeap, as a collector's debug check meets it.
#include <gtest/gtest.h>

#include <cstdint>

#include "gc_test_support.h"
#include "vm/object_scanning.h"

namespace kith::gc::testing {
namespace {

using vm::Value;

class ObjectLayoutCheck : public ::testing::Test {
 protected:
  ObjectLayoutCheck() : t_("estranged", 1 << 20), roots_(t_.vm()) {
    array_ = t_.vm().newArray(4, Value::integer(1));
    roots_.root(array_);
  }
  vm::Handle* handle() { return array_.asHandle(); }
  vm::ObjectHeader& header() { return *static_cast<vm::ObjectHeader*>(handle()->object); }
  const char* problem() {
    return vm::objectLayoutProblem(handle(), t_.heap->arenaBase(), t_.heap->arenaSize());
  }
  std::string verified() { return verifyHeap(spaceOf(t_.vm())); }

  TestVm t_;
  vm::RootScope roots_;
  Value array_;
};

TEST_F(ObjectLayoutCheck, ASoundObjectPasses) {
  EXPECT_STREQ(problem(), "");
  EXPECT_EQ(verified(), "");
}

TEST_F(ObjectLayoutCheck, AHeaderNamingAnotherHandleIsNamed) {
  vm::Handle* own = header().handle;
  header().handle = own + 1;
  EXPECT_STREQ(problem(), "object header names another handle (stale or moved object)");
  EXPECT_NE(verified().find("names another handle"), std::string::npos);
  header().handle = own;
}

TEST_F(ObjectLayoutCheck, AnotherClassIdIsNamed) {
  const std::uint32_t own = header().classId;
  header().classId = own + 1;
  EXPECT_STREQ(problem(), "object header's class id differs from the handle's class");
  header().classId = own;
}

TEST_F(ObjectLayoutCheck, ALengthPastTheSizeIsNamed) {
  auto* array = static_cast<vm::ArrayObject*>(handle()->object);
  const std::uint64_t own = array->length;
  array->length = own + 100;
  EXPECT_STREQ(problem(), "object's length fields run past its size");
  EXPECT_NE(verified().find("length fields run past its size"), std::string::npos);
  array->length = own;
}

TEST_F(ObjectLayoutCheck, ASizeBelowTheLayoutIsNamed) {
  const std::uint32_t own = header().size;
  header().size = sizeof(vm::ObjectHeader);
  EXPECT_STREQ(problem(), "object smaller than its kind's layout");
  header().size = own;
}

TEST_F(ObjectLayoutCheck, AnAddressOutsideTheArenaIsNamed) {
  void* own = handle()->object;
  alignas(vm::ArrayObject) static std::uint8_t elsewhere[64] = {};
  handle()->object = elsewhere;
  EXPECT_STREQ(problem(), "object address outside the heap arena");
  handle()->object = own;
}

}  // namespace
}  // namespace kith::gc::testing

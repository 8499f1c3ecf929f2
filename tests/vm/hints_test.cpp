// The VM's allocation hints: which address each allocation asks the
// heap to be near. A recording heap wraps a real policy and keeps the hint of the
// last hinted malloc; the tests then compare it with the objects the script built.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "heap/heap.h"
#include "stdlib/builtins.h"
#include "vm/compiler.h"
#include "vm/object.h"
#include "vm/vm.h"

namespace kith::vm {
namespace {

class HintRecordingHeap final : public heap::Heap {
 public:
  HintRecordingHeap() : inner_(heap::makeHeap("estranged", 4u << 20, heap::StatisticsMode::counts)) {}
  void* malloc(std::size_t size) override { return malloc(size, nullptr); }
  void* malloc(std::size_t size, const void* near) override {
    void* p = inner_->malloc(size, near);
    hints.push_back({p, near});
    return p;
  }
  void free(void* p) override { inner_->free(p); }
  std::size_t freeAndGetSize(void* p) override { return inner_->freeAndGetSize(p); }
  std::size_t getSize(void* p) override { return inner_->getSize(p); }
  heap::HeapStatistics statistics() const override { return inner_->statistics(); }
  bool setRelocator(heap::RelocateFn fn, void* c) override { return inner_->setRelocator(fn, c); }
  std::string checkInvariants() override { return inner_->checkInvariants(); }
  std::string_view name() const override { return "hint-recorder"; }
  std::byte* arenaBase() const override { return inner_->arenaBase(); }
  std::size_t arenaSize() const override { return inner_->arenaSize(); }

  struct Hint {
    const void* object;  // what malloc returned
    const void* near;    // what it was asked to be near
  };
  std::vector<Hint> hints;
  // The hint given when `object` was allocated (nullptr if none or not found).
  const void* hintFor(const void* object) const {
    for (const Hint& h : hints)
      if (h.object == object) return h.near;
    return nullptr;
  }

 private:
  std::unique_ptr<heap::Heap> inner_;
};

class HintsTest : public ::testing::Test {
 protected:
  HintsTest() : vm_(heap_, collector_) { stdlib::installBuiltins(vm_); }
  void run(std::string_view source) {
    CompileResult compiled = compile(vm_, source, "hints.kith");
    ASSERT_TRUE(compiled.errors.empty()) << compiled.errors.front();
    try {
      vm_.runScript(compiled.script);
    } catch (const KithThrow&) {
      FAIL() << vm_.exceptionMessage(vm_.pendingException());
    }
  }
  const void* objectOf(std::string_view global) {
    Value v = vm_.global(global);
    EXPECT_TRUE(v.isObject()) << global;
    return v.isObject() ? v.asHandle()->object : nullptr;
  }
  const void* fieldObject(std::string_view global, int field) {
    auto* o = static_cast<InstanceObject*>(const_cast<void*>(objectOf(global)));
    Value v = o->fields()[field];
    EXPECT_TRUE(v.isObject());
    return v.asHandle()->object;
  }

  HintRecordingHeap heap_;
  NoCollector collector_;
  VM vm_;
};

TEST_F(HintsTest, AFieldAssignedANewObjectIsBuiltNearTheReceiver) {
  run("class Node { field left; }\n"
      "let other = new Node();\n"  // the class's last allocation: not the receiver below
      "let root = new Node();\n"
      "let spare = new Node();\n"
      "root.left = new Node();\n");
  EXPECT_EQ(heap_.hintFor(fieldObject("root", 0)), objectOf("root"));
}

TEST_F(HintsTest, WithoutAReceiverTheHintIsTheClassesLastAllocation) {
  run("class A { field x; }\n"
      "class B { field x; }\n"
      "let a1 = new A();\n"
      "let b1 = new B();\n"
      "let a2 = new A();\n");
  EXPECT_EQ(heap_.hintFor(objectOf("a2")), objectOf("a1"));
}

TEST_F(HintsTest, ListStorageIsBuiltNearTheList) {
  run("let list = new List();\nlist.add(1);\n");
  auto* l = static_cast<const ListObject*>(objectOf("list"));
  ASSERT_TRUE(l->storage.isObject());
  EXPECT_EQ(heap_.hintFor(l->storage.asHandle()->object), objectOf("list"));
}

}  // namespace
}  // namespace kith::vm

// The interpreter's contract with natives, exceptions, memory and roots.
#include <gtest/gtest.h>

#include <set>

#include "vm/object.h"
#include "vm_test_support.h"

namespace kith::vm {
namespace {

TEST(Interpreter, ExceptionsUnwindThroughNativeCallbacks) {
  testing::TestVM t;
  auto r = t.run(R"(
    let l = new List(); l.add(1); l.add(2); l.add(3);
    let seen = 0;
    try { l.forEach(fn (x) { seen = x; if (x == 2) throw "stop at " + x; }); } catch (e) { print(e, seen); }
    class Bad { toString() { return 1 / 0; } }
    try { print(str(new Bad())); } catch (e) { print(typeOf(e), e.message); }
    let sum = 0;
    l.forEach(fn (x) { sum = sum + x; });
    print(sum);
  )");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.out, "stop at 2 2\nError division by zero\n6\n");
}

TEST(Interpreter, UncaughtErrorCarriesTheTrace) {
  testing::TestVM t;
  auto r = t.run("fn inner() { return nil.x; }\nfn outer() { return inner(); }\nouter();\n");
  EXPECT_EQ(r.error, "cannot read property 'x' of nil");
  EXPECT_EQ(r.trace, (std::vector<std::string>{"  at inner (test.kith:1)", "  at outer (test.kith:2)",
                                               "  at <script> (test.kith:3)"}));
}

TEST(Interpreter, StackOverflowIsCatchable) {
  testing::TestVM t("estranged", 4u << 20, VMOptions{100, {}});
  auto r = t.run(R"(
    fn down(n) { return down(n + 1); }
    try { down(0); } catch (e) { print(e.message); }
    fn viaNative(n) { let l = new List(); l.add(n); l.forEach(fn (x) { viaNative(x + 1); }); }
    try { viaNative(0); } catch (e) { print(e.message); }
    print("still running");
  )");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.out, "stack overflow\nstack overflow\nstill running\n");
}

TEST(Interpreter, OutOfMemoryIsCatchableAndExact) {
  testing::TestVM t("tlsf", 256 * 1024);
  auto r = t.run(R"(
    try { new Array(100000); } catch (e) { print(e.message); }
    try { new Array(9223372036854775807); } catch (e) { print(e.message); }
    print("after");
  )");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.out,
            "out of memory: requested 800024 bytes\n"
            "out of memory: requested 73786976294838206480 bytes\nafter\n");
}

TEST(Interpreter, IntegerArithmeticWraps) {
  testing::TestVM t;
  auto r = t.run(R"(
    let min = -9223372036854775807 - 1;
    print(9223372036854775807 + 1 == min, min / -1 == min, min % -1, 7 / -2, -7 % 2);
    print(1 << 64, 1 << 65, -1 >> 70, -1 >>> 63, ~0);
    try { print(1 % 0); } catch (e) { print(e.message); }
  )");
  EXPECT_EQ(r.out, "true true 0 -3 -1\n1 2 -1 1 -1\ndivision by zero\n");
}

TEST(Roots, EnumerationCoversGlobalsStackAndPinned) {
  testing::TestVM t;
  auto r = t.run("let kept = \"a global string\";");
  ASSERT_EQ(r.error, "");
  VM& vm = t.vm();
  Value global = vm.global("kept");
  ASSERT_TRUE(vm.isKind(global, ObjectKind::string));
  RootScope roots(vm);
  Value pinned = vm.newString("pinned");
  roots.root(pinned);
  vm.push(vm.newString("on the stack"));
  std::set<Handle*> seen;
  vm.forEachRoot([&](Value& v) {
    if (v.isObject()) seen.insert(v.asHandle());
  });
  vm.pop();
  EXPECT_TRUE(seen.count(global.asHandle()));
  EXPECT_TRUE(seen.count(pinned.asHandle()));
  EXPECT_EQ(seen.size() >= 3, true);
  // Every live handle the roots name belongs to the handle table.
  for (Handle* h : seen) EXPECT_TRUE(testing::spaceOf(vm).handles().owns(h));
}

TEST(Gate, EveryObjectHasAHeaderNamingItsHandle) {
  testing::TestVM t;
  auto r = t.run(R"(
    class P { field a, b, c; }
    let things = [new P(), "str", [1, 2], new List(), new Map(), new StringBuilder(), fn () { return 1; }];
  )");
  ASSERT_EQ(r.error, "");
  std::size_t checked = 0;
  testing::spaceOf(t.vm()).handles().forEachLive([&](Handle* h) {
    auto* header = static_cast<ObjectHeader*>(h->object);
    EXPECT_EQ(header->handle, h);
    EXPECT_EQ(header->classId, h->klass->id);
    EXPECT_LE(header->size, t.heap().getSize(h->object));
    ++checked;
  });
  EXPECT_EQ(checked, testing::spaceOf(t.vm()).handles().liveCount());
  EXPECT_EQ(testing::spaceOf(t.vm()).objectsCreated(), t.heap().statistics().allocations);
}

TEST(Gate, InstancesOfOneClassHaveOneSize) {
  testing::TestVM t;
  auto r = t.run(R"(
    class A { field x; }
    class B < A { field y, z; }
    let a1 = new A(); let a2 = new A(); a2.x = "big string value";
    let b = new B();
  )");
  ASSERT_EQ(r.error, "");
  VM& vm = t.vm();
  auto size = [&](const char* name) { return objectAt<ObjectHeader>(vm.global(name))->size; };
  EXPECT_EQ(size("a1"), size("a2"));
  EXPECT_EQ(size("a1"), sizeof(ObjectHeader) + 1 * sizeof(Value));
  EXPECT_EQ(size("b"), sizeof(ObjectHeader) + 3 * sizeof(Value));
}

}  // namespace
}  // namespace kith::vm

// The method area (vm/method_area.h): built-in classes, symbols, globals and the
// constants' roots, without a heap.
#include "vm/method_area.h"

#include <gtest/gtest.h>

#include <vector>

namespace kith::vm {
namespace {

TEST(MethodArea, BuiltInClassesHaveTheirKindsAsIds) {
  MethodArea area;
  for (std::size_t k = 0; k < kObjectKindCount; ++k) {
    ClassInfo* klass = area.builtinClass(static_cast<ObjectKind>(k));
    EXPECT_EQ(klass->id, k);
    EXPECT_EQ(area.classById(k), klass);
    EXPECT_FALSE(klass->instantiable);
  }
  EXPECT_EQ(area.builtinClass(ObjectKind::array)->name, "Array");
  EXPECT_EQ(area.builtinClass(ObjectKind::instance)->name, "Object");
  EXPECT_EQ(area.arrayClass(), area.builtinClass(ObjectKind::array));
  EXPECT_EQ(area.errorClass(), nullptr);
}

TEST(MethodArea, UserClassesGetTheNextIdsAndAreFoundByName) {
  MethodArea area;
  ClassInfo* point = area.newClass("Point", ObjectKind::instance);
  ClassInfo* list = area.newClass("List2", ObjectKind::list);
  EXPECT_EQ(point->id, kObjectKindCount);
  EXPECT_EQ(list->id, kObjectKindCount + 1);
  EXPECT_EQ(area.compiledClass("Point"), point);
  EXPECT_EQ(area.compiledClass("List2"), nullptr);  // only user (instance) classes
  EXPECT_EQ(area.compiledClass("Nowhere"), nullptr);
  area.setErrorClass(point);
  EXPECT_EQ(area.errorClass(), point);
  EXPECT_TRUE(point->isErrorClass);
}

TEST(MethodArea, TheVmsOwnSymbolsComeFirstAndNamesKeepTheirNumbers) {
  MethodArea area;
  EXPECT_EQ(area.messageSymbol(), 0);
  EXPECT_EQ(area.toStringSymbol(), 1);
  EXPECT_EQ(area.initSymbol(), 2);
  EXPECT_EQ(area.lengthSymbol(), 3);
  EXPECT_EQ(area.symbol("length"), area.lengthSymbol());
  int x = area.symbol("x");
  EXPECT_EQ(x, 4);
  EXPECT_EQ(area.symbol("x"), x);
  EXPECT_EQ(area.symbolName(x), "x");
}

TEST(MethodArea, AGlobalIsUndefinedAndUndeclaredUntilSet) {
  MethodArea area;
  EXPECT_TRUE(area.global("a").isUndefined());  // looking does not create it
  int a = area.globalSlot("a");
  EXPECT_EQ(area.globalSlot("a"), a);
  EXPECT_EQ(area.globalName(static_cast<std::size_t>(a)), "a");
  EXPECT_TRUE(area.globalAt(static_cast<std::size_t>(a)).isUndefined());
  EXPECT_FALSE(area.declared(static_cast<std::size_t>(a)));
  area.globalAt(static_cast<std::size_t>(a)) = Value::integer(7);
  area.declare(static_cast<std::size_t>(a));
  EXPECT_TRUE(area.global("a").sameAs(Value::integer(7)));
  EXPECT_TRUE(area.declared(static_cast<std::size_t>(a)));
  std::vector<Value> roots;
  area.forEachGlobalRoot([&](Value& v) { roots.push_back(v); });
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_TRUE(roots[0].sameAs(Value::integer(7)));
}

TEST(MethodArea, CodeRootsAreTheConstantsThenEachClasssMethodsStaticsAndInitializer) {
  MethodArea area;
  area.rootConstant(Value::integer(1));
  area.rootConstant(Value::integer(2));
  ClassInfo* klass = area.newClass("C", ObjectKind::instance);
  klass->ownMethods.push_back(Value::integer(3));
  area.defineStatic(klass, "K", Value::integer(4));
  klass->initializer = Value::integer(5);
  std::vector<Value> roots;
  area.forEachCodeRoot([&](Value& v) { roots.push_back(v); });
  // Two constants, nil initializers of the kObjectKindCount built-in classes, then C's three.
  ASSERT_EQ(roots.size(), 2 + kObjectKindCount + 3);
  EXPECT_TRUE(roots[0].sameAs(Value::integer(1)));
  EXPECT_TRUE(roots[roots.size() - 3].sameAs(Value::integer(3)));
  EXPECT_TRUE(roots[roots.size() - 2].sameAs(Value::integer(4)));
  EXPECT_TRUE(roots.back().sameAs(Value::integer(5)));
  EXPECT_EQ(area.constantRootCount(), 2u);
  area.dropConstantRoots(1);
  EXPECT_EQ(area.constantRootCount(), 1u);
}

}  // namespace
}  // namespace kith::vm

// The outside allocators' libraries are opened when their policy is chosen
// (heap/adapters/shared_library.h): a library or function this machine lacks is a
// LibraryUnavailable naming who needs it and the package, and each outside policy
// still allocates when chosen.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "heap/adapters/shared_library.h"
#include "heap/heap.h"

namespace kith::heap {
namespace {

std::string unavailableMessage(const char* soname, const char* function) {
  try {
    SharedLibrary library(soname, "the test policy", "libtest-package");
    (void)library.function<void (*)()>(function);
  } catch (const LibraryUnavailable& e) {
    return e.what();
  }
  return "";
}

TEST(OutsideLibrary, AMissingLibraryNamesWhoNeedsItAndItsPackage) {
  std::string message = unavailableMessage("libkith-no-such-library.so.9", "f");
  EXPECT_NE(message.find("the test policy needs libkith-no-such-library.so.9"), std::string::npos) << message;
  EXPECT_NE(message.find("(Debian package libtest-package)"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(OutsideLibrary, AMissingFunctionIsNamed) {
  std::string message = unavailableMessage("libc.so.6", "kith_no_such_function");
  EXPECT_NE(message.find("libc.so.6 has no function kith_no_such_function"), std::string::npos) << message;
}

TEST(OutsideLibrary, APresentFunctionIsCallable) {
  SharedLibrary libc("libc.so.6", "the test", "libc6");
  auto length = libc.function<std::size_t (*)(const char*)>("strlen");
  EXPECT_EQ(length("kith"), 4u);
}

// Each outside policy this build lists loads its library on first use and works.
TEST(OutsideLibrary, EachOutsidePolicyAllocatesWhenChosen) {
  for (const char* name : {"jemalloc", "mimalloc", "boehm"}) {
    if (!isPolicy(name)) continue;  // left out of this build (kith policies notes it)
    SCOPED_TRACE(name);
    auto heap = makeHeap(name, std::size_t{1} << 20, StatisticsMode::counts);
    ASSERT_NE(heap, nullptr);
    void* p = heap->malloc(100);
    ASSERT_NE(p, nullptr);
    std::memset(p, 0xab, 100);
    EXPECT_GE(heap->getSize(p), 100u);
    heap->free(p);
  }
}

}  // namespace
}  // namespace kith::heap

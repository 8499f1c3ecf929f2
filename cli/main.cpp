// The `kith` command (../shared/CLI.md is the contract). This build has the heap
// side of it: `policies` and `bench contrived`; the VM's commands come later.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "cli/byte_size.h"
#include "cli/contrived_bench.h"
#include "heap/heap.h"

namespace {

// Exit codes follow sysexits.h, as LANGUAGE.md's 65/66/70 do.
constexpr int kExitOk = 0;
constexpr int kExitUsage = 64;
constexpr int kExitSoftware = 70;

constexpr const char* kVersion = "kith 0.1.0";

constexpr const char* kUsage =
    "usage: kith <command> [options]\n"
    "\n"
    "commands in this build:\n"
    "  kith policies                 list the heap policies, one line each\n"
    "  kith bench contrived [--json] [--heap-size=SIZE] [--repetitions=N]\n"
    "                                the paper's Figure 8 worst-case request experiment\n"
    "                                on list, knuth, estranged and tlsf (default heap 64M)\n"
    "  kith --help | --version\n"
    "\n"
    "SIZE is bytes or a number with K, M or G (binary units), e.g. 512K, 16M, 1G.\n"
    "Running scripts (kith FILE.kith, run, replay, study, disasm) is not in this build yet.\n";

int usageError(const std::string& message) {
  std::fprintf(stderr, "kith: %s\n(see kith --help)\n", message.c_str());
  return kExitUsage;
}

int listPolicies() {
  for (const auto& p : kith::heap::policyList())
    std::printf("%-10s %.*s\n", std::string(p.name).c_str(), static_cast<int>(p.description.size()),
                p.description.data());
  return kExitOk;
}

int benchContrived(const std::vector<std::string_view>& args) {
  bool json = false;
  std::size_t heapBytes = 64u << 20;
  int repetitions = 5;
  for (std::string_view a : args) {
    if (a == "--json") {
      json = true;
    } else if (a.starts_with("--heap-size=")) {
      auto size = kith::cli::parseByteSize(a.substr(12));
      if (!size || *size < (1u << 20))
        return usageError("--heap-size wants a size of at least 1M, like 64M; got '" +
                          std::string(a.substr(12)) + "'");
      heapBytes = *size;
    } else if (a.starts_with("--repetitions=")) {
      std::string v(a.substr(14));
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < 1 || n > 1000)
        return usageError("--repetitions wants a number from 1 to 1000; got '" + v + "'");
      repetitions = static_cast<int>(n);
    } else {
      return usageError("unknown option for 'bench contrived': " + std::string(a));
    }
  }
  try {
    auto result = kith::cli::runContrived(heapBytes, repetitions);
    std::fputs(json ? kith::cli::contrivedJson(result).c_str() : kith::cli::contrivedTable(result).c_str(),
               stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kith: bench contrived: %s\n", e.what());
    return kExitSoftware;
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  std::string_view command = args[0];
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (command == "--version") {
    std::puts(kVersion);
    return kExitOk;
  }
  if (command == "policies") return args.size() == 1 ? listPolicies() : usageError("'policies' takes no arguments");
  if (command == "bench") {
    if (args.size() < 2) return usageError("'bench' needs an experiment name: contrived");
    if (args[1] != "contrived") return usageError("unknown benchmark '" + std::string(args[1]) + "'; known: contrived");
    return benchContrived({args.begin() + 2, args.end()});
  }
  if (command == "run" || command == "replay" || command == "study" || command == "disasm" ||
      command.ends_with(".kith"))
    return usageError("'" + std::string(command) + "' is not in this build yet: the VM has not landed");
  return usageError("unknown command '" + std::string(command) + "'");
}

// Toolchain: where cfacc finds what it needs, relative to its own binary so
// that both the build tree and an install tree work:
//   build tree:   <build>/compiler/cfacc, <build>/compiler/include/cfa/,
//                 <build>/runtime/libcfa.a, <build>/stdlib/libcfa_std.a
//   install tree: <prefix>/bin/cfacc, <prefix>/include/cfa/,
//                 <prefix>/lib/libcfa.a, <prefix>/lib/libcfa_std.a
// The standard library (channels, futures, locks, time) is optional: it is
// linked before the runtime when it is there.
// CFACC_CLANG in the environment overrides the C compiler (clang-19).
// CFACC_RUNTIME_DIR names another tree (build or install layout) to take
// libcfa.a and libcfa_std.a from: a sanitizer build's, with -fsanitize=.
#ifndef CFACC_TOOLCHAIN_H
#define CFACC_TOOLCHAIN_H

#include <string>
#include <vector>

namespace cfacc {

struct Toolchain {
  std::string Clang;      // compiles the emitted C and links
  std::string IncludeDir; // holds cfa/prelude.h and the runtime headers
  std::string RuntimeLib; // libcfa.a
  std::string StdLib;     // libcfa_std.a, or empty
  std::vector<std::string> RuntimeDeps = {"-luring", "-lhwloc", "-lpthread"};

  static Toolchain locate(const char *Argv0);
};

} // namespace cfacc
#endif

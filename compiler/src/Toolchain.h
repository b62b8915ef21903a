// Toolchain: where cfacc finds what it needs, relative to its own binary so
// that both the build tree and an install tree work:
//   build tree:   <build>/compiler/cfacc, <build>/compiler/include/cfa/,
//                 <build>/runtime/libcfa.a, <build>/stdlib/libcfa_std.a
//   install tree: <prefix>/bin/cfacc, <prefix>/include/cfa/,
//                 <prefix>/lib/libcfa.a, <prefix>/lib/libcfa_std.a
// The standard library (channels, futures, locks, time) is optional: it is
// linked before the runtime when it is there. Both are also shared
// libraries (libcfa.so, libcfa_std.so beside the archives), which
// `-shared` and `-shared-libcfa` link (Driver.cpp).
// CFACC_CLANG in the environment overrides the C compiler (clang-19).
// CFACC_RUNTIME_DIR names another tree (build or install layout) to take
// libcfa.a and libcfa_std.a from: a sanitizer build's, with -fsanitize=.
//
// Sanitizers: with -fsanitize=thread or -fsanitize=address the program
// must link a runtime compiled for that sanitizer (its context switches
// tell the sanitizer about each user-level stack). The variant's libraries
// carry a suffix, libcfa-tsan.a / libcfa_std-tsan.a (-asan for address),
// in the same directories. Under CFACC_RUNTIME_DIR a tree without them is
// a whole build for that sanitizer: its plain libcfa.a is taken.
#ifndef CFACC_TOOLCHAIN_H
#define CFACC_TOOLCHAIN_H

#include <string>
#include <vector>

namespace cfacc {

struct Toolchain {
  std::string Clang;      // compiles the emitted C and links
  std::string IncludeDir; // holds cfa/prelude.h and the runtime headers
  std::string RuntimeLib; // libcfa.a (or its sanitizer variant)
  std::string LibsDir;    // the tree RuntimeLib is looked for in
  std::string StdLib;     // libcfa_std.a, or empty
  std::string SharedRuntimeLib; // libcfa.so, or empty (no sanitizer variants)
  std::string SharedStdLib;     // libcfa_std.so, or empty
  std::string FullyStaticRuntimeLib; // libcfa-static.a (for -static), or empty
  std::vector<std::string> RuntimeDeps = {"-luring", "-lhwloc", "-lpthread"};

  // Variant: "" (no sanitizer runtime), "tsan" or "asan".
  static Toolchain locate(const char *Argv0, const std::string &Variant);
};

} // namespace cfacc
#endif

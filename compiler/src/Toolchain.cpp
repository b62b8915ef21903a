// Toolchain: see Toolchain.h.
#include "Toolchain.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

namespace cfacc {

static std::string firstExisting(const std::vector<std::string> &Candidates, const std::string &Probe) {
  for (const std::string &C : Candidates) {
    llvm::SmallString<256> P(C);
    if (!Probe.empty())
      llvm::sys::path::append(P, Probe);
    if (llvm::sys::fs::exists(P)) {
      llvm::SmallString<256> Clean(C);
      llvm::sys::path::remove_dots(Clean, true);
      return std::string(Clean);
    }
  }
  return "";
}

Toolchain Toolchain::locate(const char *Argv0) {
  Toolchain T;
  std::string Exe = llvm::sys::fs::getMainExecutable(Argv0, reinterpret_cast<void *>(&Toolchain::locate));
  std::string Dir = std::string(llvm::sys::path::parent_path(Exe));
  T.IncludeDir = firstExisting({Dir + "/include", Dir + "/../include"}, "cfa/prelude.h");
  // The libraries' tree: cfacc's own, or CFACC_RUNTIME_DIR's (another
  // build of the same sources, e.g. a sanitizer build's).
  std::string Libs = Dir + "/..";
  if (const char *Env = std::getenv("CFACC_RUNTIME_DIR"); Env && *Env)
    Libs = Env;
  T.RuntimeLib = firstExisting({Libs + "/lib/libcfa.a", Libs + "/runtime/libcfa.a"}, "");
  T.StdLib = firstExisting({Libs + "/lib/libcfa_std.a", Libs + "/stdlib/libcfa_std.a"}, "");
  if (const char *Env = std::getenv("CFACC_CLANG"); Env && *Env)
    T.Clang = Env;
  else if (auto Found = llvm::sys::findProgramByName("clang-19"))
    T.Clang = *Found;
  else
    T.Clang = CFACC_CLANG;
  return T;
}

} // namespace cfacc

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

// lib<Name>[-<Variant>]<Suffix> in Libs/lib or Libs/<BuildDir>; the plain
// one for a variant only when Libs is a tree the user named
// (CFACC_RUNTIME_DIR).
static std::string library(const std::string &Libs, const std::string &BuildDir, const std::string &Name,
                           const std::string &Variant, bool NamedTree, const std::string &Suffix) {
  std::vector<std::string> Files;
  if (!Variant.empty())
    Files.push_back("lib" + Name + "-" + Variant + Suffix);
  if (Variant.empty() || NamedTree)
    Files.push_back("lib" + Name + Suffix);
  for (const std::string &F : Files)
    if (std::string Found = firstExisting({Libs + "/lib/" + F, Libs + "/" + BuildDir + "/" + F}, ""); !Found.empty())
      return Found;
  return "";
}

Toolchain Toolchain::locate(const char *Argv0, const std::string &Variant) {
  Toolchain T;
  std::string Exe = llvm::sys::fs::getMainExecutable(Argv0, reinterpret_cast<void *>(&Toolchain::locate));
  std::string Dir = std::string(llvm::sys::path::parent_path(Exe));
  T.IncludeDir = firstExisting({Dir + "/include", Dir + "/../include"}, "cfa/prelude.h");
  // The libraries' tree: cfacc's own, or CFACC_RUNTIME_DIR's (another
  // build of the same sources, e.g. a sanitizer build's).
  std::string Libs = Dir + "/..";
  bool NamedTree = false;
  if (const char *Env = std::getenv("CFACC_RUNTIME_DIR"); Env && *Env) {
    Libs = Env;
    NamedTree = true;
  }
  T.LibsDir = Libs;
  T.RuntimeLib = library(Libs, "runtime", "cfa", Variant, NamedTree, ".a");
  T.StdLib = library(Libs, "stdlib", "cfa_std", Variant, NamedTree, ".a");
  T.SharedRuntimeLib = library(Libs, "runtime", "cfa", Variant, NamedTree, ".so");
  T.SharedStdLib = library(Libs, "stdlib", "cfa_std", Variant, NamedTree, ".so");
  T.FullyStaticRuntimeLib = library(Libs, "runtime", "cfa", "static", false, ".a");
  if (const char *Env = std::getenv("CFACC_CLANG"); Env && *Env)
    T.Clang = Env;
  else if (auto Found = llvm::sys::findProgramByName("clang-19"))
    T.Clang = *Found;
  else
    T.Clang = CFACC_CLANG;
  return T;
}

} // namespace cfacc

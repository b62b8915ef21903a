// Driver: cfacc's command line, which behaves like cc.
//
// Inputs are taken by extension (or `-x cfa|c|none`): .cfa files are
// translated (stage 1, in process) and their C compiled by clang-19
// (stage 2) with a VFS overlay that puts the emitted C over the .cfa file
// and the .hfa headers it includes, so paths, `#include "..."` lookup,
// __FILE__ and -MD dependencies all name the user's files; .c/.s/.S files
// go to clang-19 directly; anything else (.o, .a, .so) is a linker input.
// Linking adds libcfa_std.a (when built), libcfa.a and the runtime's
// libraries after the user's inputs.
//
// Errors in what stage 1 parses come from stage 1, mapped to the original
// sources; stage 1 skips some bodies and runs with -w, so stage 2 reports
// the warnings and the errors in the skipped bodies (the emitted C carries
// #line markers: same files and lines).
#include "Driver.h"

#include "Toolchain.h"
#include "Translator.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace cfacc {
namespace {

enum class Mode { Link, Compile, Assemble, Preprocess, EmitC };
enum class Language { ByExtension, Cfa, C };

struct Input {
  std::string Path;
  Language Lang;
};

struct Options {
  Mode Mode = Mode::Link;
  std::string Output;
  std::vector<Input> Inputs;          // sources, in order
  std::vector<std::string> LinkItems; // objects, archives, -l, in order
  std::vector<std::string> CompileArgs; // both stages
  std::vector<std::string> CodegenArgs; // stage 2 only: -g, -M*
  std::vector<std::string> LinkArgs;    // -L, -Wl, -static, ...
  bool Verbose = false;
  bool KeepTemps = false;
};

const char *const Usage =
    "usage: cfacc [options] file...\n"
    "\n"
    "Compiles cfa-lite (.cfa) and C (.c) files like cc, and links the cfa-lite\n"
    "runtime. Header files with extensions end in .hfa.\n"
    "\n"
    "  -c                 compile to object files, do not link\n"
    "  -S                 compile to assembly\n"
    "  -E                 preprocess only (shows the translated C)\n"
    "  --emit-c           print the C that a .cfa file translates to\n"
    "  -o <file>          output file\n"
    "  -I -D -U -include -isystem -iquote -std= -W... -f... -m... -O... -g\n"
    "                     as for clang\n"
    "  -MD -MMD -MF -MT -MQ -MP  dependency files, as for clang\n"
    "  -l -L -Wl,... -static -shared -rdynamic -pthread  linker options\n"
    "  -x cfa|c|none      language of the following inputs\n"
    "  -v                 print the commands cfacc runs\n"
    "  -save-temps        keep the temporary directory (printed with -v)\n"
    "  --help, --version\n"
    "\n"
    "Environment: CFACC_CLANG overrides the C compiler (default clang-19).\n";

bool takesSeparateValue(llvm::StringRef A) {
  return A == "-I" || A == "-D" || A == "-U" || A == "-include" || A == "-isystem" ||
         A == "-iquote" || A == "-idirafter" || A == "-imacros" || A == "--target" ||
         A == "-target" || A == "--sysroot";
}

bool isDependencyFlag(llvm::StringRef A) {
  return A == "-MD" || A == "-MMD" || A == "-MP" || A == "-MF" || A == "-MT" || A == "-MQ" ||
         A.starts_with("-MF") || A.starts_with("-MT") || A.starts_with("-MQ");
}

bool isLinkOnlyFlag(llvm::StringRef A) {
  return A.starts_with("-L") || A.starts_with("-Wl,") || A == "-static" || A == "-shared" ||
         A == "-rdynamic" || A == "-nostdlib" || A.starts_with("-fuse-ld=");
}

// Returns 0 to continue, or an exit status (1 error, -1 done: help/version).
int parse(int Argc, char **Argv, Options &O) {
  Language Lang = Language::ByExtension;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    auto Next = [&](llvm::StringRef What) -> const char * {
      if (I + 1 >= Argc) {
        llvm::errs() << "cfacc: error: missing argument to '" << What << "'\n";
        return nullptr;
      }
      return Argv[++I];
    };
    if (A == "--help" || A == "-help") {
      llvm::outs() << Usage;
      return -1;
    }
    if (A == "--version") {
      llvm::outs() << "cfacc (cfa-lite) " << CFACC_VERSION << "\n";
      return -1;
    }
    if (A == "-c") O.Mode = Mode::Compile;
    else if (A == "-S") O.Mode = Mode::Assemble;
    else if (A == "-E") O.Mode = Mode::Preprocess;
    else if (A == "--emit-c") O.Mode = Mode::EmitC;
    else if (A == "-v") O.Verbose = true;
    else if (A == "-save-temps") O.KeepTemps = true;
    else if (A == "-o") {
      const char *V = Next(A);
      if (!V) return 1;
      O.Output = V;
    } else if (A.starts_with("-o") && A.size() > 2) {
      O.Output = A.drop_front(2).str();
    } else if (A == "-x") {
      const char *V = Next(A);
      if (!V) return 1;
      llvm::StringRef L = V;
      if (L == "cfa") Lang = Language::Cfa;
      else if (L == "c") Lang = Language::C;
      else if (L == "none") Lang = Language::ByExtension;
      else {
        llvm::errs() << "cfacc: error: language '" << L << "' is not supported (use cfa or c)\n";
        return 1;
      }
    } else if (A == "-MF" || A == "-MT" || A == "-MQ") {
      const char *V = Next(A);
      if (!V) return 1;
      O.CodegenArgs.insert(O.CodegenArgs.end(), {A.str(), V});
    } else if (isDependencyFlag(A) || A.starts_with("-g")) {
      O.CodegenArgs.push_back(A.str());
    } else if (A.starts_with("-l")) {
      if (A == "-l") {
        const char *V = Next(A);
        if (!V) return 1;
        O.LinkItems.push_back("-l" + std::string(V));
      } else {
        O.LinkItems.push_back(A.str());
      }
    } else if (A == "-L") {
      const char *V = Next(A);
      if (!V) return 1;
      O.LinkArgs.insert(O.LinkArgs.end(), {"-L", V});
    } else if (isLinkOnlyFlag(A)) {
      O.LinkArgs.push_back(A.str());
    } else if (takesSeparateValue(A)) {
      const char *V = Next(A);
      if (!V) return 1;
      O.CompileArgs.insert(O.CompileArgs.end(), {A.str(), V});
    } else if (A == "-pthread" || A.starts_with("-fsanitize")) {
      O.CompileArgs.push_back(A.str());
      O.LinkArgs.push_back(A.str());
    } else if (A.starts_with("-") && A.size() > 1) {
      O.CompileArgs.push_back(A.str());
    } else {
      bool Source = Lang != Language::ByExtension || A.ends_with(".cfa") || A.ends_with(".c") ||
                    A.ends_with(".i") || A.ends_with(".s") || A.ends_with(".S");
      if (Source)
        O.Inputs.push_back({A.str(), Lang != Language::ByExtension ? Lang
                                     : A.ends_with(".cfa")            ? Language::Cfa
                                                                      : Language::C});
      else
        O.LinkItems.push_back(A.str());
    }
  }
  if (O.Inputs.empty() && O.LinkItems.empty()) {
    llvm::errs() << "cfacc: error: no input files\n";
    return 1;
  }
  if (!O.Output.empty() && O.Inputs.size() > 1 && O.Mode != Mode::Link) {
    llvm::errs() << "cfacc: error: cannot specify -o with -c, -S, -E or --emit-c and several inputs\n";
    return 1;
  }
  return 0;
}

class Session {
public:
  Session(const Options &O, const Toolchain &T) : O(O), T(T) {}
  ~Session() {
    if (!TempDir.empty() && !O.KeepTemps)
      llvm::sys::fs::remove_directories(TempDir);
  }

  int run() {
    if (T.IncludeDir.empty()) {
      llvm::errs() << "cfacc: error: cannot find cfa/prelude.h next to the cfacc binary\n";
      return 1;
    }
    std::vector<std::string> Objects;
    bool Failed = false;
    for (const Input &In : O.Inputs) {
      std::string Out = outputFor(In);
      if (Out.empty() || !compile(In, Out)) {
        Failed = true;
        continue;
      }
      Objects.push_back(Out);
    }
    if (Failed)
      return 1;
    if (O.Mode != Mode::Link)
      return 0;
    return link(Objects) ? 0 : 1;
  }

private:
  const Options &O;
  const Toolchain &T;
  std::string TempDir;
  unsigned TempCounter = 0;

  std::string tempPath(llvm::StringRef Stem, llvm::StringRef Ext) {
    if (TempDir.empty()) {
      llvm::SmallString<256> Dir;
      if (llvm::sys::fs::createUniqueDirectory("cfacc", Dir)) {
        llvm::errs() << "cfacc: error: cannot create a temporary directory\n";
        return "";
      }
      TempDir = std::string(Dir);
      if (O.Verbose || O.KeepTemps)
        llvm::errs() << "cfacc: temporary files in " << TempDir << "\n";
    }
    return TempDir + "/" + std::to_string(TempCounter++) + "-" + Stem.str() + Ext.str();
  }

  std::string outputFor(const Input &In) {
    llvm::StringRef Stem = llvm::sys::path::stem(In.Path);
    switch (O.Mode) {
    case Mode::Link: return tempPath(Stem, ".o");
    case Mode::Compile: return O.Output.empty() ? (Stem + ".o").str() : O.Output;
    case Mode::Assemble: return O.Output.empty() ? (Stem + ".s").str() : O.Output;
    case Mode::Preprocess:
    case Mode::EmitC: return O.Output.empty() ? "-" : O.Output;
    }
    return "";
  }

  bool execute(const std::vector<std::string> &Args) {
    if (O.Verbose) {
      for (const std::string &A : Args)
        llvm::errs() << A << ' ';
      llvm::errs() << '\n';
    }
    std::vector<llvm::StringRef> Refs(Args.begin(), Args.end());
    std::string Error;
    int Status = llvm::sys::ExecuteAndWait(Args[0], Refs, std::nullopt, {}, 0, 0, &Error);
    if (Status < 0)
      llvm::errs() << "cfacc: error: " << Args[0] << ": " << (Error.empty() ? "failed" : Error) << "\n";
    return Status == 0;
  }

  std::vector<std::string> stageTwoArgs() {
    // cfa/errno.h: errno stays the running user thread's across switches.
    std::vector<std::string> Args = {T.Clang, "-isystem", T.IncludeDir, "-include", "cfa/errno.h"};
    Args.insert(Args.end(), O.CompileArgs.begin(), O.CompileArgs.end());
    Args.insert(Args.end(), O.CodegenArgs.begin(), O.CodegenArgs.end());
    switch (O.Mode) {
    case Mode::Link:
    case Mode::Compile: Args.push_back("-c"); break;
    case Mode::Assemble: Args.push_back("-S"); break;
    case Mode::Preprocess: Args.push_back("-E"); break;
    case Mode::EmitC: break;
    }
    return Args;
  }

  bool writeFile(const std::string &Path, llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    if (EC) {
      llvm::errs() << "cfacc: error: cannot write " << Path << ": " << EC.message() << "\n";
      return false;
    }
    OS << Text;
    return true;
  }

  static std::string jsonString(llvm::StringRef S) {
    std::string Out = "\"";
    for (char C : S) {
      if (C == '"' || C == '\\')
        Out += '\\';
      Out += C;
    }
    return Out + "\"";
  }

  // Writes the emitted C and an overlay that maps it over the sources.
  std::string writeOverlay(const Input &In, const Translation &Tr) {
    llvm::SmallString<256> MainAbs(In.Path);
    llvm::sys::fs::make_absolute(MainAbs);
    llvm::sys::path::remove_dots(MainAbs, true);
    std::vector<std::pair<std::string, std::string>> Entries; // virtual -> real
    std::string MainC = tempPath(llvm::sys::path::stem(In.Path), ".c");
    if (MainC.empty() || !writeFile(MainC, Tr.MainText))
      return "";
    Entries.emplace_back(std::string(MainAbs), MainC);
    for (const auto &[Path, Text] : Tr.Headers) {
      std::string Emitted = tempPath(llvm::sys::path::filename(Path), ".h");
      if (Emitted.empty() || !writeFile(Emitted, Text))
        return "";
      Entries.emplace_back(Path, Emitted);
    }
    std::string Yaml = "{ \"version\": 0, \"case-sensitive\": \"true\", \"use-external-names\": false,\n"
                       "  \"roots\": [\n";
    for (size_t I = 0; I < Entries.size(); ++I)
      Yaml += "    { \"type\": \"file\", \"name\": " + jsonString(Entries[I].first) +
              ", \"external-contents\": " + jsonString(Entries[I].second) + " }" +
              (I + 1 < Entries.size() ? ",\n" : "\n");
    Yaml += "  ] }\n";
    std::string YamlPath = tempPath(llvm::sys::path::stem(In.Path), ".overlay.yaml");
    if (YamlPath.empty() || !writeFile(YamlPath, Yaml))
      return "";
    return YamlPath;
  }

  bool compile(const Input &In, const std::string &Out) {
    std::vector<std::string> Args = stageTwoArgs();
    if (In.Lang == Language::C) {
      if (O.Mode == Mode::EmitC) {
        llvm::errs() << "cfacc: error: --emit-c applies to .cfa files, not '" << In.Path << "'\n";
        return false;
      }
      Args.insert(Args.end(), {"-o", Out, In.Path});
      return execute(Args);
    }
    std::vector<std::string> FrontendArgs = O.CompileArgs;
    Translation Tr = translateFile(In.Path, FrontendArgs, T.IncludeDir);
    if (!Tr.Success)
      return false;
    if (O.Mode == Mode::EmitC) {
      if (Out == "-") {
        llvm::outs() << Tr.MainText;
        return true;
      }
      return writeFile(Out, Tr.MainText);
    }
    std::string Overlay = writeOverlay(In, Tr);
    if (Overlay.empty())
      return false;
    Args.insert(Args.end(), {"-ivfsoverlay", Overlay, "-o", Out, "-x", "c", In.Path});
    return execute(Args);
  }

  bool link(const std::vector<std::string> &Objects) {
    if (T.RuntimeLib.empty()) {
      const char *Env = std::getenv("CFACC_RUNTIME_DIR");
      llvm::errs() << "cfacc: error: cannot find libcfa.a "
                   << (Env && *Env ? "in CFACC_RUNTIME_DIR (" + std::string(Env) + ")" : "next to the cfacc binary")
                   << "\n";
      return false;
    }
    std::vector<std::string> Args = {T.Clang};
    Args.insert(Args.end(), Objects.begin(), Objects.end());
    Args.insert(Args.end(), O.LinkItems.begin(), O.LinkItems.end());
    if (!T.StdLib.empty())
      Args.push_back(T.StdLib); // uses the runtime: comes first
    Args.push_back(T.RuntimeLib);
    Args.insert(Args.end(), T.RuntimeDeps.begin(), T.RuntimeDeps.end());
    Args.insert(Args.end(), O.LinkArgs.begin(), O.LinkArgs.end());
    for (const std::string &A : O.CompileArgs)
      if (llvm::StringRef(A).starts_with("-O") || llvm::StringRef(A).starts_with("-m"))
        Args.push_back(A);
    Args.insert(Args.end(), {"-o", O.Output.empty() ? "a.out" : O.Output});
    return execute(Args);
  }
};

} // namespace

int runDriver(int Argc, char **Argv) {
  Options O;
  int Parsed = parse(Argc, Argv, O);
  if (Parsed != 0)
    return Parsed < 0 ? 0 : Parsed;
  if (const char *Keep = std::getenv("CFACC_KEEP_TEMPS"); Keep && *Keep)
    O.KeepTemps = true;
  Toolchain T = Toolchain::locate(Argv[0]);
  return Session(O, T).run();
}

} // namespace cfacc

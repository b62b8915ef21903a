// Driver: cfacc's command line, which behaves like cc.
//
// Inputs are taken by extension (or `-x cfa|c|none`): .cfa files are
// translated (stage 1, in process) and their C compiled by clang-19
// (stage 2) with a VFS overlay that puts the emitted C over the .cfa file
// and the .hfa headers it includes, so paths, `#include "..."` lookup,
// __FILE__ and -MD dependencies all name the user's files; .c/.s/.S files
// go to clang-19 directly; anything else (.o, .a, .so) is a linker input.
// Linking adds libcfa_std.a (when built), libcfa.a and the runtime's
// libraries after the user's inputs; with -fsanitize=thread or =address,
// the runtime's variant built for that sanitizer (Toolchain.h). With
// -shared (a library) or -shared-libcfa (a program) it adds libcfa_std.so
// and libcfa.so instead, and their directory as the output's RUNPATH
// unless the dynamic loader searches it anyway: a process has one
// runtime, so a library never carries its own (docs/install.md).
//
// Options follow clang-19: an option cfacc does not act on goes to clang
// when compiling and when linking (with -Qunused-arguments, so a
// compile-only flag is quiet at link and a link-relevant one such as
// --coverage, -flto or -fprofile-generate takes effect there too). Queries
// that need no input (-dumpversion, -dumpmachine, -print-*) are answered by
// clang, except -print-file-name= of the runtime's own libraries. Response
// files (@file) are expanded first, as clang does.
//
// Errors in what stage 1 parses come from stage 1, mapped to the original
// sources; stage 1 skips some bodies and runs with -w, so stage 2 reports
// the warnings and the errors in the skipped bodies (the emitted C carries
// #line markers: same files and lines).
#include "Driver.h"

#include "StageTwoDiagnostics.h"
#include "Toolchain.h"
#include "Translator.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>

namespace cfacc {
namespace {

enum class Mode { Link, Compile, Assemble, Preprocess, SyntaxOnly, EmitC };

// An input's language: Cfa is translated first; any other is clang's name
// for it (`-x` value), empty meaning "by extension, as clang decides".
struct Input {
  std::string Path;
  bool Cfa = false;
  std::string ClangLanguage;
};

struct Options {
  Mode Mode = Mode::Link;
  std::string Output;
  std::vector<Input> Inputs;          // sources, in order
  std::vector<std::string> LinkItems; // objects, archives, -l, in order
  std::vector<std::string> CompileArgs; // both stages
  std::vector<std::string> CodegenArgs; // stage 2 only: -g, -M*
  std::vector<std::string> LinkArgs;    // -L, -Wl, -static, ...
  std::vector<std::string> Sanitizers; // -fsanitize= lists in effect, in order
  bool SharedRuntime = false;       // -shared-libcfa, or -shared
  bool StaticRuntimeAsked = false;  // -static-libcfa
  bool Verbose = false;
  bool DryRun = false; // -###: print the commands, run none
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
    "  -fsyntax-only      check the program, write nothing\n"
    "  --emit-c           print the C that a .cfa file translates to\n"
    "  -o <file>          output file\n"
    "  -I -D -U -include -isystem -iquote -std= -W... -f... -m... -O... -g\n"
    "                     as for clang\n"
    "  -MD -MMD -MF -MT -MQ -MP  dependency files, as for clang\n"
    "  -l -L -Wl,... -shared -rdynamic -pthread  linker options\n"
    "  -static, -static-pie  link everything statically, the C library too, with\n"
    "                     the runtime's static flavour (libcfa-static.a)\n"
    "  -shared-libcfa     link the program with the shared runtime (libcfa.so)\n"
    "  -static-libcfa     link the program with the static runtime (the default;\n"
    "                     -shared always uses libcfa.so)\n"
    "  -fsanitize=thread|address  instrument the program and link the runtime\n"
    "                     built for that sanitizer (docs/compiler.md)\n"
    "  -x cfa|c|none|...  language of the following inputs (clang's names, and cfa)\n"
    "  -v                 print the commands cfacc runs\n"
    "  -###               print the commands cfacc would run, run none\n"
    "  @file              read options from file\n"
    "  -dumpversion -dumpmachine -print-...  answered as clang-19 answers\n"
    "  any other clang-19 option is passed to clang, at compile and link time\n"
    "  -save-temps        keep the temporary directory (printed with -v)\n"
    "  --help, --version\n"
    "  --help-runtime     the environment variables that configure the runtime\n"
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
  return A.starts_with("-L") || A.starts_with("-Wl,") || A == "-static" || A == "-static-pie" ||
         A == "-shared" || A == "-rdynamic" || A == "-nostdlib" || A.starts_with("-fuse-ld=");
}

// -static or -static-pie: no dynamic linker, the C library linked in.
bool fullyStatic(const Options &O) {
  return llvm::is_contained(O.LinkArgs, "-static") || llvm::is_contained(O.LinkArgs, "-static-pie");
}

// The runtime's environment variables: the table the runtime validates.
void printRuntimeEnvironment() {
  llvm::outs() << "Environment variables read by programs that cfacc links (a value the\n"
                  "runtime does not accept stops the program at start with a message):\n\n";
#define CFA_ENV(Name, Kind, Min, Max, Default, Accepts, Meaning)                                      \
  llvm::outs() << "  " #Name "=<" << Accepts << ">  (default " << Default << ")\n      " << Meaning << "\n";
#include <cfa/internal/environment.def>
#undef CFA_ENV
}

// What clang compiles itself (cfacc hands these over untranslated); "-"
// is standard input.
bool isClangSource(llvm::StringRef A) {
  return A == "-" || A.ends_with(".c") || A.ends_with(".i") || A.ends_with(".s") || A.ends_with(".S");
}

// A query needs no input and produces no output file.
bool isQuery(llvm::StringRef A) {
  return A == "-dumpversion" || A == "-dumpfullversion" || A == "-dumpmachine" ||
         A.starts_with("-print-") || A.starts_with("--print-");
}

// Keeps the set of sanitizers that -fsanitize=a,b and -fno-sanitize=a,b
// leave enabled, as clang does.
void noteSanitizers(llvm::StringRef A, std::vector<std::string> &Enabled) {
  bool Enable = A.consume_front("-fsanitize=");
  if (!Enable && !A.consume_front("-fno-sanitize="))
    return; // -fsanitize-recover=... and the like
  llvm::SmallVector<llvm::StringRef, 4> Names;
  A.split(Names, ',', -1, false);
  for (llvm::StringRef N : Names) {
    llvm::erase(Enabled, N.str());
    if (Enable)
      Enabled.push_back(N.str());
  }
}

// The runtime variant the sanitizers need: "" (the plain runtime serves
// UBSan and the like), "tsan" or "asan"; false for a sanitizer that would
// need an instrumented C library too.
bool runtimeVariant(const std::vector<std::string> &Sanitizers, std::string &Variant) {
  for (const std::string &S : Sanitizers) {
    if (S == "thread")
      Variant = "tsan";
    else if (S == "address")
      Variant = "asan";
    else if (S == "memory" || S == "hwaddress" || S == "dataflow") {
      llvm::errs() << "cfacc: error: -fsanitize=" << S
                   << " is not supported: the runtime has variants for thread and address only\n";
      return false;
    }
  }
  return true;
}

// Returns 0 to continue, 2 to let clang run the command line as it is, or
// an exit status (1 error, -1 done: help).
int parse(int Argc, const char *const *Argv, Options &O) {
  std::string Lang; // "" by extension, "cfa", or a clang language
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
    if (A == "--help-runtime") {
      printRuntimeEnvironment();
      return -1;
    }
    if (A == "-c") O.Mode = Mode::Compile;
    else if (A == "-S") O.Mode = Mode::Assemble;
    else if (A == "-E") O.Mode = Mode::Preprocess;
    else if (A == "-fsyntax-only") O.Mode = Mode::SyntaxOnly;
    else if (A == "-###") O.DryRun = true;
    else if (A == "--emit-c") O.Mode = Mode::EmitC;
    else if (A == "-v") { // cfacc prints its commands, clang its own
      O.Verbose = true;
      O.CodegenArgs.push_back("-v");
      O.LinkArgs.push_back("-v");
    } else if (A == "-save-temps") O.KeepTemps = true;
    else if (A == "-shared-libcfa") O.SharedRuntime = true;
    else if (A == "-static-libcfa") {
      O.SharedRuntime = false;
      O.StaticRuntimeAsked = true;
    } else if (A == "-o") {
      const char *V = Next(A);
      if (!V) return 1;
      O.Output = V;
    } else if (A.starts_with("-o") && A.size() > 2) {
      O.Output = A.drop_front(2).str();
    } else if (A == "-x") {
      const char *V = Next(A);
      if (!V) return 1;
      Lang = llvm::StringRef(V) == "none" ? "" : V;
    } else if (A.starts_with("-x") && A.size() > 2) {
      Lang = A.drop_front(2) == "none" ? "" : A.drop_front(2).str();
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
    } else if (A == "-pthread" || A.starts_with("-fsanitize") || A.starts_with("-fno-sanitize")) {
      O.CompileArgs.push_back(A.str());
      O.LinkArgs.push_back(A.str());
      noteSanitizers(A, O.Sanitizers);
    } else if (A.starts_with("-") && A.size() > 1) {
      O.CompileArgs.push_back(A.str());
    } else {
      if (!Lang.empty())
        O.Inputs.push_back({A.str(), Lang == "cfa", Lang == "cfa" ? "" : Lang});
      else if (A.ends_with(".cfa"))
        O.Inputs.push_back({A.str(), true, ""});
      else if (isClangSource(A))
        O.Inputs.push_back({A.str(), false, ""});
      else
        O.LinkItems.push_back(A.str());
    }
  }
  if (O.Inputs.empty() && O.LinkItems.empty()) {
    // Without inputs, `-v` and `-Wl,--version` ask clang and the linker
    // who they are (build systems do): clang answers.
    if (O.Verbose || !O.LinkArgs.empty())
      return 2;
    llvm::errs() << "cfacc: error: no input files\n";
    return 1;
  }
  if (llvm::is_contained(O.LinkArgs, "-shared")) {
    if (O.StaticRuntimeAsked) {
      llvm::errs() << "cfacc: error: -static-libcfa cannot build a shared library: a process has one "
                      "runtime, so a library uses the shared one (libcfa.so)\n";
      return 1;
    }
    O.SharedRuntime = true;
  }
  if (fullyStatic(O) && O.Mode == Mode::Link)
    for (const std::string &S : O.Sanitizers)
      if (S == "thread" || S == "address") {
        // Their runtimes find the C library's functions and the program's
        // layout through the dynamic linker (clang's link fails: no _DYNAMIC).
        llvm::errs() << "cfacc: error: -static cannot be used with -fsanitize=" << S
                     << ": the sanitizer's runtime needs the dynamic linker\n";
        return 1;
      }
  if (O.SharedRuntime && fullyStatic(O)) {
    // A process has one runtime (docs/install.md): a shared one would be
    // a second copy of its state beside the one linked into the program.
    llvm::errs() << "cfacc: error: -static links everything statically, the runtime too: "
                    "it cannot be used with -shared-libcfa or -shared\n";
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
  Session(const Options &O, const Toolchain &T, const std::string &Variant) : O(O), T(T), Variant(Variant) {}
  ~Session() {
    if (!TempDir.empty() && !O.KeepTemps)
      llvm::sys::fs::remove_directories(TempDir);
    if (!O.KeepTemps && !O.DryRun)
      for (const std::string &Obj : CoverageObjects)
        llvm::sys::fs::remove(Obj);
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
  const std::string Variant;
  std::string TempDir;
  unsigned TempCounter = 0;
  std::vector<std::string> CoverageObjects; // removed at exit

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
    case Mode::Link: return wantsCoverageNotes() ? coverageObject(Stem) : tempPath(Stem, ".o");
    case Mode::Compile: return O.Output.empty() ? (Stem + ".o").str() : O.Output;
    case Mode::Assemble: return O.Output.empty() ? (Stem + ".s").str() : O.Output;
    case Mode::Preprocess:
    case Mode::EmitC: return O.Output.empty() ? "-" : O.Output;
    case Mode::SyntaxOnly: return "-";
    }
    return "";
  }

  bool wantsCoverageNotes() const {
    for (llvm::StringRef A : O.CompileArgs)
      if (A == "--coverage" || A == "-coverage" || A == "-ftest-coverage" || A == "-fprofile-arcs")
        return true;
    return false;
  }

  // Compiling and linking in one step, clang names the coverage notes and
  // data after the output and the source (`out-src.gcno` beside `out`);
  // they are named after the object, so the object gets that name. It is
  // removed after the link, as a temporary object would be.
  std::string coverageObject(llvm::StringRef Stem) {
    std::string Out = O.Output.empty() ? "a.out" : O.Output;
    llvm::SmallString<256> Obj(llvm::sys::path::parent_path(Out));
    llvm::sys::path::append(Obj, llvm::sys::path::filename(Out) + "-" + Stem + ".o");
    CoverageObjects.push_back(std::string(Obj));
    return std::string(Obj);
  }

  // Runs Args with clang's diagnostics captured and rewritten in the terms
  // of the translated sources (StageTwoDiagnostics.h).
  bool executeMapped(std::vector<std::string> Args, const StageTwoSources &Sources) {
    if (O.DryRun)
      return execute(Args);
    std::string ErrFile = tempPath("stage2", ".stderr");
    if (ErrFile.empty())
      return false;
    Args.insert(Args.begin() + 1, "-fno-color-diagnostics");
    bool Ok = execute(Args, ErrFile);
    if (auto Buffer = llvm::MemoryBuffer::getFile(ErrFile); Buffer && !(*Buffer)->getBuffer().empty()) {
      llvm::errs() << rewriteStageTwoDiagnostics((*Buffer)->getBuffer(), Sources);
      llvm::errs().flush();
    }
    return Ok;
  }

  bool execute(const std::vector<std::string> &Args, const std::string &ErrFile = "") {
    if (O.DryRun) {
      for (const std::string &A : Args)
        llvm::errs() << ' ' << jsonString(A);
      llvm::errs() << '\n';
      return true;
    }
    if (O.Verbose) {
      for (const std::string &A : Args)
        llvm::errs() << A << ' ';
      llvm::errs() << '\n';
    }
    std::vector<llvm::StringRef> Refs(Args.begin(), Args.end());
    std::string Error;
    std::optional<llvm::StringRef> Redirects[] = {std::nullopt, std::nullopt, std::nullopt};
    if (!ErrFile.empty())
      Redirects[2] = ErrFile;
    int Status = llvm::sys::ExecuteAndWait(Args[0], Refs, std::nullopt, Redirects, 0, 0, &Error);
    if (Status < 0)
      llvm::errs() << "cfacc: error: " << Args[0] << ": " << (Error.empty() ? "failed" : Error) << "\n";
    return Status == 0;
  }

  std::vector<std::string> stageTwoArgs() {
    std::vector<std::string> Args = {T.Clang, "-isystem", T.IncludeDir};
    Args.insert(Args.end(), O.CompileArgs.begin(), O.CompileArgs.end());
    Args.insert(Args.end(), O.CodegenArgs.begin(), O.CodegenArgs.end());
    switch (O.Mode) {
    case Mode::Link:
    case Mode::Compile: Args.push_back("-c"); break;
    case Mode::Assemble: Args.push_back("-S"); break;
    case Mode::Preprocess: Args.push_back("-E"); break;
    case Mode::SyntaxOnly: Args.push_back("-fsyntax-only"); break;
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
    if (O.Mode != Mode::SyntaxOnly)
      Args.insert(Args.end(), {"-o", Out});
    if (!In.Cfa) {
      if (O.Mode == Mode::EmitC) {
        llvm::errs() << "cfacc: error: --emit-c applies to .cfa files, not '" << In.Path << "'\n";
        return false;
      }
      if (!In.ClangLanguage.empty())
        Args.insert(Args.end(), {"-x", In.ClangLanguage});
      Args.push_back(In.Path);
      return execute(Args);
    }
    if (O.DryRun) { // stage 1 runs in this process: show it as a command
      std::vector<std::string> Stage1 = {"cfacc", "--emit-c"};
      Stage1.insert(Stage1.end(), O.CompileArgs.begin(), O.CompileArgs.end());
      Stage1.insert(Stage1.end(), {In.Path, "-o", "<translated C>"});
      execute(Stage1);
      Args.insert(Args.end(), {"-x", "c", In.Path});
      return execute(Args);
    }
    Translation Tr = translateFile(In.Path, O.CompileArgs, T.IncludeDir);
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
    Args.insert(Args.end(), {"-ivfsoverlay", Overlay, "-x", "c", In.Path});
    StageTwoSources Sources;
    Sources.IncludeDir = T.IncludeDir;
    llvm::SmallString<256> MainAbs(In.Path);
    llvm::sys::fs::make_absolute(MainAbs);
    llvm::sys::path::remove_dots(MainAbs, true);
    Sources.Translated.insert(std::string(MainAbs));
    for (const auto &Header : Tr.Headers)
      Sources.Translated.insert(Header.first);
    return executeMapped(Args, Sources);
  }

  // The dynamic loader's own directories need no RUNPATH.
  static bool searchedByLoader(llvm::StringRef Dir) {
    for (llvm::StringRef D : {"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib",
                              "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"})
      if (Dir == D)
        return true;
    return false;
  }

  // libcfa_std.so (when built) and libcfa.so, and where to find them at
  // run time. False (with an error) if there is no shared runtime.
  bool addSharedRuntime(std::vector<std::string> &Args) {
    if (T.SharedRuntimeLib.empty()) {
      llvm::errs() << "cfacc: error: cannot find libcfa.so next to the cfacc binary"
                   << (Variant.empty() ? "" : ": the runtime's sanitizer variants are static libraries only")
                   << "\n";
      return false;
    }
    std::vector<std::string> Dirs;
    for (const std::string &Lib : {T.SharedStdLib, T.SharedRuntimeLib}) {
      if (Lib.empty())
        continue;
      // A library needed only if used: the standard library often is not.
      if (Lib == T.SharedStdLib)
        Args.insert(Args.end(), {"-Wl,--push-state,--as-needed", Lib, "-Wl,--pop-state"});
      else
        Args.push_back(Lib);
      std::string Dir(llvm::sys::path::parent_path(Lib));
      if (!searchedByLoader(Dir) && !llvm::is_contained(Dirs, Dir))
        Dirs.push_back(Dir);
    }
    for (const std::string &Dir : Dirs)
      Args.push_back("-Wl,-rpath," + Dir);
    Args.push_back("-lpthread");
    return true;
  }

  // A marker symbol at this point of the program's code (hidden: the
  // runtime's weak reference is to this program's), as an assembly source.
  std::string textMarker(llvm::StringRef Name) {
    std::string Path = tempPath(Name, ".s");
    std::string Text = ("\t.text\n\t.globl " + Name + "\n\t.hidden " + Name + "\n" + Name +
                        ":\n\t.section .note.GNU-stack,\"\",@progbits\n")
                           .str();
    if (Path.empty() || (!O.DryRun && !writeFile(Path, Text)))
      return "";
    return Path;
  }

  bool link(const std::vector<std::string> &Objects) {
    std::vector<std::string> Args = {T.Clang};
    if (fullyStatic(O)) {
      // Everything is in the program's text: tell the preemption handler
      // which part is the program's own objects (preemption.c). Objects
      // given on the command line join them; archives and -l stay after.
      std::string Begin = textMarker("cfa_program_text_begin"), End = textMarker("cfa_program_text_end");
      if (Begin.empty() || End.empty())
        return false;
      Args.push_back(Begin);
      Args.insert(Args.end(), Objects.begin(), Objects.end());
      llvm::copy_if(O.LinkItems, std::back_inserter(Args), [](llvm::StringRef A) { return A.ends_with(".o"); });
      Args.push_back(End);
      llvm::copy_if(O.LinkItems, std::back_inserter(Args), [](llvm::StringRef A) { return !A.ends_with(".o"); });
    } else {
      Args.insert(Args.end(), Objects.begin(), Objects.end());
      Args.insert(Args.end(), O.LinkItems.begin(), O.LinkItems.end());
    }
    if (O.SharedRuntime) {
      if (!addSharedRuntime(Args))
        return false;
    } else if (!addStaticRuntime(Args)) {
      return false;
    }
    Args.insert(Args.end(), O.LinkArgs.begin(), O.LinkArgs.end());
    // Every compile option reaches the link, as with clang (--coverage,
    // -flto, -fprofile-*, -m32 ...); the others must stay quiet there.
    Args.insert(Args.end(), O.CompileArgs.begin(), O.CompileArgs.end());
    Args.push_back("-Qunused-arguments");
    Args.insert(Args.end(), {"-o", O.Output.empty() ? "a.out" : O.Output});
    return execute(Args);
  }

  // libcfa_std.a (when built), libcfa.a and the libraries they use; with
  // -static, libcfa-static.a and the linker's --wrap for every function
  // the runtime defines in the C library's place (interpose_static.h).
  bool addStaticRuntime(std::vector<std::string> &Args) {
    bool FullyStatic = fullyStatic(O);
    if (FullyStatic && T.FullyStaticRuntimeLib.empty()) {
      llvm::errs() << "cfacc: error: cannot find libcfa-static.a next to the cfacc binary: the runtime "
                      "for -static (a build without CFA_SANITIZE makes it)\n";
      return false;
    }
    if (T.RuntimeLib.empty()) {
      const char *Env = std::getenv("CFACC_RUNTIME_DIR");
      llvm::errs() << "cfacc: error: cannot find " << (Variant.empty() ? "libcfa.a " : "libcfa-" + Variant + ".a ")
                   << (Env && *Env ? "in CFACC_RUNTIME_DIR (" + std::string(Env) + ")" : "next to the cfacc binary")
                   << (Variant.empty() ? "" : ": the runtime built for this sanitizer "
                                              "(a build with CFA_SANITIZER_VARIANTS=ON makes it)")
                   << "\n";
      return false;
    }
    if (!T.StdLib.empty())
      Args.push_back(T.StdLib); // uses the runtime: comes first
    Args.push_back(FullyStatic ? T.FullyStaticRuntimeLib : T.RuntimeLib);
    for (const std::string &Dep : T.RuntimeDeps)
      // A static hwloc needs a static libudev, which Debian does not
      // ship: a static program reads the topology from /sys instead
      // (runtime/src/topology.c).
      if (Dep != "-lhwloc" || !FullyStatic)
        Args.push_back(Dep);
    if (FullyStatic) {
#define CFA_INTERPOSED(Name) Args.push_back("-Wl,--wrap=" #Name);
#include <cfa/internal/interposed.def>
#undef CFA_INTERPOSED
    }
    return true;
  }
};

} // namespace

// -dumpversion, -print-file-name=, -Wl,--version ...: clang answers, except
// for the names of the runtime's own libraries. Returns the exit status.
int answerQuery(llvm::ArrayRef<const char *> Args, const Toolchain &T) {
  for (size_t I = 1; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    if (!A.consume_front("-print-file-name="))
      continue;
    const std::pair<llvm::StringRef, const std::string *> Own[] = {
        {"libcfa.a", &T.RuntimeLib}, {"libcfa_std.a", &T.StdLib},
        {"libcfa.so", &T.SharedRuntimeLib}, {"libcfa_std.so", &T.SharedStdLib},
        {"libcfa-static.a", &T.FullyStaticRuntimeLib}};
    for (const auto &[Name, Path] : Own)
      if (A == Name && !Path->empty()) {
        llvm::outs() << *Path << "\n";
        return 0;
      }
  }
  std::vector<llvm::StringRef> Refs = {T.Clang};
  Refs.insert(Refs.end(), Args.begin() + 1, Args.end());
  std::string Error;
  int Status = llvm::sys::ExecuteAndWait(T.Clang, Refs, std::nullopt, {}, 0, 0, &Error);
  if (Status < 0)
    llvm::errs() << "cfacc: error: " << T.Clang << ": " << (Error.empty() ? "failed" : Error) << "\n";
  return Status < 0 ? 1 : Status;
}

// --version: clang's answer, its first line first (build systems such as
// Meson identify the compiler family and version from it), then cfacc's.
int printVersion(const Toolchain &T) {
  llvm::SmallString<128> Out;
  if (llvm::sys::fs::createTemporaryFile("cfacc-version", "txt", Out))
    return 1;
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, llvm::StringRef(Out), std::nullopt};
  int Status = llvm::sys::ExecuteAndWait(T.Clang, {T.Clang, "--version"}, std::nullopt, Redirects);
  auto Text = llvm::MemoryBuffer::getFile(Out);
  llvm::sys::fs::remove(Out);
  auto [First, Rest] = Status == 0 && Text ? (*Text)->getBuffer().split('\n')
                                           : std::pair<llvm::StringRef, llvm::StringRef>();
  if (!First.empty())
    llvm::outs() << First << "\n";
  llvm::outs() << "cfacc (cfa-lite) " << CFACC_VERSION << "\n" << Rest;
  return 0;
}

int runDriver(int Argc, char **Argv) {
  // Response files first, as clang: @file's words replace it.
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver(Alloc);
  llvm::SmallVector<const char *, 64> Args(Argv, Argv + Argc);
  if (!llvm::cl::ExpandResponseFiles(Saver, llvm::cl::TokenizeGNUCommandLine, Args)) {
    llvm::errs() << "cfacc: error: cannot read a response file\n";
    return 1;
  }
  for (size_t I = 1; I < Args.size(); ++I) {
    if (isQuery(Args[I]))
      return answerQuery(Args, Toolchain::locate(Argv[0], ""));
    if (llvm::StringRef(Args[I]) == "--version")
      return printVersion(Toolchain::locate(Argv[0], ""));
  }
  Options O;
  int Parsed = parse(static_cast<int>(Args.size()), Args.data(), O);
  if (Parsed == 2)
    return answerQuery(Args, Toolchain::locate(Argv[0], ""));
  if (Parsed != 0)
    return Parsed < 0 ? 0 : Parsed;
  if (const char *Keep = std::getenv("CFACC_KEEP_TEMPS"); Keep && *Keep)
    O.KeepTemps = true;
  std::string Variant;
  if (!runtimeVariant(O.Sanitizers, Variant))
    return 1;
  Toolchain T = Toolchain::locate(Argv[0], Variant);
  return Session(O, T, Variant).run();
}

} // namespace cfacc

// libFuzzer target over stage 1 as cfacc runs it on a .cfa file: the
// extension lexer, Clang's parse of the desugared text and the lowering
// passes (translateFile). Every input must either translate or be
// rejected with an error, and must never crash or hang (libFuzzer's
// -timeout); no diagnostic may speak the lowered program (name a `__cfa`
// helper) unless the input itself wrote such a name. The source lines a
// diagnostic quotes from cfacc's own headers are exempt: they are those
// headers' text as installed (an input that includes one inside a
// function gets errors there), not a lowering.
//
// The input goes to a file (translateFile reads a path); the diagnostics,
// which it prints on stderr, go to another file for the checks and are
// shown when a check fails. docs/compiler.md#fuzzing says how to run it.
#include "Translator.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <unistd.h>

namespace {

std::string workDir() {
  static std::string Dir = [] {
    char Template[] = "/tmp/cfacc-translate-fuzz-XXXXXX";
    if (!mkdtemp(Template))
      abort();
    return std::string(Template);
  }();
  return Dir;
}

bool writeAll(const std::string &Path, const uint8_t *Data, size_t Size) {
  FILE *F = fopen(Path.c_str(), "wb");
  if (!F)
    return false;
  bool Ok = fwrite(Data, 1, Size, F) == Size;
  return fclose(F) == 0 && Ok;
}

std::string readAll(const std::string &Path) {
  std::string Text;
  if (FILE *F = fopen(Path.c_str(), "rb")) {
    char Buffer[4096];
    for (size_t N; (N = fread(Buffer, 1, sizeof Buffer, F)) > 0;)
      Text.append(Buffer, N);
    fclose(F);
  }
  return Text;
}

// Whether a diagnostic line names a `__cfa` helper, skipping the quoted
// source and caret lines of a diagnostic located in cfacc's own headers.
bool namesLoweredProgram(const std::string &Diagnostics) {
  static const std::regex Location("^(.+):[0-9]+:[0-9]+: (error|warning|note|fatal error|remark):.*");
  static const std::regex Snippet("^ *[0-9]* [|].*");
  const std::string OwnHeaders = std::string(CFACC_FUZZ_INCLUDE_DIR) + "/";
  bool InOwnHeader = false;
  size_t Start = 0;
  while (Start < Diagnostics.size()) {
    size_t End = Diagnostics.find('\n', Start);
    if (End == std::string::npos)
      End = Diagnostics.size();
    std::string Line = Diagnostics.substr(Start, End - Start);
    Start = End + 1;
    std::smatch M;
    if (std::regex_match(Line, M, Location))
      InOwnHeader = M[1].str().rfind(OwnHeaders, 0) == 0;
    else if (InOwnHeader && std::regex_match(Line, Snippet))
      continue;
    if (Line.find("__cfa") != std::string::npos)
      return true;
  }
  return false;
}

[[noreturn]] void fail(const char *What, const std::string &Diagnostics) {
  fprintf(stderr, "cfacc-translate-fuzz: %s; the diagnostics were:\n%s\n", What, Diagnostics.c_str());
  abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Source = workDir() + "/input.cfa", Errors = workDir() + "/diagnostics.txt";
  if (!writeAll(Source, Data, Size))
    abort();
  // The diagnostics to a file: stderr redirected around the call.
  fflush(stderr);
  int SavedStderr = dup(2);
  FILE *ErrFile = fopen(Errors.c_str(), "wb");
  if (SavedStderr < 0 || !ErrFile || dup2(fileno(ErrFile), 2) < 0)
    abort();
  cfacc::Translation T = cfacc::translateFile(Source, {}, CFACC_FUZZ_INCLUDE_DIR);
  llvm::errs().flush();
  fflush(stderr);
  dup2(SavedStderr, 2);
  close(SavedStderr);
  fclose(ErrFile);
  std::string Diagnostics = readAll(Errors);
  std::string Input(reinterpret_cast<const char *>(Data), Size);
  if (!T.Success && Diagnostics.find("error:") == std::string::npos)
    fail("the input was rejected without an error", Diagnostics);
  if (T.Success && T.MainText.empty())
    fail("a translation produced no text", Diagnostics);
  if (Input.find("__cfa") == std::string::npos && namesLoweredProgram(Diagnostics))
    fail("a diagnostic names the lowered program", Diagnostics);
  return 0;
}

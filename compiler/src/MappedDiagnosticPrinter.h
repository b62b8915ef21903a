// MappedDiagnosticPrinter: prints Clang's diagnostics against the files the
// user wrote, not the desugared text Clang parsed.
//
// Each location is moved out of macro expansions (getFileLoc), then mapped
// through the file's SourceMap to an offset in the original file, which a
// second SourceManager holds with its original contents; Clang's own
// TextDiagnostic prints the result, so the format is Clang's:
// `file:line:col: error: message`, the source line and a caret. Internal
// names are shown as written (`__cfa_main_T` is `main`). Fix-it hints are
// dropped: they were computed on the desugared text. Notes located in
// cfacc's own headers (the prelude, the library's macros) are dropped too:
// the diagnostic they belong to already points at the user's code.
#ifndef CFACC_MAPPED_DIAGNOSTIC_PRINTER_H
#define CFACC_MAPPED_DIAGNOSTIC_PRINTER_H

#include "DesugaringFileSystem.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/TextDiagnostic.h"

#include <map>
#include <memory>

namespace cfacc {

class MappedDiagnosticPrinter : public clang::DiagnosticConsumer {
public:
  // IncludeDir: cfacc's own headers.
  MappedDiagnosticPrinter(llvm::raw_ostream &OS, const DesugaringFileSystem &FS, std::string IncludeDir);
  ~MappedDiagnosticPrinter() override;

  void BeginSourceFile(const clang::LangOptions &LO, const clang::Preprocessor *PP) override;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level, const clang::Diagnostic &Info) override;

private:
  clang::FullSourceLoc toOriginal(clang::SourceLocation Loc, const clang::SourceManager &SM);
  clang::FileID originalFile(llvm::StringRef Name);
  bool isInOwnHeader(clang::SourceLocation Loc, const clang::SourceManager &SM) const;

  llvm::raw_ostream &OS;
  const DesugaringFileSystem &FS;
  std::string IncludeDir;
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> Options;
  clang::LangOptions LangOpts;
  llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> IDs;
  clang::IgnoringDiagConsumer Ignore;
  std::unique_ptr<clang::DiagnosticsEngine> OriginalDiags;
  std::unique_ptr<clang::FileManager> OriginalFiles;
  std::unique_ptr<clang::SourceManager> OriginalSM;
  std::unique_ptr<clang::TextDiagnostic> Printer;
  std::map<std::string, clang::FileID> Files;
  bool DroppedCascade = false; // the last error was dropped: so are its notes
};

} // namespace cfacc
#endif

// MappedDiagnosticPrinter: see MappedDiagnosticPrinter.h.
#include "MappedDiagnosticPrinter.h"
#include "UserNames.h"

#include "clang/Basic/DiagnosticIDs.h"
#include "llvm/Support/Regex.h"

namespace cfacc {

MappedDiagnosticPrinter::MappedDiagnosticPrinter(llvm::raw_ostream &OS, const DesugaringFileSystem &FS,
                                                 std::string IncludeDir)
    : OS(OS), FS(FS), IncludeDir(std::move(IncludeDir)), Options(new clang::DiagnosticOptions()), IDs(new clang::DiagnosticIDs()) {
  OriginalDiags = std::make_unique<clang::DiagnosticsEngine>(IDs, Options, &Ignore, /*ShouldOwnClient=*/false);
  OriginalFiles = std::make_unique<clang::FileManager>(clang::FileSystemOptions());
  OriginalSM = std::make_unique<clang::SourceManager>(*OriginalDiags, *OriginalFiles);
  Options->ShowColors = OS.has_colors();
}

MappedDiagnosticPrinter::~MappedDiagnosticPrinter() = default;

void MappedDiagnosticPrinter::BeginSourceFile(const clang::LangOptions &LO, const clang::Preprocessor *) {
  LangOpts = LO;
  Printer = std::make_unique<clang::TextDiagnostic>(OS, LangOpts, Options.get());
}

clang::FileID MappedDiagnosticPrinter::originalFile(llvm::StringRef Name) {
  auto It = Files.find(Name.str());
  if (It != Files.end())
    return It->second;
  clang::FileID FID;
  if (auto Ref = OriginalFiles->getOptionalFileRef(Name))
    FID = OriginalSM->createFileID(*Ref, clang::SourceLocation(), clang::SrcMgr::C_User);
  Files[Name.str()] = FID;
  return FID;
}

clang::FullSourceLoc MappedDiagnosticPrinter::toOriginal(clang::SourceLocation Loc,
                                                         const clang::SourceManager &SM) {
  if (Loc.isInvalid())
    return {};
  Loc = SM.getFileLoc(Loc);
  clang::FileID FID = SM.getFileID(Loc);
  auto Entry = SM.getFileEntryRefForID(FID);
  if (!Entry)
    return {};
  unsigned Offset = SM.getFileOffset(Loc);
  if (const DesugaredFile *D = FS.lookup(Entry->getName()))
    Offset = D->Map.toOriginal(Offset);
  clang::FileID Original = originalFile(Entry->getName());
  if (Original.isInvalid())
    return {};
  unsigned Size = OriginalSM->getBufferData(Original).size();
  return clang::FullSourceLoc(OriginalSM->getComposedLoc(Original, std::min(Offset, Size)), *OriginalSM);
}

bool MappedDiagnosticPrinter::isInOwnHeader(clang::SourceLocation Loc, const clang::SourceManager &SM) const {
  if (Loc.isInvalid() || IncludeDir.empty())
    return false;
  auto Entry = SM.getFileEntryRefForID(SM.getFileID(SM.getFileLoc(Loc)));
  return Entry && llvm::StringRef(Entry->getName()).starts_with(IncludeDir + "/");
}

void MappedDiagnosticPrinter::HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                                               const clang::Diagnostic &Info) {
  llvm::SmallString<256> Message;
  Info.FormatDiagnostic(Message);
  std::string Text = withUserNames(Message.str().str());
  if (Level == clang::DiagnosticsEngine::Note && DroppedCascade)
    return;
  DroppedCascade = false;
  if (Level >= clang::DiagnosticsEngine::Error && isHelperCascade(Text)) {
    if (getNumErrors() > 0) {
      DroppedCascade = true; // not counted: the earlier error is the user's
      return;
    }
    Text = HelperCascadeAlone;
  }
  DiagnosticConsumer::HandleDiagnostic(Level, Info);
  if (!Printer)
    BeginSourceFile(LangOpts, nullptr);
  if (Text.empty())
    return; // a note that only proposed a helper's name

  llvm::StringRef Flag = clang::DiagnosticIDs::getWarningOptionForDiag(Info.getID());
  if (!Flag.empty() && Level == clang::DiagnosticsEngine::Warning)
    Text += " [-W" + Flag.str() + "]";
  else if (!Flag.empty() && Level >= clang::DiagnosticsEngine::Error &&
           !clang::DiagnosticIDs::isDefaultMappingAsError(Info.getID()))
    Text += " [-Werror,-W" + Flag.str() + "]";

  clang::FullSourceLoc Loc;
  llvm::SmallVector<clang::CharSourceRange, 4> Ranges;
  if (Info.hasSourceManager()) {
    const clang::SourceManager &SM = Info.getSourceManager();
    if (Level == clang::DiagnosticsEngine::Note && isInOwnHeader(Info.getLocation(), SM))
      return;
    Loc = toOriginal(Info.getLocation(), SM);
    for (const clang::CharSourceRange &R : Info.getRanges()) {
      clang::FullSourceLoc B = toOriginal(R.getBegin(), SM), E = toOriginal(R.getEnd(), SM);
      if (B.isValid() && E.isValid() && Loc.isValid() && B.getFileID() == Loc.getFileID() &&
          E.getFileID() == Loc.getFileID() && !(E < B))
        Ranges.push_back(clang::CharSourceRange(clang::SourceRange(B, E), R.isTokenRange()));
    }
  }
  Printer->emitDiagnostic(Loc, Level, Text, Ranges, {});
  OS.flush();
}

} // namespace cfacc

// LoweringContext: see LoweringContext.h.
#include "LoweringContext.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

namespace cfacc {

LoweringContext::LoweringContext(clang::ASTContext &Ctx, clang::Rewriter &R,
                                 const DesugaringFileSystem &FS)
    : Ctx(Ctx), R(R), FS(FS) {}

bool LoweringContext::isInUserFile(clang::SourceLocation Loc) {
  if (Loc.isInvalid())
    return false;
  clang::FileID FID = sources().getFileID(sources().getFileLoc(Loc));
  auto It = UserFiles.find(FID);
  if (It != UserFiles.end())
    return It->second;
  bool User = false;
  if (auto Entry = sources().getFileEntryRefForID(FID))
    User = FS.lookup(Entry->getName()) != nullptr;
  UserFiles[FID] = User;
  return User;
}

bool LoweringContext::isUserCode(clang::SourceLocation Loc) {
  return Loc.isValid() && Loc.isFileID() && isInUserFile(Loc);
}

void LoweringContext::error(clang::SourceLocation Loc, llvm::StringRef Message) {
  auto &Diags = Ctx.getDiagnostics();
  unsigned ID = Diags.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0");
  Diags.Report(Loc, ID) << Message;
  ++ErrorCount;
}

TypeHelpers &LoweringContext::helpersFor(const clang::RecordDecl *Record) {
  const auto *Key = llvm::cast<clang::RecordDecl>(Record->getCanonicalDecl());
  TypeHelpers &H = Helpers[Key];
  if (H.Name.empty()) {
    H.Name = Record->getName().str();
    H.Kind = kindOfType(Ctx.getRecordType(Record));
  }
  return H;
}

const TypeHelpers *LoweringContext::findHelpers(const clang::RecordDecl *Record) const {
  auto It = Helpers.find(llvm::cast<clang::RecordDecl>(Record->getCanonicalDecl()));
  return It == Helpers.end() ? nullptr : &It->second;
}

static const clang::RecordDecl *recordOf(const ObjectShape &S) {
  return S.Element.getCanonicalType()->getAsRecordDecl();
}

// The helpers of a kind. Per-type helpers (threads, coroutines) carry the
// record's tag; processors and clusters use the prelude's generic ones.
// An empty name: the kind has no such step (a coroutine is never started).
namespace {
struct KindFunctions {
  std::string Start, Destroy, Delete;
};
KindFunctions functionsFor(const ObjectShape &S) {
  switch (S.Kind) {
  case ExtensionKind::Thread: {
    std::string T = typeNameOf(S.Element);
    return {"__cfa_start_" + T, "__cfa_destroy_" + T, "__cfa_delete_" + T};
  }
  case ExtensionKind::Coroutine: {
    std::string T = typeNameOf(S.Element);
    return {"", "__cfa_destroy_" + T, "__cfa_delete_" + T};
  }
  case ExtensionKind::Processor:
    return {"__cfa_processors_start", "__cfa_processors_stop", "__cfa_delete_processor"};
  case ExtensionKind::Cluster:
    return {"__cfa_clusters_init", "__cfa_clusters_destroy", "__cfa_delete_cluster"};
  case ExtensionKind::Monitor:   // all-zero is ready: nothing to start or stop,
  case ExtensionKind::Condition: // and delete is the plain free
  case ExtensionKind::None: break;
  }
  return {};
}
} // namespace

std::string LoweringContext::startFunction(const ObjectShape &S) { return functionsFor(S).Start; }
std::string LoweringContext::destroyFunction(const ObjectShape &S) { return functionsFor(S).Destroy; }
std::string LoweringContext::deleteFunction(const ObjectShape &S) { return functionsFor(S).Delete; }

std::string LoweringContext::cleanupFunction(const ObjectShape &S) {
  std::string Count = std::to_string(S.Count);
  switch (S.Kind) {
  case ExtensionKind::Thread:
  case ExtensionKind::Coroutine:
    helpersFor(recordOf(S)).CleanupCounts.insert(S.Count);
    return "__cfa_cleanup_" + typeNameOf(S.Element) + "_" + Count;
  case ExtensionKind::Processor:
    ProcessorCleanups.insert(S.Count);
    return "__cfa_cleanup_processor_" + Count;
  case ExtensionKind::Cluster:
    ClusterCleanups.insert(S.Count);
    return "__cfa_cleanup_cluster_" + Count;
  default: return "";
  }
}

std::string LoweringContext::guardCleanupFunction(const ObjectShape &S) {
  switch (S.Kind) {
  case ExtensionKind::Thread:
  case ExtensionKind::Coroutine:
    helpersFor(recordOf(S)).GuardCleanup = true;
    return "__cfa_cleanup_" + typeNameOf(S.Element) + "_array";
  case ExtensionKind::Processor: return "__cfa_cleanup_processor_array";
  case ExtensionKind::Cluster: return "__cfa_cleanup_cluster_array";
  default: return "";
  }
}

std::string LoweringContext::elementType(const ObjectShape &S) {
  switch (S.Kind) {
  case ExtensionKind::Processor: return "struct cfa_processor";
  case ExtensionKind::Cluster: return "struct cfa_cluster";
  default: return "struct " + typeNameOf(S.Element);
  }
}

std::string LoweringContext::elementPointerCast(const ObjectShape &S) { return "(" + elementType(S) + " *)"; }

std::string LoweringContext::countOf(const ObjectShape &S, const std::string &Object) {
  if (!S.VariableLength)
    return std::to_string(S.Count);
  return "(sizeof " + Object + " / sizeof (" + elementType(S) + "))";
}

bool LoweringContext::requireMain(const ObjectShape &S, clang::SourceLocation Loc) {
  if (S.Kind != ExtensionKind::Thread && S.Kind != ExtensionKind::Coroutine)
    return true;
  const TypeHelpers *H = findHelpers(recordOf(S));
  if (H && H->Main)
    return true;
  std::string Name = typeNameOf(S.Element);
  error(Loc, std::string(kindName(S.Kind)) + " type '" + Name + "' has no main: declare 'void main(" +
                 Name + " *)' in this file or a header it includes");
  return false;
}

void LoweringContext::insertBlockAfterToken(clang::SourceLocation Loc, const std::string &Code) {
  insertBlockBefore(clang::Lexer::getLocForEndOfToken(Loc, 0, sources(), Ctx.getLangOpts()), Code);
}

void LoweringContext::insertBlockBefore(clang::SourceLocation At, const std::string &Code) {
  clang::PresumedLoc P = sources().getPresumedLoc(At);
  std::string File;
  for (char C : llvm::StringRef(P.getFilename())) {
    if (C == '"' || C == '\\')
      File += '\\';
    File += C;
  }
  std::string Line = "#line " + std::to_string(P.getLine()) + " \"" + File + "\"\n";
  R.InsertText(At, "\n" + Line + Code + "\n" + Line, /*InsertAfter=*/true);
}

void LoweringContext::replaceKeepingLines(clang::CharSourceRange Range, const std::string &Text) {
  llvm::StringRef Old = clang::Lexer::getSourceText(Range, sources(), Ctx.getLangOpts());
  std::string New = Text + std::string(Old.count('\n'), '\n');
  R.ReplaceText(Range, New);
}

} // namespace cfacc

// Translator: see Translator.h.
#include "Translator.h"

#include "BodySkipPolicy.h"
#include "DesugaringFileSystem.h"
#include "LoweringContext.h"
#include "MappedDiagnosticPrinter.h"
#include "Passes.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "clang/Tooling/Tooling.h"

#include <map>
#include <set>

namespace cfacc {
namespace {

class LoweringConsumer : public clang::ASTConsumer {
public:
  LoweringConsumer(DesugaringFileSystem &FS, Translation &Out, clang::CompilerInstance &CI)
      : FS(FS), Out(Out), Skip(FS, CI.getSourceManager(), CI.getPreprocessor()) {}

  bool HandleTopLevelDecl(clang::DeclGroupRef Group) override {
    for (const clang::Decl *D : Group)
      Skip.noteTopLevelDecl(D);
    return true;
  }
  bool shouldSkipFunctionBody(clang::Decl *D) override { return Skip.canSkipBody(D); }

  void HandleTranslationUnit(clang::ASTContext &Ctx) override {
    clang::SourceManager &SM = Ctx.getSourceManager();
    clang::DiagnosticsEngine &Diags = Ctx.getDiagnostics();
    reportLexicalErrors(SM, Diags);
    if (Diags.hasErrorOccurred())
      return;
    // The passes look at user files only: system headers are large.
    std::vector<clang::Decl *> UserDecls;
    for (clang::Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (isDesugaredLocation(SM, D->getLocation()))
        UserDecls.push_back(D);
    Ctx.setTraversalScope(UserDecls);
    clang::Rewriter R(SM, Ctx.getLangOpts());
    LoweringContext L(Ctx, R, FS);
    lowerTypeMains(L);
    lowerObjectLifetimes(L);
    lowerHeapObjects(L);
    lowerMonitors(L);
    lowerForkJoin(L);
    if (L.hadErrors() || Diags.hasErrorOccurred())
      return;
    emitHelpers(L, SM.getMainFileID());
    if (L.hadErrors())
      return;
    collect(SM, R);
    Out.Success = true;
  }

private:
  DesugaringFileSystem &FS;
  Translation &Out;
  BodySkipPolicy Skip;

  std::map<clang::FileID, bool> DesugaredFileIDs; // cache: one lookup per file

  bool isDesugaredLocation(clang::SourceManager &SM, clang::SourceLocation Loc) {
    clang::FileID FID = SM.getFileID(SM.getFileLoc(Loc));
    auto [It, Inserted] = DesugaredFileIDs.try_emplace(FID, false);
    if (Inserted) {
      auto Entry = SM.getFileEntryRefForID(FID);
      It->second = Entry && FS.lookup(Entry->getName());
    }
    return It->second;
  }

  // Each desugared file Clang read, with the FileID of its first inclusion.
  std::vector<std::pair<clang::FileID, std::string>> desugaredFiles(clang::SourceManager &SM) {
    std::vector<std::pair<clang::FileID, std::string>> Result;
    for (unsigned I = 0, N = SM.local_sloc_entry_size(); I < N; ++I) {
      const clang::SrcMgr::SLocEntry &E = SM.getLocalSLocEntry(I);
      if (!E.isFile())
        continue;
      auto Ref = E.getFile().getContentCache().OrigEntry;
      if (!Ref || !FS.lookup(Ref->getName()))
        continue;
      clang::FileID FID = SM.translateFile(*Ref);
      if (FID.isValid())
        Result.emplace_back(FID, Ref->getName().str());
    }
    return Result;
  }

  void reportLexicalErrors(clang::SourceManager &SM, clang::DiagnosticsEngine &Diags) {
    unsigned ID = Diags.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0");
    std::set<clang::FileID> Done;
    for (auto &[FID, Name] : desugaredFiles(SM)) {
      if (!Done.insert(FID).second)
        continue;
      const DesugaredFile *D = FS.lookup(Name);
      // Clang stops at its error limit anyway; mapping costs a scan each.
      constexpr size_t MaxReported = 50;
      for (size_t I = 0; I < D->Errors.size() && I < MaxReported; ++I)
        Diags.Report(SM.getComposedLoc(FID, D->Map.toOutput(D->Errors[I].Offset)), ID)
            << D->Errors[I].Message;
    }
  }

  void collect(clang::SourceManager &SM, clang::Rewriter &R) {
    clang::FileID Main = SM.getMainFileID();
    for (auto &[FID, Name] : desugaredFiles(SM)) {
      std::string Text;
      if (const clang::RewriteBuffer *B = R.getRewriteBufferFor(FID))
        Text = std::string(B->begin(), B->end());
      else
        Text = FS.lookup(Name)->Text;
      if (FID == Main)
        Out.MainText = std::move(Text);
      else
        Out.Headers[FS.canonicalPath(Name)] = std::move(Text);
    }
  }
};

class LoweringAction : public clang::ASTFrontendAction {
public:
  LoweringAction(DesugaringFileSystem &FS, Translation &Out) : FS(FS), Out(Out) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &CI, llvm::StringRef) override {
    // Bodies that cannot need lowering are left to stage 2 (BodySkipPolicy).
    CI.getFrontendOpts().SkipFunctionBodies = true;
    return std::make_unique<LoweringConsumer>(FS, Out, CI);
  }

private:
  DesugaringFileSystem &FS;
  Translation &Out;
};

} // namespace

Translation translateFile(const std::string &Path, const std::vector<std::string> &ClangArgs,
                          const std::string &IncludeDir) {
  Translation Out;
  auto FS = llvm::makeIntrusiveRefCnt<DesugaringFileSystem>(llvm::vfs::getRealFileSystem());
  FS->addExtensionSource(Path); // the driver translates only cfa-language inputs
  auto Files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), FS);
  std::vector<std::string> Args = {"cfacc", "-fsyntax-only", "-std=gnu17", "-resource-dir",
                                   CFACC_RESOURCE_DIR, "-isystem", IncludeDir};
  Args.insert(Args.end(), ClangArgs.begin(), ClangArgs.end());
  // Stage 1 reports errors only: stage 2 sees every body (some are skipped
  // here) and reports the warnings, once.
  Args.insert(Args.end(), {"-w", "-x", "c", Path});
  MappedDiagnosticPrinter Printer(llvm::errs(), *FS, IncludeDir);
  clang::tooling::ToolInvocation Invocation(Args, std::make_unique<LoweringAction>(*FS, Out), Files.get());
  Invocation.setDiagnosticConsumer(&Printer);
  bool Ran = Invocation.run();
  Out.Success = Out.Success && Ran && Printer.getNumErrors() == 0;
  return Out;
}

} // namespace cfacc

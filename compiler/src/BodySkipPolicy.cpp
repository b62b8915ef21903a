// BodySkipPolicy: see BodySkipPolicy.h.
#include "BodySkipPolicy.h"

#include "ExtensionKinds.h"
#include "ExtensionLexer.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/Lex/MacroInfo.h"

#include <algorithm>

namespace cfacc {

BodySkipPolicy::BodySkipPolicy(const DesugaringFileSystem &FS, const clang::SourceManager &SM,
                               const clang::Preprocessor &PP)
    : FS(FS), SM(SM), PP(PP) {}

// A mutex function's prologue is inserted into its body.
static bool hasMutexParameter(const clang::Decl *D) {
  const auto *FD = llvm::dyn_cast<clang::FunctionDecl>(D);
  if (!FD)
    return false;
  for (const clang::ParmVarDecl *P : FD->parameters())
    for (const auto *A : P->specific_attrs<clang::AnnotateAttr>())
      if (A->getAnnotation() == MutexAnnotation)
        return true;
  return false;
}

void BodySkipPolicy::noteTopLevelDecl(const clang::Decl *D) {
  if (hasMutexParameter(D)) {
    MutexFunctions.insert(llvm::cast<clang::FunctionDecl>(D)->getName());
    return;
  }
  // A struct holding a monitor or condition: its locals are zero-initialised.
  if (const auto *RD = llvm::dyn_cast<clang::RecordDecl>(D)) {
    if (RD->isThisDeclarationADefinition() && !RD->getName().empty() &&
        containsZeroInitKind(RD->getASTContext().getRecordType(RD), RD->getASTContext()))
      ManagedTypedefs.insert(RD->getName());
    return;
  }
  const auto *TD = llvm::dyn_cast<clang::TypedefNameDecl>(D);
  if (!TD)
    return;
  clang::QualType T = TD->getUnderlyingType();
  while (T->isArrayType())
    T = clang::QualType(T->getPointeeOrArrayElementType(), 0);
  if (kindOfType(T) != ExtensionKind::None || containsZeroInitKind(T, TD->getASTContext()))
    ManagedTypedefs.insert(TD->getName());
}

bool BodySkipPolicy::isInteresting(llvm::StringRef Id) const {
  static const llvm::StringSet<> BuiltIns = {
      "processor", "cluster", "cfa_processor", "cfa_cluster", "condition", "cfa_condition",
      "new", "delete", "resume",
      "typeof", "__typeof__", "__typeof", "__auto_type"};
  if (BuiltIns.contains(Id) || FS.declaredTypeNames().contains(Id) || ManagedTypedefs.contains(Id) ||
      MutexFunctions.contains(Id))
    return true;
  auto It = PP.getIdentifierTable().find(Id);
  if (It == PP.getIdentifierTable().end() || !It->getValue()->hasMacroDefinition())
    return false;
  const clang::MacroInfo *MI = PP.getMacroInfo(It->getValue());
  return MI && !SM.isInSystemHeader(MI->getDefinitionLoc());
}

bool BodySkipPolicy::canSkipBody(const clang::Decl *D) const {
  clang::SourceLocation Loc = SM.getFileLoc(D->getLocation());
  auto Entry = SM.getFileEntryRefForID(SM.getFileID(Loc));
  if (!Entry)
    return false;
  const DesugaredFile *File = FS.lookup(Entry->getName());
  if (!File)
    return true;
  if (hasMutexParameter(D))
    return false;
  unsigned Name = File->Map.toOriginal(SM.getFileOffset(Loc));
  auto Body = std::upper_bound(File->Groups.begin(), File->Groups.end(), Name,
                               [](unsigned Off, const TopLevelGroup &G) { return Off < G.Begin; });
  if (Body == File->Groups.end() || Body->Desugared)
    return false;
  return std::none_of(Body->Identifiers.begin(), Body->Identifiers.end(),
                      [&](const std::string &Id) { return isInteresting(Id); });
}

} // namespace cfacc

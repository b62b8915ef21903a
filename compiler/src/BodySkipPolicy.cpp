// BodySkipPolicy: see BodySkipPolicy.h.
#include "BodySkipPolicy.h"

#include "ExtensionKinds.h"

#include "clang/AST/ASTContext.h"
#include "clang/Lex/MacroInfo.h"

#include <algorithm>

namespace cfacc {

BodySkipPolicy::BodySkipPolicy(const DesugaringFileSystem &FS, const clang::SourceManager &SM,
                               const clang::Preprocessor &PP)
    : FS(FS), SM(SM), PP(PP) {}

void BodySkipPolicy::noteTopLevelDecl(const clang::Decl *D) {
  const auto *TD = llvm::dyn_cast<clang::TypedefNameDecl>(D);
  if (!TD)
    return;
  clang::QualType T = TD->getUnderlyingType();
  while (T->isArrayType())
    T = clang::QualType(T->getPointeeOrArrayElementType(), 0);
  if (kindOfType(T) != ExtensionKind::None)
    ManagedTypedefs.insert(TD->getName());
}

bool BodySkipPolicy::isInteresting(llvm::StringRef Id) const {
  static const llvm::StringSet<> BuiltIns = {
      "processor", "cluster", "cfa_processor", "cfa_cluster", "new", "delete", "resume",
      "typeof", "__typeof__", "__typeof", "__auto_type"};
  if (BuiltIns.contains(Id) || FS.declaredTypeNames().contains(Id) || ManagedTypedefs.contains(Id))
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
  unsigned Name = File->Map.toOriginal(SM.getFileOffset(Loc));
  auto Body = std::upper_bound(File->Groups.begin(), File->Groups.end(), Name,
                               [](unsigned Off, const TopLevelGroup &G) { return Off < G.Begin; });
  if (Body == File->Groups.end() || Body->Desugared)
    return false;
  return std::none_of(Body->Identifiers.begin(), Body->Identifiers.end(),
                      [&](const std::string &Id) { return isInteresting(Id); });
}

} // namespace cfacc

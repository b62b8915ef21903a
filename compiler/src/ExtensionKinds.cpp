// ExtensionKinds: see ExtensionKinds.h.
#include "ExtensionKinds.h"

#include "ExtensionLexer.h"

#include "clang/AST/Decl.h"

namespace cfacc {

ExtensionKind kindOfType(clang::QualType T) {
  if (T.isNull())
    return ExtensionKind::None;
  const clang::RecordDecl *RD = T.getCanonicalType()->getAsRecordDecl();
  if (!RD)
    return ExtensionKind::None;
  llvm::StringRef Name = RD->getName();
  if (Name == "cfa_processor")
    return ExtensionKind::Processor;
  if (Name == "cfa_cluster")
    return ExtensionKind::Cluster;
  const clang::RecordDecl *Def = RD->getDefinition();
  if (!Def)
    return ExtensionKind::None;
  const clang::FieldDecl *Last = nullptr;
  for (const clang::FieldDecl *F : Def->fields())
    Last = F;
  if (!Last)
    return ExtensionKind::None;
  if (Last->getName() == ThreadDescriptorMember)
    return ExtensionKind::Thread;
  if (Last->getName() == CoroutineDescriptorMember)
    return ExtensionKind::Coroutine;
  return ExtensionKind::None;
}

ObjectShape shapeOf(clang::QualType T, const clang::ASTContext &Ctx) {
  ObjectShape Shape;
  clang::QualType Cur = T;
  while (const clang::ArrayType *AT = Ctx.getAsArrayType(Cur)) {
    const auto *CAT = llvm::dyn_cast<clang::ConstantArrayType>(AT);
    if (!CAT)
      return ObjectShape{};
    Shape.Count *= CAT->getSize().getZExtValue();
    Cur = CAT->getElementType();
  }
  Shape.Element = Cur;
  Shape.Kind = kindOfType(Cur);
  return Shape;
}

const char *kindName(ExtensionKind K) {
  switch (K) {
  case ExtensionKind::Thread: return "thread";
  case ExtensionKind::Coroutine: return "coroutine";
  case ExtensionKind::Processor: return "processor";
  case ExtensionKind::Cluster: return "cluster";
  case ExtensionKind::None: break;
  }
  return "object";
}

std::string typeNameOf(clang::QualType T) {
  const clang::RecordDecl *RD = T.getCanonicalType()->getAsRecordDecl();
  return RD ? RD->getName().str() : T.getAsString();
}

} // namespace cfacc

// ExtensionKinds: see ExtensionKinds.h.
#include "ExtensionKinds.h"

#include "ExtensionLexer.h"

#include "clang/AST/Decl.h"

#include <set>

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
  if (Name == "cfa_condition")
    return ExtensionKind::Condition;
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
  if (Last->getName() == MonitorDescriptorMember)
    return ExtensionKind::Monitor;
  return ExtensionKind::None;
}

bool hasManagedLifetime(ExtensionKind K) {
  return K == ExtensionKind::Thread || K == ExtensionKind::Coroutine || K == ExtensionKind::Processor ||
         K == ExtensionKind::Cluster;
}

bool isZeroInitKind(ExtensionKind K) { return K == ExtensionKind::Monitor || K == ExtensionKind::Condition; }

std::string descriptorMemberOf(ExtensionKind K) {
  switch (K) {
  case ExtensionKind::Thread: return ThreadDescriptorMember;
  case ExtensionKind::Coroutine: return CoroutineDescriptorMember;
  case ExtensionKind::Monitor: return MonitorDescriptorMember;
  default: return "";
  }
}

std::string monitorMemberOf(ExtensionKind K) {
  if (K == ExtensionKind::Monitor)
    return MonitorDescriptorMember;
  if (K == ExtensionKind::Thread)
    return std::string(ThreadDescriptorMember) + ".self_monitor";
  return "";
}

// Valid records nest only finitely (a struct cannot contain itself by
// value), but one Clang recovered from an error may: the records on the
// path are remembered, and an invalid one is not looked into.
static bool containsZeroInitKind(clang::QualType T, const clang::ASTContext &Ctx,
                                 std::set<const clang::RecordDecl *> &Path) {
  while (const clang::ArrayType *AT = Ctx.getAsArrayType(T))
    T = AT->getElementType();
  if (isZeroInitKind(kindOfType(T)))
    return true;
  const clang::RecordDecl *RD = T.getCanonicalType()->getAsRecordDecl();
  if (!RD || !(RD = RD->getDefinition()) || RD->isInvalidDecl() || !Path.insert(RD).second)
    return false;
  bool Found = false;
  for (const clang::FieldDecl *F : RD->fields())
    if ((Found = containsZeroInitKind(F->getType(), Ctx, Path)))
      break;
  Path.erase(RD);
  return Found;
}

bool containsZeroInitKind(clang::QualType T, const clang::ASTContext &Ctx) {
  std::set<const clang::RecordDecl *> Path;
  return containsZeroInitKind(T, Ctx, Path);
}

ObjectShape shapeOf(clang::QualType T, const clang::ASTContext &Ctx) {
  ObjectShape Shape;
  clang::QualType Cur = T;
  while (const clang::ArrayType *AT = Ctx.getAsArrayType(Cur)) {
    if (const auto *CAT = llvm::dyn_cast<clang::ConstantArrayType>(AT))
      Shape.Count *= CAT->getSize().getZExtValue();
    else
      Shape.VariableLength = true; // a VLA, or `T a[]` completed by nothing
    Cur = AT->getElementType();
  }
  if (Shape.VariableLength)
    Shape.Count = 0;
  Shape.Element = Cur;
  Shape.Kind = kindOfType(Cur);
  return Shape;
}

const char *kindName(ExtensionKind K) {
  switch (K) {
  case ExtensionKind::Thread: return "thread";
  case ExtensionKind::Coroutine: return "coroutine";
  case ExtensionKind::Monitor: return "monitor";
  case ExtensionKind::Condition: return "condition";
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

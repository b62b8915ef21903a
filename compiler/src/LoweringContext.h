// LoweringContext: what the AST lowering passes share for one translation
// unit: the Rewriter, diagnostics, which files are user code, and the
// registry of generated helpers each pass asks for.
//
// Invariants:
//  - only locations in desugared (.cfa/.hfa) files are rewritten; code from
//    .c headers, system headers and the prelude is never touched;
//  - every multi-line insertion is followed by a `#line` marker, so the
//    emitted C keeps the original line of every user token;
//  - helper names are derived from the record name (`struct T`), never from
//    a typedef, so all translation units agree on them.
#ifndef CFACC_LOWERING_CONTEXT_H
#define CFACC_LOWERING_CONTEXT_H

#include "DesugaringFileSystem.h"
#include "ExtensionKinds.h"

#include "clang/AST/ASTContext.h"
#include "clang/Rewrite/Core/Rewriter.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace cfacc {

// What one thread or coroutine type needs generated after its definition.
struct TypeHelpers {
  ExtensionKind Kind = ExtensionKind::None;
  std::string Name;                          // the record's tag
  const clang::FunctionDecl *Main = nullptr; // any declaration of its main
  bool MainIsStatic = false;
  std::set<uint64_t> CleanupCounts;          // array sizes needing a cleanup
  bool GuardCleanup = false;                 // a run-time-sized array needs one
};

// An object with static storage: started before main, stopped after it.
struct StaticObject {
  std::string Expression; // names the object at file scope
  ObjectShape Shape;
};

class LoweringContext {
public:
  LoweringContext(clang::ASTContext &Ctx, clang::Rewriter &R, const DesugaringFileSystem &FS);

  clang::ASTContext &ast() { return Ctx; }
  clang::SourceManager &sources() { return Ctx.getSourceManager(); }
  clang::Rewriter &rewriter() { return R; }
  const DesugaringFileSystem &files() const { return FS; }

  // A location in a desugared file, outside any macro expansion.
  bool isUserCode(clang::SourceLocation Loc);
  // A desugared file, for locations that may sit in a macro argument.
  bool isInUserFile(clang::SourceLocation Loc);

  void error(clang::SourceLocation Loc, llvm::StringRef Message);
  bool hadErrors() const { return ErrorCount > 0; }

  TypeHelpers &helpersFor(const clang::RecordDecl *Record);
  const TypeHelpers *findHelpers(const clang::RecordDecl *Record) const;
  const std::map<const clang::RecordDecl *, TypeHelpers> &allHelpers() const { return Helpers; }

  // Names of the functions that start, destroy, delete and clean up objects
  // of a shape's element type. startFunction is empty for coroutines (their
  // set-up is lazy, at the first resume).
  std::string startFunction(const ObjectShape &S);
  std::string destroyFunction(const ObjectShape &S);
  std::string deleteFunction(const ObjectShape &S);
  std::string cleanupFunction(const ObjectShape &S); // registers the count
  // The cleanup of an array guard (`struct __cfa_array_guard`, the
  // prelude's object+count pair) for the shape's element type: how an
  // array whose size is known only at run time is stopped.
  std::string guardCleanupFunction(const ObjectShape &S); // registers it
  // `(struct T *)` cast for the element type, and `struct T` itself.
  std::string elementPointerCast(const ObjectShape &S);
  std::string elementType(const ObjectShape &S);
  // The number of elements of the object named Object: the constant, or
  // for a variable-length array `(sizeof Object / sizeof (struct T))`.
  std::string countOf(const ObjectShape &S, const std::string &Object);

  // Is a main declared for this thread/coroutine type? Reports an error at
  // Loc naming the type if not.
  bool requireMain(const ObjectShape &S, clang::SourceLocation Loc);

  void addStaticObject(StaticObject O) { Statics.push_back(std::move(O)); }
  const std::vector<StaticObject> &staticObjects() const { return Statics; }
  const std::set<uint64_t> &genericCleanupCounts(ExtensionKind K) {
    return K == ExtensionKind::Processor ? ProcessorCleanups : ClusterCleanups;
  }

  // Inserts code after the token at Loc, on lines of its own, then resyncs
  // the line number with a #line marker. The code's first line has Loc's
  // line number.
  void insertBlockAfterToken(clang::SourceLocation Loc, const std::string &Code);
  // Inserts code before Loc, on lines of its own, then resyncs the line;
  // the code's first line has Loc's line number.
  void insertBlockBefore(clang::SourceLocation Loc, const std::string &Code);
  // Replaces a range by Text, keeping the number of newlines of the range.
  void replaceKeepingLines(clang::CharSourceRange Range, const std::string &Text);
  // A fresh suffix for generated names.
  unsigned nextUniqueId() { return ++UniqueCounter; }

private:
  clang::ASTContext &Ctx;
  clang::Rewriter &R;
  const DesugaringFileSystem &FS;
  std::map<clang::FileID, bool> UserFiles;
  std::map<const clang::RecordDecl *, TypeHelpers> Helpers;
  std::vector<StaticObject> Statics;
  std::set<uint64_t> ProcessorCleanups, ClusterCleanups;
  unsigned ErrorCount = 0;
  unsigned UniqueCounter = 0;
};

} // namespace cfacc
#endif

// BodySkipPolicy: which function bodies stage 1 may leave unparsed.
//
// Lowering only ever rewrites code inside a body that mentions a managed
// type or a built-in that needs the AST (new, delete, resume), or that the
// lexer rewrote, or the body of a mutex function, so Clang is
// told to skip every other body (FrontendOptions::SkipFunctionBodies and
// ASTConsumer::shouldSkipFunctionBody); stage 2 still compiles and checks
// all of them. A body in a desugared file is parsed when the extension
// lexer rewrote something in it (a time literal or a waitfor, say: so that
// errors there get exact columns through the source map), when it is a
// function with a mutex parameter (its prologue goes into the body), or
// when one of its identifiers is:
//  - a thread/coroutine/monitor type name of any desugared file read so far,
//    or a typedef name for a managed type declared before it, or the tag or
//    typedef name of a struct that holds a monitor or condition (its locals
//    are zero-initialised);
//  - processor, cluster, condition (and their struct tags), new, delete,
//    resume;
//  - the name of a function with a mutex parameter declared before it
//    (the monitor pass checks the type of each mutex argument);
//  - typeof/__typeof__/__auto_type (a type Clang must compute);
//  - a macro not defined in a system header (its expansion is unknown here).
// Bodies in other files (system headers, .h files, the prelude) are never
// parsed: nothing in them is lowered.
#ifndef CFACC_BODY_SKIP_POLICY_H
#define CFACC_BODY_SKIP_POLICY_H

#include "DesugaringFileSystem.h"

#include "clang/AST/Decl.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringSet.h"

namespace cfacc {

class BodySkipPolicy {
public:
  BodySkipPolicy(const DesugaringFileSystem &FS, const clang::SourceManager &SM,
                 const clang::Preprocessor &PP);

  // Call with each top-level declaration as Clang finishes it.
  void noteTopLevelDecl(const clang::Decl *D);
  bool canSkipBody(const clang::Decl *D) const;

private:
  bool isInteresting(llvm::StringRef Identifier) const;

  const DesugaringFileSystem &FS;
  const clang::SourceManager &SM;
  const clang::Preprocessor &PP;
  llvm::StringSet<> ManagedTypedefs;
  llvm::StringSet<> MutexFunctions; // their calls' arguments are checked
};

} // namespace cfacc
#endif

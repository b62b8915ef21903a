// HeapLowering: heap objects and the calls that need a type's main.
//
//  - new(T, inits) reaches the AST as the prelude macro __cfa_new((T){..});
//    for a thread the whole expansion is wrapped in __cfa_start_T(.., 1),
//    for a processor or cluster in the generic start/init helper. The
//    wrapper returns its argument, so `new(Worker)->field` still works.
//    Coroutines need nothing: their set-up happens at the first resume.
//  - delete(p) resolves to the prelude's plain `delete(const void *)`; for
//    the managed kinds the callee is renamed to the kind's delete helper
//    (join or stop, release, free).
//  - resume(c) needs c's type to have a main in this translation unit.
#include "Passes.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

namespace cfacc {
namespace {

using namespace clang::ast_matchers;

ObjectShape pointeeShape(const clang::Expr *E) {
  clang::QualType T = E->IgnoreImpCasts()->getType();
  if (!T->isPointerType())
    return {};
  clang::QualType Pointee = T->getPointeeType();
  return ObjectShape{kindOfType(Pointee), Pointee, 1};
}

class HeapCallback : public MatchFinder::MatchCallback {
public:
  explicit HeapCallback(LoweringContext &L) : L(L) {}

  void run(const MatchFinder::MatchResult &Result) override {
    if (const auto *C = Result.Nodes.getNodeAs<clang::CallExpr>("new"))
      return onNew(C);
    if (const auto *C = Result.Nodes.getNodeAs<clang::CallExpr>("delete"))
      return onDelete(C);
    if (const auto *C = Result.Nodes.getNodeAs<clang::CallExpr>("resume"))
      return onResume(C);
  }

private:
  LoweringContext &L;

  void onNew(const clang::CallExpr *Call) {
    if (Call->getNumArgs() != 2 || !L.isInUserFile(Call->getBeginLoc()))
      return;
    ObjectShape S = pointeeShape(Call->getArg(0));
    std::string Start = L.startFunction(S);
    if (Start.empty())
      return;
    clang::CharSourceRange Expansion = L.sources().getExpansionRange(Call->getBeginLoc());
    if (!L.isUserCode(Expansion.getBegin()))
      return;
    if (S.Kind == ExtensionKind::Thread && !L.requireMain(S, Expansion.getBegin()))
      return;
    L.rewriter().InsertTextBefore(Expansion.getBegin(), Start + "(");
    L.rewriter().InsertTextAfterToken(Expansion.getEnd(), ", 1)");
  }

  void onDelete(const clang::CallExpr *Call) {
    if (Call->getNumArgs() != 1)
      return;
    ObjectShape S = pointeeShape(Call->getArg(0));
    std::string Delete = L.deleteFunction(S);
    clang::SourceLocation Callee = Call->getCallee()->getBeginLoc();
    if (Delete.empty() || !L.isInUserFile(Callee))
      return;
    if (!L.isUserCode(Callee)) {
      L.error(Callee, "delete of a " + std::string(kindName(S.Kind)) +
                          " cannot be spelled inside a macro expansion");
      return;
    }
    L.rewriter().ReplaceText(Callee, llvm::StringRef("delete").size(), Delete);
  }

  void onResume(const clang::CallExpr *Call) {
    if (Call->getNumArgs() != 1 || !L.isInUserFile(Call->getBeginLoc()))
      return;
    ObjectShape S = pointeeShape(Call->getArg(0));
    if (S.Kind == ExtensionKind::Coroutine)
      L.requireMain(S, Call->getBeginLoc());
  }
};

} // namespace

void lowerHeapObjects(LoweringContext &L) {
  HeapCallback Callback(L);
  MatchFinder Finder;
  Finder.addMatcher(callExpr(callee(functionDecl(hasName("__cfa_new_copy")))).bind("new"), &Callback);
  Finder.addMatcher(
      callExpr(callee(functionDecl(hasName("delete"), hasAttr(clang::attr::Overloadable)))).bind("delete"),
      &Callback);
  Finder.addMatcher(callExpr(callee(functionDecl(hasName("resume")))).bind("resume"), &Callback);
  Finder.matchAST(L.ast());
}

} // namespace cfacc

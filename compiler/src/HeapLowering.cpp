// HeapLowering: heap objects and the calls that need a type's main.
//
//  - new(T, inits) reaches the AST as the prelude macro __cfa_new((T){..});
//    for a thread the `__cfa_new(...)` as written (also inside the argument
//    of a user's macro) is wrapped in __cfa_start_T(.., 1),
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
#include "clang/Lex/Lexer.h"

#include <set>

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
  std::set<clang::SourceLocation> Wrapped;

  void onNew(const clang::CallExpr *Call) {
    if (Call->getNumArgs() != 2 || !L.isInUserFile(Call->getBeginLoc()))
      return;
    ObjectShape S = pointeeShape(Call->getArg(0));
    std::string Start = L.startFunction(S);
    if (Start.empty())
      return;
    clang::SourceRange Spelled = spelledNew(Call);
    if (Spelled.isInvalid()) {
      L.error(L.sources().getExpansionLoc(Call->getBeginLoc()),
              "new of a " + std::string(kindName(S.Kind)) + " must be written in a .cfa or .hfa file, "
              "not produced by a macro's body");
      return;
    }
    // A macro may expand its argument more than once: one wrap per text.
    if (!Wrapped.insert(Spelled.getBegin()).second)
      return;
    if (S.Kind == ExtensionKind::Thread && !L.requireMain(S, Spelled.getBegin()))
      return;
    L.rewriter().InsertTextBefore(Spelled.getBegin(), Start + "(");
    L.rewriter().InsertTextAfterToken(Spelled.getEnd(), ", 1)");
  }

  // Where `__cfa_new((T){...})` is written in the user's file: from the
  // `__cfa_new` to its `)`. The call is inside the prelude's macro, and
  // that macro may itself sit in the argument of a user's macro, so the
  // range is found from the literal (the user's text, spelled right after
  // `__cfa_new(` by the extension lexer), not from the expansion.
  clang::SourceRange spelledNew(const clang::CallExpr *Call) {
    const auto *Ref = llvm::dyn_cast<clang::DeclRefExpr>(Call->getArg(0)->IgnoreImpCasts());
    const auto *Literal = Ref ? llvm::dyn_cast<clang::VarDecl>(Ref->getDecl()) : nullptr;
    const auto *AddressOf =
        Literal && Literal->getInit() ? llvm::dyn_cast<clang::UnaryOperator>(Literal->getInit()->IgnoreParenImpCasts())
                                      : nullptr;
    const clang::Expr *Object = AddressOf ? AddressOf->getSubExpr()->IgnoreParens() : nullptr;
    if (!Object)
      return {};
    clang::SourceManager &SM = L.sources();
    clang::SourceLocation Begin = SM.getSpellingLoc(Object->getBeginLoc());
    clang::SourceLocation End = SM.getSpellingLoc(Object->getEndLoc());
    if (!L.isUserCode(Begin) || !L.isUserCode(End))
      return {};
    llvm::StringRef Opening = "__cfa_new(";
    clang::SourceLocation NewBegin = Begin.getLocWithOffset(-static_cast<int>(Opening.size()));
    if (!SM.getCharacterData(NewBegin) || llvm::StringRef(SM.getCharacterData(NewBegin), Opening.size()) != Opening)
      return {};
    std::optional<clang::Token> Close = clang::Lexer::findNextToken(End, SM, L.ast().getLangOpts());
    if (!Close || !Close->is(clang::tok::r_paren))
      return {};
    return {NewBegin, Close->getLocation()};
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

// ThreadMainLowering: `void main(T *this)` defines the body of thread or
// coroutine type T. The extension lexer has renamed every such main to
// __cfa_main_<name as written>; here each one is checked (one pointer
// parameter to a thread or coroutine type, returning void), registered as
// its type's main, and renamed to __cfa_main_<record tag> when the user
// wrote a typedef name, so that all translation units agree on the symbol.
#include "ExtensionLexer.h"
#include "Passes.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

namespace cfacc {
namespace {

using namespace clang::ast_matchers;

class TypeMainCallback : public MatchFinder::MatchCallback {
public:
  explicit TypeMainCallback(LoweringContext &L) : L(L) {}

  void run(const MatchFinder::MatchResult &Result) override {
    const auto *FD = Result.Nodes.getNodeAs<clang::FunctionDecl>("main");
    if (!FD || !L.isUserCode(FD->getLocation()))
      return;
    llvm::StringRef Written = FD->getName().drop_front(llvm::StringRef(TypeMainPrefix).size());
    if (FD->getNumParams() != 1)
      return; // the lexer renames only one-parameter mains
    clang::QualType Param = FD->getParamDecl(0)->getType();
    clang::QualType Pointee = Param->getPointeeType();
    ExtensionKind Kind = kindOfType(Pointee);
    if (Kind != ExtensionKind::Thread && Kind != ExtensionKind::Coroutine) {
      L.error(FD->getLocation(), "'main' with a parameter of type '" + Param.getAsString() +
                                     "' defines the body of a thread or coroutine, but '" +
                                     Written.str() + "' is neither a thread nor a coroutine type");
      return;
    }
    if (!FD->getReturnType()->isVoidType()) {
      L.error(FD->getLocation(), "the main of " + std::string(kindName(Kind)) + " '" + Written.str() +
                                     "' must return void");
      return;
    }
    const clang::RecordDecl *Record = Pointee.getCanonicalType()->getAsRecordDecl();
    TypeHelpers &H = L.helpersFor(Record);
    if (!H.Main || FD->isThisDeclarationADefinition())
      H.Main = FD;
    if (FD->getStorageClass() == clang::SC_Static)
      H.MainIsStatic = true;
    if (Written != H.Name)
      L.rewriter().ReplaceText(FD->getLocation(), FD->getName().size(), TypeMainPrefix + H.Name);
  }

private:
  LoweringContext &L;
};

} // namespace

void lowerTypeMains(LoweringContext &L) {
  TypeMainCallback Callback(L);
  MatchFinder Finder;
  Finder.addMatcher(functionDecl(matchesName("^::__cfa_main_")).bind("main"), &Callback);
  Finder.matchAST(L.ast());
}

} // namespace cfacc

// ObjectLifetimeLowering: the lifetime of declared threads, coroutines,
// processors and clusters (docs/language.md sections 2, 3 and 7), and the
// all-zero start of monitors and conditions (sections 1, 4 and 5).
//
//  - automatic objects: zero-initialised when they have no initializer,
//    started right after their declaration statement (arrays in index
//    order), and given a `cleanup` attribute whose function stops them
//    (arrays in reverse). Clang runs cleanups on every way out of the
//    scope (end, return, break, continue, goto) and in reverse declaration
//    order, which is the RAII order the language promises;
//  - a variable-length array cannot carry its size into a cleanup
//    function, so it is paired with a guard declared right after its
//    declaration statement (`struct __cfa_array_guard`: the array and its
//    element count) whose cleanup stops it. Every managed object of such a
//    statement gets a guard, in declaration order, so that the reverse
//    order holds within the statement too. C forbids jumping into the
//    scope of a variable-length array, so no jump can skip a start;
//  - static storage: recorded for the start-before-main and
//    stop-after-main functions; a static local is hoisted to file scope
//    (renamed __cfa_static_<function>_<name>_<n>) so that they can name it;
//  - positional initializers of threads and coroutines name the
//    descriptor explicitly (see onInitList);
//  - monitors and conditions (also inside other structs) declared without
//    an initializer get `= {0}`: all-zero is their ready state;
//  - by-value rules: such objects cannot be function parameters, return
//    values, or copied; those with a managed lifetime cannot be members of
//    other aggregates either (monitors and conditions can), nor compound
//    literals other than a variable's initializer or new()'s object.
#include "Passes.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <set>

namespace cfacc {
namespace {

using namespace clang::ast_matchers;

// "thread 'Worker'"; the built-in types by their kind alone ("processor").
std::string describe(const ObjectShape &S) {
  if (S.Kind == ExtensionKind::Processor || S.Kind == ExtensionKind::Cluster)
    return kindName(S.Kind);
  return std::string(kindName(S.Kind)) + " '" + typeNameOf(S.Element) + "'";
}

class LifetimeCallback : public MatchFinder::MatchCallback {
public:
  explicit LifetimeCallback(LoweringContext &L) : L(L), Ctx(L.ast()) {}

  void run(const MatchFinder::MatchResult &Result) override {
    if (const auto *DS = Result.Nodes.getNodeAs<clang::DeclStmt>("declStmt"))
      return onDeclStmt(DS);
    if (const auto *VD = Result.Nodes.getNodeAs<clang::VarDecl>("global"))
      return onGlobal(VD);
    if (const auto *P = Result.Nodes.getNodeAs<clang::ParmVarDecl>("param"))
      return onParam(P);
    if (const auto *F = Result.Nodes.getNodeAs<clang::FunctionDecl>("function"))
      return onFunction(F);
    if (const auto *F = Result.Nodes.getNodeAs<clang::FieldDecl>("field"))
      return onField(F);
    if (const auto *A = Result.Nodes.getNodeAs<clang::BinaryOperator>("assign"))
      return onAssign(A);
    if (const auto *RD = Result.Nodes.getNodeAs<clang::RecordDecl>("record"))
      return onRecord(RD);
    if (const auto *IL = Result.Nodes.getNodeAs<clang::InitListExpr>("init"))
      return onInitList(IL);
    if (const auto *CL = Result.Nodes.getNodeAs<clang::CompoundLiteralExpr>("literal"))
      return onCompoundLiteral(CL);
  }

private:
  LoweringContext &L;
  clang::ASTContext &Ctx;
  std::set<const clang::VarDecl *> SeenGlobals;
  std::set<clang::SourceLocation> CompletedLists;

  ObjectShape shape(const clang::VarDecl *VD) { return shapeOf(VD->getType(), Ctx); }

  // The last token of the declarator: the name, or `]` of an array.
  clang::SourceLocation declaratorEnd(const clang::VarDecl *VD) {
    clang::SourceLocation End = VD->getLocation();
    if (const clang::TypeSourceInfo *TSI = VD->getTypeSourceInfo()) {
      clang::SourceLocation TypeEnd = TSI->getTypeLoc().getEndLoc();
      if (TypeEnd.isValid() && TypeEnd.isFileID() &&
          Ctx.getSourceManager().isBeforeInTranslationUnit(End, TypeEnd))
        End = TypeEnd;
    }
    return End;
  }

  // `Worker b = a;` copies a (possibly running) object.
  bool checkNotCopied(const clang::VarDecl *VD, const ObjectShape &S) {
    const clang::Expr *Init = VD->getInit();
    if (!Init)
      return true;
    Init = Init->IgnoreImplicit();
    if (llvm::isa<clang::InitListExpr>(Init) || llvm::isa<clang::CompoundLiteralExpr>(Init))
      return true;
    L.error(Init->getBeginLoc(), describe(S) + " objects cannot be copied; initialise '" +
                                     VD->getName().str() + "' with { ... } or use a pointer");
    return false;
  }

  // The runtime updates a managed object in place (its state, its
  // queues), which a const object forbids.
  bool checkNotConst(const clang::VarDecl *VD, const ObjectShape &S) {
    if (!S.Element.isConstQualified())
      return true;
    L.error(VD->getLocation(), describe(S) + " objects cannot be const: the runtime updates them");
    return false;
  }

  void onDeclStmt(const clang::DeclStmt *DS) {
    std::vector<const clang::VarDecl *> Managed;
    bool Static = false;
    std::string Zeroes;
    for (const clang::Decl *D : DS->decls()) {
      const auto *VD = llvm::dyn_cast<clang::VarDecl>(D);
      if (!VD)
        continue;
      if (!hasManagedLifetime(shape(VD).Kind)) {
        zeroInitialise(DS, VD, Zeroes);
        continue;
      }
      if (!L.isUserCode(VD->getLocation())) {
        if (L.isInUserFile(VD->getLocation()))
          L.error(VD->getLocation(), describe(shape(VD)) +
                                         " objects cannot be declared by a macro expansion");
        continue;
      }
      if (!checkNotCopied(VD, shape(VD)) || !checkNotConst(VD, shape(VD)))
        continue;
      if (VD->getTLSKind() != clang::VarDecl::TLS_None) {
        L.error(VD->getLocation(), "thread-local " + describe(shape(VD)) + " objects are not supported");
        continue;
      }
      Static |= VD->isStaticLocal();
      if (VD->hasLocalStorage())
        Managed.push_back(VD);
    }
    if (Static) {
      hoistStaticLocals(DS);
      return;
    }
    if (!Zeroes.empty())
      L.rewriter().InsertTextAfterToken(DS->getEndLoc(), Zeroes);
    if (Managed.empty())
      return;
    auto Parents = Ctx.getParents(*DS);
    if (!Parents.empty() && Parents[0].get<clang::ForStmt>()) {
      L.error(Managed.front()->getLocation(),
              describe(shape(Managed.front())) +
                  " objects cannot be declared in a for-loop initializer; declare them in the loop body");
      return;
    }
    bool Guarded = std::any_of(Managed.begin(), Managed.end(),
                               [&](const clang::VarDecl *VD) { return shape(VD).VariableLength; });
    std::string After;
    for (const clang::VarDecl *VD : Managed) {
      ObjectShape S = shape(VD);
      if (S.Kind == ExtensionKind::Thread && !L.requireMain(S, VD->getLocation()))
        continue;
      std::string Name = VD->getName().str(), Count = L.countOf(S, Name);
      std::string Attr = Guarded ? "" : " __attribute__((cleanup(" + L.cleanupFunction(S) + ")))";
      if (!VD->hasInit() && S.VariableLength)
        After += " __builtin_memset(" + Name + ", 0, sizeof " + Name + ");";
      else if (!VD->hasInit())
        Attr += " = {0}";
      if (!Attr.empty())
        L.rewriter().InsertTextAfterToken(declaratorEnd(VD), Attr);
      std::string Start = L.startFunction(S);
      if (!Start.empty())
        After += " " + Start + "(" + L.elementPointerCast(S) + "&" + Name + ", " + Count + ");";
      if (Guarded)
        After += " struct __cfa_array_guard __cfa_guard_" + Name + "_" + std::to_string(L.nextUniqueId()) +
                 " __attribute__((cleanup(" + L.guardCleanupFunction(S) + "))) = { &" + Name + ", " + Count +
                 " };";
    }
    if (!After.empty())
      L.rewriter().InsertTextAfterToken(DS->getEndLoc(), After);
  }

  // Monitors and conditions, alone, in arrays or inside a struct, are
  // ready when all-zero (the runtime needs no set-up call), so an automatic
  // one declared without an initializer is given `= {0}`; a variable-length
  // array is cleared right after its declaration instead (it cannot have an
  // initializer). Static storage is all-zero already.
  void zeroInitialise(const clang::DeclStmt *DS, const clang::VarDecl *VD, std::string &Zeroes) {
    ObjectShape S = shape(VD);
    bool Direct = isZeroInitKind(S.Kind);
    if ((!Direct && !containsZeroInitKind(VD->getType(), Ctx)) || !L.isInUserFile(VD->getLocation()))
      return;
    if (Direct && !checkNotCopied(VD, S))
      return;
    if (!VD->hasLocalStorage() || VD->hasInit())
      return;
    std::string What = Direct ? describe(S) : "'" + VD->getType().getAsString() + "'";
    if (!L.isUserCode(VD->getLocation())) {
      L.error(VD->getLocation(), What + " objects declared by a macro expansion need an initializer "
                                        "(they must start all-zero)");
      return;
    }
    if (!VD->getType()->isVariablyModifiedType()) {
      L.rewriter().InsertTextAfterToken(declaratorEnd(VD), " = {0}");
      return;
    }
    auto Parents = Ctx.getParents(*DS);
    if (!Parents.empty() && Parents[0].get<clang::ForStmt>()) {
      L.error(VD->getLocation(), "a variable-length array of " + What +
                                     " objects cannot be declared in a for-loop initializer");
      return;
    }
    std::string Name = VD->getName().str();
    Zeroes += " __builtin_memset(" + Name + ", 0, sizeof " + Name + ");";
  }

  // static locals move to file scope, just before their function.
  void hoistStaticLocals(const clang::DeclStmt *DS) {
    const clang::FunctionDecl *F = nullptr;
    for (const clang::Decl *D : DS->decls())
      if (const auto *VD = llvm::dyn_cast<clang::VarDecl>(D))
        F = llvm::dyn_cast_or_null<clang::FunctionDecl>(VD->getParentFunctionOrMethod());
    if (!F || !F->hasBody() || !L.isUserCode(F->getBeginLoc()) || !L.isUserCode(DS->getEndLoc()))
      return;
    for (const clang::Decl *D : DS->decls()) {
      const auto *VD = llvm::dyn_cast<clang::VarDecl>(D);
      if (!VD)
        continue;
      std::string NewName = "__cfa_static_" + F->getName().str() + "_" + VD->getName().str() + "_" +
                            std::to_string(L.nextUniqueId());
      L.rewriter().ReplaceText(VD->getLocation(), VD->getName().size(), NewName);
      auto Refs = match(findAll(declRefExpr(to(varDecl(equalsNode(VD)))).bind("ref")), *F->getBody(), Ctx);
      for (const auto &Node : Refs) {
        const auto *Ref = Node.getNodeAs<clang::DeclRefExpr>("ref");
        if (Ref->getLocation().isFileID())
          L.rewriter().ReplaceText(Ref->getLocation(), VD->getName().size(), NewName);
        else
          L.error(Ref->getLocation(), "a static " + describe(shape(VD)) +
                                          " cannot be named inside a macro expansion");
      }
      ObjectShape S = shape(VD);
      bool Startable = S.Kind != ExtensionKind::Thread || L.requireMain(S, VD->getLocation());
      if (S.Kind != ExtensionKind::None && Startable)
        L.addStaticObject({NewName, S});
    }
    // The initializers move with the declaration: complete them first (an
    // edit inside the moved range made later would be lost, or worse).
    for (const auto &Node : match(findAll(initListExpr().bind("init")), *DS, Ctx))
      onInitList(Node.getNodeAs<clang::InitListExpr>("init"));
    auto Range = clang::CharSourceRange::getTokenRange(DS->getBeginLoc(), DS->getEndLoc());
    std::string Text = L.rewriter().getRewrittenText(Range);
    L.replaceKeepingLines(Range, "");
    L.insertBlockBefore(Ctx.getSourceManager().getFileLoc(F->getBeginLoc()), Text);
  }

  void onGlobal(const clang::VarDecl *VD) {
    ObjectShape S = shape(VD);
    if (S.Kind == ExtensionKind::None || !L.isInUserFile(VD->getLocation()))
      return;
    if (!checkNotCopied(VD, S) || !hasManagedLifetime(S.Kind) || !checkNotConst(VD, S))
      return; // a static monitor or condition is all-zero: ready
    if (S.VariableLength) {
      L.error(VD->getLocation(), "an array of " + describe(S) + " objects needs a size");
      return;
    }
    if (VD->getTLSKind() != clang::VarDecl::TLS_None) {
      L.error(VD->getLocation(), "thread-local " + describe(S) + " objects are not supported");
      return;
    }
    const clang::VarDecl *Def = VD->getDefinition();
    if (!Def)
      Def = VD->getActingDefinition();
    if (Def != VD || !SeenGlobals.insert(VD->getCanonicalDecl()).second)
      return;
    if (S.Kind != ExtensionKind::Thread || L.requireMain(S, VD->getLocation()))
      L.addStaticObject({VD->getName().str(), S});
  }

  void onParam(const clang::ParmVarDecl *P) {
    ObjectShape S{kindOfType(P->getOriginalType()), P->getOriginalType(), 1};
    if (S.Kind == ExtensionKind::None || !L.isInUserFile(P->getLocation()))
      return;
    std::string Name = typeNameOf(S.Element);
    L.error(P->getBeginLoc(), describe(S) + " cannot be passed by value; pass a pointer ('" + Name +
                                  " *')");
  }

  void onFunction(const clang::FunctionDecl *F) {
    clang::QualType R = F->getReturnType();
    ObjectShape S{kindOfType(R), R, 1};
    if (S.Kind == ExtensionKind::None || !L.isInUserFile(F->getLocation()))
      return;
    L.error(F->getLocation(), "a function cannot return " + describe(S) + " by value; return a pointer");
  }

  // Members: a monitor may hold conditions, and a struct may hold monitors
  // (their address is stable: the struct is not copied); a member with a
  // managed lifetime would have no scope to be started and stopped in.
  void onField(const clang::FieldDecl *F) {
    ObjectShape S = shapeOf(F->getType(), Ctx);
    if (!hasManagedLifetime(S.Kind) || !L.isInUserFile(F->getLocation()))
      return;
    const clang::RecordDecl *Owner = F->getParent();
    std::string Where = Owner->getName().empty() ? std::string(Owner->isUnion() ? "a union" : "a struct")
                                                 : "'" + Owner->getName().str() + "'";
    L.error(F->getLocation(), describe(S) + " cannot be a member of " + Where + "; make '" + F->getName().str() +
                                  "' a pointer and use new()");
  }

  void onAssign(const clang::BinaryOperator *A) {
    ObjectShape S{kindOfType(A->getLHS()->getType()), A->getLHS()->getType(), 1};
    if (S.Kind == ExtensionKind::None || !L.isInUserFile(A->getOperatorLoc()))
      return;
    L.error(A->getOperatorLoc(), describe(S) + " objects cannot be copied by assignment");
  }

  // A positional initializer `{ 1, 2 }` of a thread or coroutine leaves its
  // descriptor (the last member) to zero; say so explicitly, so that
  // -Wmissing-field-initializers does not blame the user's code for it.
  void onInitList(const clang::InitListExpr *IL) {
    ExtensionKind K = kindOfType(IL->getType());
    if (!IL->isSyntacticForm())
      IL = IL->getSyntacticForm(); // the braces as written
    std::string Member = descriptorMemberOf(K);
    if (Member.empty() || IL->getNumInits() == 0 || !L.isUserCode(IL->getRBraceLoc()) ||
        !CompletedLists.insert(IL->getRBraceLoc()).second)
      return;
    for (const clang::Expr *E : IL->inits())
      if (llvm::isa<clang::DesignatedInitExpr>(E))
        return;
    const clang::Expr *LastInit = IL->getInit(IL->getNumInits() - 1);
    std::optional<clang::Token> After = clang::Lexer::findNextToken(
        Ctx.getSourceManager().getFileLoc(LastInit->getEndLoc()), Ctx.getSourceManager(), Ctx.getLangOpts());
    bool TrailingComma = After && After->is(clang::tok::comma);
    L.rewriter().InsertTextBefore(IL->getRBraceLoc(), std::string(TrailingComma ? "" : ", ") + "." +
                                                          Member + " = {0} ");
  }

  // A compound literal of a managed type is an object without a name:
  // nothing would start it or stop it at its scope's end. It may only
  // initialise a variable (`Worker w = (Worker){1};`, a copy of an object
  // not yet started) or be the object new() copies to the heap.
  void onCompoundLiteral(const clang::CompoundLiteralExpr *CL) {
    ObjectShape S = shapeOf(CL->getType(), Ctx);
    if (!hasManagedLifetime(S.Kind) || !L.isInUserFile(CL->getBeginLoc()))
      return;
    const clang::Stmt *Child = CL;
    for (;;) {
      auto Parents = Ctx.getParents(*Child);
      if (Parents.empty())
        break;
      if (const auto *VD = Parents[0].get<clang::VarDecl>()) {
        if (VD->getInit() && VD->getInit()->IgnoreParenImpCasts() == CL)
          return; // initialises a variable, which is started and stopped
        if (VD->getName() == "__cfa_literal")
          return; // the object of new(T, ...) (the prelude's __cfa_new)
        break;
      }
      const auto *E = Parents[0].get<clang::Expr>();
      const auto *AddressOf = llvm::dyn_cast_or_null<clang::UnaryOperator>(E);
      if (!E || !(llvm::isa<clang::ParenExpr>(E) || llvm::isa<clang::ImplicitCastExpr>(E) ||
                  (AddressOf && AddressOf->getOpcode() == clang::UO_AddrOf)))
        break;
      Child = E;
    }
    L.error(CL->getBeginLoc(), "a compound literal of " + describe(S) +
                                   " would never be started or stopped; declare a variable or use new()");
  }

  void onRecord(const clang::RecordDecl *RD) {
    ExtensionKind K = kindOfType(Ctx.getRecordType(RD));
    if (descriptorMemberOf(K).empty() ||
        !L.isInUserFile(RD->getLocation()) || RD->getDeclContext()->isFileContext())
      return;
    L.error(RD->getLocation(), std::string(kindName(K)) + " type '" + RD->getName().str() +
                                   "' must be declared at file scope");
  }
};

} // namespace

void lowerObjectLifetimes(LoweringContext &L) {
  LifetimeCallback Callback(L);
  MatchFinder Finder;
  Finder.addMatcher(declStmt().bind("declStmt"), &Callback);
  Finder.addMatcher(varDecl(hasGlobalStorage(), unless(hasParent(declStmt()))).bind("global"), &Callback);
  Finder.addMatcher(parmVarDecl().bind("param"), &Callback);
  Finder.addMatcher(functionDecl().bind("function"), &Callback);
  Finder.addMatcher(fieldDecl().bind("field"), &Callback);
  Finder.addMatcher(binaryOperator(isAssignmentOperator()).bind("assign"), &Callback);
  Finder.addMatcher(recordDecl(isDefinition()).bind("record"), &Callback);
  Finder.addMatcher(initListExpr().bind("init"), &Callback);
  Finder.addMatcher(compoundLiteralExpr().bind("literal"), &Callback);
  Finder.matchAST(L.ast());
}

} // namespace cfacc

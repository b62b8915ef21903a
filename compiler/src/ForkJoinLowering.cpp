// ForkJoinLowering: corun and cofor (LANGUAGE.md section 12) on the
// runtime's task groups and parallel_for (cfa/forkjoin.h).
//
// The extension lexer leaves `switch (__cfa_corun) default: S` for corun S
// and `for (__auto_type i = (lo); __cfa_cofor; (void)(hi)) S` for cofor.
// Each body S moves into a generated function placed before the enclosing
// function, on lines of its own with `#line` markers (so its statements
// keep their lines); it sees the enclosing function's locals through a
// struct of pointers (by reference, as the language says), the cofor
// index by value. In the moved body, each captured variable `x` reads
// `(*__cfa_fjN->x)`. At the construct's place:
//
//   corun S  ->  struct __cfa_fj_N __cfa_fjenv_N = { &x, ... };
//                cfa_task_group __cfa_fjg_N __attribute__((cleanup(cfa_task_group_wait))) = {0};
//                cfa_task_spawn(&__cfa_fjg_N, __cfa_fj_body_N, &__cfa_fjenv_N);
//   (in a block of its own where the statement is not directly in a block:
//   the cleanup attribute joins the task on every way out of the block)
//   cofor    ->  { T lo = (lo), hi = (hi); struct __cfa_fj_N env = { lo, &x, ... };
//                  cfa_parallel_for(0, hi > lo ? hi - lo : 0, 0, __cfa_fj_body_N, &env); }
//
// Rules (errors with a caret, docs/language.md): a body cannot return,
// cannot break or continue out of itself, no goto leaves or enters it; a
// cofor range has integer type; a body cannot use a type, an enumerator or
// a variable-length array declared in the enclosing function outside the
// body, nor a captured variable through a macro's own text, nor a
// register variable.
//
// Order: (1) find the constructs, each with its innermost enclosing one;
// (2) check them all; (3) rewrite every captured reference, in the
// spelling of the innermost body holding it; (4) lower the constructs
// innermost first, each taking its body's text as rewritten so far (so
// inner constructs are already lowered inside it).
#include "Passes.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <map>
#include <set>

namespace cfacc {
namespace {

struct Fork {
  bool IsCofor = false;
  const clang::Stmt *Construct = nullptr; // the SwitchStmt or ForStmt
  const clang::Stmt *Body = nullptr;
  const clang::VarDecl *Index = nullptr;  // cofor
  const clang::Expr *Lo = nullptr, *Hi = nullptr;
  clang::QualType IndexType;
  const clang::FunctionDecl *Function = nullptr;
  Fork *Parent = nullptr;                 // innermost enclosing construct
  unsigned Id = 0;
  std::vector<const clang::VarDecl *> Captures; // in order of first use
  bool CallsItsFunction = false;
};

bool isMarker(const clang::Expr *E, llvm::StringRef Name) {
  if (!E)
    return false;
  const auto *Ref = llvm::dyn_cast<clang::DeclRefExpr>(E->IgnoreParenImpCasts());
  return Ref && llvm::isa<clang::EnumConstantDecl>(Ref->getDecl()) && Ref->getDecl()->getName() == Name;
}

const char *constructName(const Fork &F) { return F.IsCofor ? "cofor" : "corun"; }

class ForkJoin {
public:
  explicit ForkJoin(LoweringContext &L) : L(L), SM(L.sources()), Ctx(L.ast()) {}

  void run() {
    collect();
    if (Forks.empty())
      return;
    unsigned Errors = errorCount();
    for (auto &F : Forks)
      check(*F);
    if (errorCount() != Errors)
      return;
    for (auto &F : Forks)
      rewriteReferences(*F);
    for (auto It = Forks.rbegin(); It != Forks.rend(); ++It)
      lower(**It);
  }

private:
  LoweringContext &L;
  clang::SourceManager &SM;
  clang::ASTContext &Ctx;
  std::vector<std::unique_ptr<Fork>> Forks; // pre-order: a parent before its children
  std::map<const clang::Stmt *, Fork *> ByBody;
  std::set<const clang::FunctionDecl *> PrototypeEmitted;
  unsigned OwnErrors = 0;

  unsigned errorCount() const { return OwnErrors; }
  void error(clang::SourceLocation Loc, const std::string &Message) {
    L.error(Loc, Message);
    ++OwnErrors;
  }

  // --- (1) finding the constructs ---------------------------------------

  class Finder : public clang::RecursiveASTVisitor<Finder> {
  public:
    Finder(ForkJoin &FJ) : FJ(FJ) {}
    bool TraverseFunctionDecl(clang::FunctionDecl *D) {
      if (!D->doesThisDeclarationHaveABody() || !FJ.L.isInUserFile(D->getLocation()))
        return true;
      const clang::FunctionDecl *Saved = Function;
      Function = D;
      bool Result = clang::RecursiveASTVisitor<Finder>::TraverseFunctionDecl(D);
      Function = Saved;
      return Result;
    }
    // Recursive (not through the data-recursion queue), so that Current is
    // the construct around the statement being visited.
    bool TraverseStmt(clang::Stmt *S, DataRecursionQueue * = nullptr) {
      if (!S || !Function)
        return clang::RecursiveASTVisitor<Finder>::TraverseStmt(S, nullptr);
      Fork *Made = FJ.recognise(S, Function, Current);
      if (!Made)
        return clang::RecursiveASTVisitor<Finder>::TraverseStmt(S, nullptr);
      Fork *Saved = Current;
      if (Made->IsCofor) { // the range belongs to the enclosing context
        TraverseStmt(const_cast<clang::Expr *>(Made->Lo));
        TraverseStmt(const_cast<clang::Expr *>(Made->Hi));
      }
      Current = Made;
      TraverseStmt(const_cast<clang::Stmt *>(Made->Body));
      Current = Saved;
      return true;
    }

  private:
    ForkJoin &FJ;
    const clang::FunctionDecl *Function = nullptr;
    Fork *Current = nullptr;
  };

  void collect() {
    Finder F(*this);
    for (clang::Decl *D : Ctx.getTraversalScope())
      F.TraverseDecl(D);
  }

  Fork *recognise(clang::Stmt *S, const clang::FunctionDecl *Function, Fork *Parent) {
    auto F = std::make_unique<Fork>();
    if (const auto *Switch = llvm::dyn_cast<clang::SwitchStmt>(S)) {
      const auto *Default = llvm::dyn_cast_or_null<clang::DefaultStmt>(Switch->getBody());
      if (!isMarker(Switch->getCond(), "__cfa_corun") || !Default)
        return nullptr;
      F->Body = Default->getSubStmt();
    } else if (const auto *For = llvm::dyn_cast<clang::ForStmt>(S)) {
      if (!isMarker(For->getCond(), "__cfa_cofor"))
        return nullptr;
      const auto *Init = llvm::dyn_cast_or_null<clang::DeclStmt>(For->getInit());
      const auto *Inc = llvm::dyn_cast_or_null<clang::CStyleCastExpr>(For->getInc());
      if (!Init || !Init->isSingleDecl() || !Inc)
        return nullptr;
      F->IsCofor = true;
      F->Index = llvm::dyn_cast<clang::VarDecl>(Init->getSingleDecl());
      if (!F->Index || !F->Index->getInit())
        return nullptr;
      F->Lo = F->Index->getInit();
      F->Hi = Inc->getSubExpr();
      F->Body = For->getBody();
    } else {
      return nullptr;
    }
    F->Construct = S;
    F->Function = Function;
    F->Parent = Parent;
    F->Id = L.nextUniqueId();
    Fork *Raw = F.get();
    ByBody[Raw->Body] = Raw;
    Forks.push_back(std::move(F));
    return Raw;
  }

  // --- (2) checks --------------------------------------------------------

  // Where a node's first and last tokens are in the file (a macro's
  // invocation, for a node inside an expansion).
  clang::SourceLocation fileBegin(clang::SourceLocation Loc) const {
    return Loc.isMacroID() ? SM.getExpansionRange(Loc).getBegin() : Loc;
  }
  clang::SourceLocation fileEnd(clang::SourceLocation Loc) const {
    return Loc.isMacroID() ? SM.getExpansionRange(Loc).getEnd() : Loc;
  }

  bool contains(const clang::Stmt *Outer, clang::SourceLocation Loc) const {
    clang::SourceLocation B = fileBegin(Outer->getBeginLoc()), E = fileEnd(Outer->getEndLoc());
    Loc = SM.getFileLoc(Loc);
    return !SM.isBeforeInTranslationUnit(Loc, B) && !SM.isBeforeInTranslationUnit(E, Loc);
  }

  // Loop or switch that a break (loops only: a continue) at S targets,
  // inside Body; nullptr when it would leave Body.
  const clang::Stmt *jumpTarget(const clang::Stmt *S, const clang::Stmt *Body, bool Continue) {
    for (const clang::Stmt *Cur = S; Cur && Cur != Body;) {
      const clang::Stmt *P = parentOf(Cur);
      if (!P)
        return nullptr;
      if (llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt>(P) ||
          (!Continue && llvm::isa<clang::SwitchStmt>(P)))
        return P;
      Cur = P;
    }
    return nullptr;
  }

  // Declared inside a function (an enumerator: its enum is).
  static bool isLocalDecl(const clang::Decl *D) {
    const clang::DeclContext *DC = D->getDeclContext();
    while (DC && llvm::isa<clang::TagDecl>(DC))
      DC = DC->getParent();
    return DC && DC->isFunctionOrMethod();
  }

  // The declaration of a type named in T (through pointers, arrays,
  // typedefs) that is local to a function, or nullptr.
  static const clang::NamedDecl *localTypeIn(clang::QualType T) {
    for (int Depth = 0; Depth < 64 && !T.isNull(); ++Depth) {
      if (const auto *TD = T->getAs<clang::TypedefType>())
        if (isLocalDecl(TD->getDecl()))
          return TD->getDecl();
      if (const clang::TagDecl *Tag = T->getAsTagDecl())
        return isLocalDecl(Tag) ? Tag : nullptr;
      if (T->isPointerType())
        T = T->getPointeeType();
      else if (const clang::ArrayType *A = T->getAsArrayTypeUnsafe())
        T = A->getElementType();
      else
        return nullptr;
    }
    return nullptr;
  }

  class BodyChecker : public clang::RecursiveASTVisitor<BodyChecker> {
  public:
    BodyChecker(ForkJoin &FJ, Fork &F) : FJ(FJ), F(F) {}
    bool VisitReturnStmt(clang::ReturnStmt *S) {
      if (!mine(S))
        return true;
      FJ.error(S->getBeginLoc(), std::string("return inside a ") + constructName(F) +
                                     " body: the body runs as a task and cannot leave the enclosing function");
      return true;
    }
    bool VisitBreakStmt(clang::BreakStmt *S) {
      if (mine(S) && !FJ.jumpTarget(S, F.Body, false))
        FJ.error(S->getBeginLoc(), std::string("break out of a ") + constructName(F) + " body");
      return true;
    }
    bool VisitContinueStmt(clang::ContinueStmt *S) {
      if (mine(S) && !FJ.jumpTarget(S, F.Body, true))
        FJ.error(S->getBeginLoc(), std::string("continue out of a ") + constructName(F) + " body");
      return true;
    }
    bool VisitGotoStmt(clang::GotoStmt *S) {
      const clang::LabelStmt *Target = S->getLabel()->getStmt();
      if (mine(S) && (!Target || !FJ.contains(F.Body, Target->getBeginLoc())))
        FJ.error(S->getBeginLoc(), std::string("goto out of a ") + constructName(F) + " body");
      return true;
    }
    bool VisitIndirectGotoStmt(clang::IndirectGotoStmt *S) {
      if (mine(S))
        FJ.error(S->getBeginLoc(), std::string("computed goto inside a ") + constructName(F) + " body");
      return true;
    }
    bool VisitDeclRefExpr(clang::DeclRefExpr *E) {
      FJ.checkReference(F, E);
      return true;
    }
    bool VisitTagTypeLoc(clang::TagTypeLoc TL) { return localType(TL.getDecl(), TL.getNameLoc()); }
    bool VisitTypedefTypeLoc(clang::TypedefTypeLoc TL) {
      return localType(TL.getTypedefNameDecl(), TL.getNameLoc());
    }

  private:
    bool mine(const clang::Stmt *S) { return FJ.innermostBody(S) == &F; }
    bool localType(const clang::NamedDecl *D, clang::SourceLocation Loc) {
      if (isLocalDecl(D) && !FJ.contains(F.Body, D->getLocation()) && FJ.innermostBodyAt(Loc) == &F)
        FJ.error(Loc, "the " + std::string(constructName(F)) + " body uses '" + D->getNameAsString() +
                          "', a type declared in the enclosing function: declare it at file scope");
      return true;
    }

    ForkJoin &FJ;
    Fork &F;
  };

  void check(Fork &F) {
    if (F.IsCofor)
      checkRange(F);
    BodyChecker C(*this, F);
    C.TraverseStmt(const_cast<clang::Stmt *>(F.Body));
    checkGotosInto(F);
  }

  void checkRange(Fork &F) {
    clang::QualType Lo = F.Lo->IgnoreParens()->getType(), Hi = F.Hi->IgnoreParens()->getType();
    bool Typed = !F.Index->getType()->getContainedAutoType();
    if (Typed && !F.Index->getType()->isIntegerType()) {
      error(F.Index->getLocation(), "a cofor index has integer type (not '" + F.Index->getType().getAsString() + "')");
      return;
    }
    for (const clang::Expr *E : {F.Lo, F.Hi})
      if (!E->IgnoreParens()->getType()->isIntegerType()) {
        error(E->IgnoreParens()->getExprLoc(), "a cofor range has integer type (not '" +
                                                   E->IgnoreParens()->getType().getAsString() + "')");
        return;
      }
    F.IndexType = Typed ? F.Index->getType().getUnqualifiedType() : commonIntegerType(Lo, Hi);
  }

  // C's usual arithmetic conversions, for two integer types.
  clang::QualType commonIntegerType(clang::QualType A, clang::QualType B) {
    auto Promote = [&](clang::QualType T) {
      T = T.getCanonicalType().getUnqualifiedType();
      if (const auto *E = T->getAs<clang::EnumType>())
        T = E->getDecl()->getIntegerType();
      return Ctx.isPromotableIntegerType(T) ? Ctx.getPromotedIntegerType(T) : T;
    };
    A = Promote(A);
    B = Promote(B);
    if (Ctx.hasSameType(A, B))
      return A;
    bool SA = A->isSignedIntegerType(), SB = B->isSignedIntegerType();
    if (SA == SB)
      return Ctx.getIntegerTypeOrder(A, B) >= 0 ? A : B;
    clang::QualType U = SA ? B : A, S = SA ? A : B;
    if (Ctx.getIntegerTypeOrder(U, S) >= 0)
      return U;
    if (Ctx.getTypeSize(S) > Ctx.getTypeSize(U))
      return S;
    return Ctx.getCorrespondingUnsignedType(S);
  }

  void checkReference(Fork &F, clang::DeclRefExpr *E) {
    const clang::ValueDecl *D = E->getDecl();
    if (D == F.Function)
      F.CallsItsFunction = true;
    if (const auto *EC = llvm::dyn_cast<clang::EnumConstantDecl>(D)) {
      if (isLocalDecl(EC) && !contains(F.Body, EC->getLocation()))
        error(E->getLocation(), "the " + std::string(constructName(F)) + " body uses '" + EC->getNameAsString() +
                                    "', an enumerator declared in the enclosing function: declare it at file scope");
      return;
    }
    const auto *V = llvm::dyn_cast<clang::VarDecl>(D);
    if (!V || !isLocalDecl(V) || V->hasExternalStorage() || contains(F.Body, V->getLocation()) || V == F.Index)
      return;
    if (innermostBody(E) != &F)
      return; // an inner construct's body: checked there
    std::string Name = V->getNameAsString();
    if (V->getType()->isVariablyModifiedType())
      error(E->getLocation(), "a " + std::string(constructName(F)) + " body cannot use '" + Name +
                                  "': its type has a run-time size (a variable-length array)");
    else if (V->getStorageClass() == clang::SC_Register)
      error(E->getLocation(), "a " + std::string(constructName(F)) + " body cannot use the register variable '" +
                                  Name + "' (it has no address)");
    else if (const clang::NamedDecl *T = localTypeIn(V->getType()))
      error(E->getLocation(), "a " + std::string(constructName(F)) + " body cannot use '" + Name +
                                  "': its type '" + T->getNameAsString() +
                                  "' is declared in the enclosing function (declare it at file scope)");
    else if (E->getLocation().isMacroID() && !SM.isMacroArgExpansion(E->getLocation()))
      error(SM.getExpansionLoc(E->getLocation()), "a " + std::string(constructName(F)) + " body uses '" + Name +
                                                      "' inside a macro's text: pass it to the macro as an argument");
  }

  // The nearest statement above S (through declarations: an initializer's
  // parent is its variable, whose parent is the declaration statement).
  const clang::Stmt *parentOf(const clang::Stmt *S) {
    clang::DynTypedNodeList Parents = Ctx.getParents(*S);
    while (!Parents.empty()) {
      if (const auto *P = Parents[0].get<clang::Stmt>())
        return P;
      const auto *D = Parents[0].get<clang::Decl>();
      if (!D || llvm::isa<clang::FunctionDecl>(D))
        return nullptr;
      Parents = Ctx.getParents(*D);
    }
    return nullptr;
  }

  // The innermost construct whose body holds E.
  Fork *innermostBody(const clang::Stmt *E) {
    for (const clang::Stmt *Cur = E; Cur; Cur = parentOf(Cur)) {
      auto It = ByBody.find(Cur);
      if (It != ByBody.end())
        return It->second;
    }
    return nullptr;
  }

  // The innermost construct whose body holds Loc (the last one in
  // pre-order that does).
  Fork *innermostBodyAt(clang::SourceLocation Loc) {
    Fork *Found = nullptr;
    for (auto &F : Forks)
      if (contains(F->Body, Loc))
        Found = F.get();
    return Found;
  }

  // A goto elsewhere in the function to a label inside the body.
  void checkGotosInto(Fork &F) {
    struct GotoFinder : clang::RecursiveASTVisitor<GotoFinder> {
      std::vector<const clang::GotoStmt *> Gotos;
      bool VisitGotoStmt(clang::GotoStmt *S) {
        Gotos.push_back(S);
        return true;
      }
    } G;
    G.TraverseStmt(F.Function->getBody());
    for (const clang::GotoStmt *S : G.Gotos) {
      const clang::LabelStmt *Target = S->getLabel()->getStmt();
      if (Target && contains(F.Body, Target->getBeginLoc()) && !contains(F.Body, S->getBeginLoc()))
        error(S->getBeginLoc(), std::string("goto into a ") + constructName(F) + " body");
    }
  }

  // --- (3) captured references -------------------------------------------

  // Whether V is visible in F's generated function without a capture.
  static bool ownsVariable(const Fork &F, const clang::VarDecl *V, ForkJoin &FJ) {
    return V == F.Index || FJ.contains(F.Body, V->getLocation());
  }

  void addCapture(Fork &F, const clang::VarDecl *V) {
    if (std::find(F.Captures.begin(), F.Captures.end(), V) == F.Captures.end())
      F.Captures.push_back(V);
  }

  static std::string envName(const Fork &F) { return "__cfa_fj" + std::to_string(F.Id); }

  void rewriteReferences(Fork &F) {
    struct Refs : clang::RecursiveASTVisitor<Refs> {
      std::vector<clang::DeclRefExpr *> All;
      bool VisitDeclRefExpr(clang::DeclRefExpr *E) {
        All.push_back(E);
        return true;
      }
    } R;
    R.TraverseStmt(const_cast<clang::Stmt *>(F.Body));
    for (clang::DeclRefExpr *E : R.All) {
      const auto *V = llvm::dyn_cast<clang::VarDecl>(E->getDecl());
      if (!V || !isLocalDecl(V) || V->hasExternalStorage() || ownsVariable(F, V, *this))
        continue;
      if (innermostBody(E) != &F)
        continue;
      // F and every enclosing construct that does not own V capture it.
      for (Fork *C = &F; C && !ownsVariable(*C, V, *this); C = C->Parent)
        addCapture(*C, V);
      clang::SourceLocation Loc = SM.getFileLoc(E->getLocation());
      L.rewriter().ReplaceText(Loc, V->getName().size(), "(*" + envName(F) + "->" + V->getNameAsString() + ")");
    }
  }

  // --- (4) lowering ------------------------------------------------------

  // How the address of V is written where F's construct stands.
  std::string addressAtSite(const Fork &F, const clang::VarDecl *V) {
    const Fork *P = F.Parent;
    if (P && !ownsVariable(*P, V, *this))
      return envName(*P) + "->" + V->getNameAsString();
    return "&" + V->getNameAsString();
  }

  // The last token of a statement: its `;` when it ends in an expression.
  clang::SourceLocation statementEnd(const clang::Stmt *S) {
    clang::SourceLocation End = fileEnd(S->getEndLoc());
    clang::Token T;
    if (!clang::Lexer::getRawToken(End, T, SM, Ctx.getLangOpts()) &&
        (T.is(clang::tok::r_brace) || T.is(clang::tok::semi)))
      return End;
    std::optional<clang::Token> Next = clang::Lexer::findNextToken(End, SM, Ctx.getLangOpts());
    return Next && Next->is(clang::tok::semi) ? Next->getLocation() : End;
  }

  std::string textOf(const clang::Expr *E) {
    return L.rewriter().getRewrittenText(
        clang::SourceRange(fileBegin(E->getBeginLoc()), fileEnd(E->getEndLoc())));
  }

  std::string pointerMember(const clang::VarDecl *V) {
    clang::QualType P = Ctx.getPointerType(V->getType());
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    P.print(OS, Ctx.getPrintingPolicy(), V->getNameAsString());
    return OS.str();
  }

  std::string indexTypeName(const Fork &F) {
    clang::QualType T = F.IndexType.getCanonicalType();
    if (const auto *E = T->getAs<clang::EnumType>())
      T = E->getDecl()->getIntegerType();
    return T.getAsString(Ctx.getPrintingPolicy());
  }

  std::string lineMarker(clang::SourceLocation Loc) {
    clang::PresumedLoc P = SM.getPresumedLoc(Loc);
    std::string File;
    for (char C : llvm::StringRef(P.getFilename())) {
      if (C == '"' || C == '\\')
        File += '\\';
      File += C;
    }
    return "#line " + std::to_string(P.getLine()) + " \"" + File + "\"\n" +
           std::string(P.getColumn() > 0 ? P.getColumn() - 1 : 0, ' ');
  }

  void lower(Fork &F) {
    clang::SourceLocation Begin = fileBegin(F.Construct->getBeginLoc());
    clang::SourceLocation End = statementEnd(F.Construct);
    clang::CharSourceRange Whole = clang::CharSourceRange::getTokenRange(Begin, End);
    std::string N = std::to_string(F.Id), Env = envName(F);
    std::string Struct = "__cfa_fj_" + N, Fn = "__cfa_fj_body_" + N, EnvVar = "__cfa_fjenv_" + N;

    bool Empty = llvm::isa<clang::NullStmt>(F.Body) ||
                 (llvm::isa<clang::CompoundStmt>(F.Body) && llvm::cast<clang::CompoundStmt>(F.Body)->body_empty());
    if (Empty && !F.IsCofor) {
      L.replaceKeepingLines(Whole, ";");
      return;
    }

    // The generated struct and function; members in declaration order.
    std::sort(F.Captures.begin(), F.Captures.end(), [&](const clang::VarDecl *A, const clang::VarDecl *B) {
      return SM.isBeforeInTranslationUnit(A->getLocation(), B->getLocation());
    });
    std::string Members;
    if (F.IsCofor)
      Members += " " + indexTypeName(F) + " __cfa_lo;";
    for (const clang::VarDecl *V : F.Captures)
      Members += " " + pointerMember(V) + ";";
    bool HasEnv = !Members.empty();
    clang::SourceLocation BodyBegin = fileBegin(F.Body->getBeginLoc());
    std::string BodyText = L.rewriter().getRewrittenText(
        clang::SourceRange(BodyBegin, statementEnd(F.Body)));
    std::string Code;
    if (HasEnv)
      Code += "struct " + Struct + " {" + Members + " };\n";
    if (F.IsCofor) {
      std::string T = indexTypeName(F);
      Code += "static void " + Fn + "(int64_t __cfa_first, int64_t __cfa_last, void *__cfa_env) {\n"
              "  struct " + Struct + " *" + Env + " = __cfa_env;\n"
              "  for (int64_t __cfa_k = __cfa_first; __cfa_k < __cfa_last; __cfa_k++) {\n"
              "    " + T + " " + F.Index->getNameAsString() + " = (" + T + ")(" + Env + "->__cfa_lo + (" + T +
              ")__cfa_k);\n    (void)" + F.Index->getNameAsString() + ";\n" + lineMarker(BodyBegin) + BodyText + "\n  }\n}";
    } else {
      Code += "static void " + Fn + "(void *__cfa_env) {\n";
      if (HasEnv)
        Code += "  struct " + Struct + " *" + Env + " = __cfa_env;\n";
      Code += lineMarker(BodyBegin) + BodyText + "\n}";
    }
    const clang::FunctionDecl *Top = F.Function;
    std::string Prototype;
    if (F.CallsItsFunction && PrototypeEmitted.insert(Top).second && Top->hasWrittenPrototype())
      Prototype = L.rewriter().getRewrittenText(clang::SourceRange(
                      fileBegin(Top->getBeginLoc()),
                      fileBegin(Top->getBody()->getBeginLoc()).getLocWithOffset(-1))) + ";\n";
    L.insertBlockBefore(fileBegin(Top->getBeginLoc()), Prototype + Code);

    // The construct's place.
    std::string Init;
    for (const clang::VarDecl *V : F.Captures)
      Init += (Init.empty() ? "" : ", ") + addressAtSite(F, V);
    std::string Site;
    if (F.IsCofor) {
      std::string T = indexTypeName(F);
      std::string Lo = textOf(F.Lo), Hi = textOf(F.Hi);
      std::string Lv = "__cfa_lo_" + N, Hv = "__cfa_hi_" + N;
      Site = "{ " + T + " " + Lv + " = (" + Lo + "), " + Hv + " = (" + Hi + "); ";
      if (Empty) {
        Site += "(void)" + Lv + "; (void)" + Hv + "; }";
      } else {
        Site += "struct " + Struct + " " + EnvVar + " = { " + Lv + (Init.empty() ? "" : ", " + Init) + " }; " +
                "cfa_parallel_for(0, " + Hv + " > " + Lv + " ? (int64_t)((unsigned long long)" + Hv +
                " - (unsigned long long)" + Lv + ") : 0, 0, " + Fn + ", &" + EnvVar + "); }";
      }
    } else {
      std::string G = "__cfa_fjg_" + N;
      if (HasEnv)
        Site += "struct " + Struct + " " + EnvVar + " = { " + Init + " }; ";
      Site += "cfa_task_group " + G + " __attribute__((cleanup(cfa_task_group_wait))) = {0}; " +
              "cfa_task_spawn(&" + G + ", " + Fn + ", " + (HasEnv ? "&" + EnvVar : "(void *)0") + ");";
      // Declarations need a block: the enclosing one where the statement
      // sits directly in it (after labels, a `;` starts the statement).
      const clang::Stmt *P = parentOf(F.Construct);
      bool AfterLabel = false;
      while (P && llvm::isa<clang::LabelStmt, clang::CaseStmt, clang::DefaultStmt>(P)) {
        AfterLabel = true;
        P = parentOf(P);
      }
      const clang::Stmt *Above = P ? parentOf(P) : nullptr;
      bool InBlock = P && llvm::isa<clang::CompoundStmt>(P) && !(Above && llvm::isa<clang::SwitchStmt>(Above));
      if (!InBlock)
        Site = "{ " + Site + " }";
      else if (AfterLabel)
        Site = "; " + Site;
    }
    L.replaceKeepingLines(Whole, Site);
  }
};

} // namespace

void lowerForkJoin(LoweringContext &L) { ForkJoin(L).run(); }

} // namespace cfacc

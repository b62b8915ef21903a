// MonitorLowering: mutex parameters, mutex statements and waitfor
// (docs/language.md sections 4 to 6), the parts that need types. The extension
// lexer has already given the constructs their C shape (see
// ExtensionLexer.h); it marks what it cannot decide without types:
//
//  - a `mutex` parameter carries the annotation "cfa_mutex". Each must be a
//    pointer to a monitor or thread type, and every declaration of a
//    function must agree on which parameters are mutex (the callers of a
//    prototype and the definition must lock the same way). A definition
//    with mutex parameters gets its prologue right after `{`, on the same
//    line:
//        struct cfa_monitor *__cfa_mutex_monitors[] = { (struct cfa_monitor *)&a->__cfa_monitor, ... };
//        struct cfa_mutex_group __cfa_mutex __attribute__((cleanup(cfa_mutex_leave)));
//        cfa_mutex_enter(&__cfa_mutex, __cfa_mutex_monitors, n, (const void *)f);
//    The cleanup attribute releases the monitors on every way out of the
//    call (return, end of body), exactly like the RAII of objects. The
//    function's own address identifies it for waitfor, and is the same in
//    every translation unit; an overloadable function is identified by its
//    name instead, `__cfa_mutex_name(f)` (the address of an object defined
//    weakly at the end of every unit that uses it), so that waitfor(f, m)
//    accepts every overload. (The runtime sorts the monitors, removes
//    duplicates and handles re-entry.)
//  - `__cfa_monitor_of((p))` stands for p's monitor: it becomes
//    `(struct cfa_monitor *)&((p))->__cfa_monitor`, or
//    `...&((p))->__cfa_thread.self_monitor` for a thread (a thread is a
//    monitor); p must point to one of these;
//  - a call of a mutex function passes each mutex parameter a pointer to
//    its type (C would only warn about another pointer type);
//  - each waitfor clause is a call `__cfa_waitfor_add(&W, k,
//    __builtin_choose_expr(0, (f), __cfa_waitfor_unlowered()), n,
//    (struct cfa_monitor *[]){ __cfa_monitor_of((m)), ... })`: f must name
//    mutex functions (one, or overloads) of which one has a mutex parameter
//    of m's type, or, with several monitors, exactly n mutex parameters of
//    their types in order (or f is cfa_join_function, which the lexer
//    writes for `join`: then m must be one thread). The choose expression
//    becomes `(const void *)(f)` or `__cfa_mutex_name(f)`.
#include "ExtensionLexer.h"
#include "Passes.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

#include <set>

namespace cfacc {
namespace {

using namespace clang::ast_matchers;

bool isMutexParameter(const clang::ParmVarDecl *P, bool WrittenHere) {
  for (const auto *A : P->specific_attrs<clang::AnnotateAttr>())
    if (A->getAnnotation() == MutexAnnotation && (!WrittenHere || !A->isInherited()))
      return true;
  return false;
}

const clang::RecordDecl *pointeeRecord(clang::QualType T) {
  if (T.isNull() || !T->isPointerType())
    return nullptr;
  const clang::RecordDecl *RD = T->getPointeeType().getCanonicalType()->getAsRecordDecl();
  return RD ? llvm::cast<clang::RecordDecl>(RD->getCanonicalDecl()) : nullptr;
}

// "->__cfa_monitor" or "->__cfa_thread.self_monitor" for a pointer to a
// monitor or thread, else "".
std::string monitorPath(clang::QualType T) {
  if (T.isNull() || !T->isPointerType())
    return "";
  std::string Member = monitorMemberOf(kindOfType(T->getPointeeType()));
  return Member.empty() ? "" : "->" + Member;
}

// A monitor's state changes under any mutex call, also through a pointer
// to const (as a mutable mutex in C++ would): the address is cast.
const std::string MonitorCast = "(struct cfa_monitor *)";

// The monitor of the object that pointer expression P (of type T) points to.
std::string monitorAddress(const std::string &P, clang::QualType T) {
  return MonitorCast + "&" + P + monitorPath(T);
}

std::string quotedType(clang::QualType T) { return "'" + T.getAsString() + "'"; }

class MonitorCallback : public MatchFinder::MatchCallback {
public:
  explicit MonitorCallback(LoweringContext &L) : L(L) {}

  // The names whose identity this unit uses (overloadable mutex functions).
  std::set<std::string> NamedIdentities;

  void run(const MatchFinder::MatchResult &Result) override {
    if (const auto *FD = Result.Nodes.getNodeAs<clang::FunctionDecl>("function"))
      return onFunction(FD);
    if (const auto *P = Result.Nodes.getNodeAs<clang::ParmVarDecl>("param"))
      return onParameter(P);
    // A call inside an initializer list is reached twice (its syntactic and
    // semantic forms share it): handle each once.
    const auto *MonitorOf = Result.Nodes.getNodeAs<clang::CallExpr>("monitorOf");
    if (MonitorOf && Handled.insert(MonitorOf).second)
      onMonitorOf(MonitorOf);
    const auto *Clause = Result.Nodes.getNodeAs<clang::CallExpr>("clause");
    if (Clause && Handled.insert(Clause).second)
      onWaitforClause(Clause);
    const auto *Call = Result.Nodes.getNodeAs<clang::CallExpr>("mutexCall");
    if (Call && Handled.insert(Call).second)
      onMutexCall(Call);
  }

private:
  LoweringContext &L;
  std::set<const clang::CallExpr *> Handled;

  // A pointer to a monitor or thread; in a declaration without body the
  // type may still be incomplete (`monitor M;`): its name tells.
  bool pointsToMonitor(clang::QualType T, bool AllowIncomplete) {
    if (!monitorPath(T).empty())
      return true;
    const clang::RecordDecl *RD = pointeeRecord(T);
    return AllowIncomplete && RD && !RD->getDefinition() && L.files().monitorTypeNames().contains(RD->getName());
  }

  void onFunction(const clang::FunctionDecl *FD) {
    if (!L.isInUserFile(FD->getLocation()))
      return;
    bool Definition = FD->doesThisDeclarationHaveABody();
    bool Valid = true;
    std::vector<const clang::ParmVarDecl *> Mutex;
    for (const clang::ParmVarDecl *P : FD->parameters()) {
      bool Written = isMutexParameter(P, /*WrittenHere=*/true);
      bool Monitor = pointsToMonitor(P->getType(), !Definition);
      if (Written && !Monitor) {
        L.error(P->getLocation(), "'mutex' parameter '" + P->getName().str() +
                                      "' must be a pointer to a monitor or thread type, not " +
                                      quotedType(P->getType()));
        Valid = false;
      } else if (!Written && Monitor && P->getName() == "mutex") {
        // `M *mutex` without a name declares a parameter named mutex.
        L.error(P->getLocation(), "a parameter named 'mutex' of type " + quotedType(P->getType()) +
                                      ": a mutex parameter needs a name, as in 'M *mutex m'");
        Valid = false;
      }
      if (Written)
        Mutex.push_back(P);
    }
    Valid &= agreesWithPreviousDeclaration(FD);
    if (Valid && Definition && !Mutex.empty())
      insertPrologue(FD, Mutex);
  }

  bool agreesWithPreviousDeclaration(const clang::FunctionDecl *FD) {
    const clang::FunctionDecl *Prev = FD->getPreviousDecl();
    if (!Prev || Prev->getNumParams() != FD->getNumParams())
      return true;
    for (unsigned I = 0; I < FD->getNumParams(); ++I) {
      const clang::ParmVarDecl *P = FD->getParamDecl(I);
      bool Here = isMutexParameter(P, true), Before = isMutexParameter(Prev->getParamDecl(I), false);
      if (Here == Before)
        continue;
      L.error(P->getLocation(), "parameter " + std::to_string(I + 1) + " of '" + FD->getName().str() + "' is " +
                                    (Here ? "'mutex' here but not" : "not 'mutex' here but is") +
                                    " in an earlier declaration");
      return false;
    }
    return true;
  }

  // The name the function has in the emitted C (a type main is renamed to
  // its record's tag by ThreadMainLowering).
  std::string emittedName(const clang::FunctionDecl *FD) {
    llvm::StringRef Name = FD->getName();
    if (Name.starts_with(TypeMainPrefix) && FD->getNumParams() == 1)
      if (const clang::RecordDecl *RD = pointeeRecord(FD->getParamDecl(0)->getType()))
        return TypeMainPrefix + RD->getName().str();
    return Name.str();
  }

  void insertPrologue(const clang::FunctionDecl *FD, const std::vector<const clang::ParmVarDecl *> &Mutex) {
    const auto *Body = llvm::dyn_cast_or_null<clang::CompoundStmt>(FD->getBody());
    if (!Body) {
      L.error(FD->getLocation(), "cfacc did not parse the body of mutex function '" + FD->getName().str() +
                                     "' (compiler bug)");
      return;
    }
    if (!L.isUserCode(Body->getLBracLoc())) {
      L.error(FD->getLocation(), "a mutex function cannot be defined by a macro expansion");
      return;
    }
    std::string Name = emittedName(FD);
    std::string Monitors;
    for (const clang::ParmVarDecl *P : Mutex) {
      if (P->getName() == FD->getName()) {
        L.error(P->getLocation(), "a mutex parameter cannot have its function's name '" + Name +
                                      "': waitfor identifies the function by it");
        return;
      }
      Monitors += (Monitors.empty() ? " " : ", ") + monitorAddress(P->getName().str(), P->getType());
    }
    L.rewriter().InsertTextAfterToken(
        Body->getLBracLoc(), " struct cfa_monitor *__cfa_mutex_monitors[] = {" + Monitors +
                                 " }; struct cfa_mutex_group __cfa_mutex __attribute__((cleanup(cfa_mutex_leave))); "
                                 "cfa_mutex_enter(&__cfa_mutex, __cfa_mutex_monitors, " +
                                 std::to_string(Mutex.size()) + ", " + identity(FD, Name) + ");");
  }

  // What identifies function FD (emitted as Name) for waitfor.
  std::string identity(const clang::FunctionDecl *FD, const std::string &Name) {
    return FD->hasAttr<clang::OverloadableAttr>() ? identityByName(Name) : "(const void *)" + Name;
  }

  // The identity shared by the overloadable mutex functions named Name.
  std::string identityByName(const std::string &Name) {
    NamedIdentities.insert(Name);
    return "__cfa_mutex_name(" + Name + ")";
  }

  // `mutex` in a function type (a function pointer's parameters) has no
  // call to guard.
  void onParameter(const clang::ParmVarDecl *P) {
    if (!isMutexParameter(P, true) || !L.isInUserFile(P->getLocation()))
      return;
    const auto *Owner = llvm::dyn_cast<clang::FunctionDecl>(P->getDeclContext());
    if (Owner && llvm::is_contained(Owner->parameters(), P))
      return;
    L.error(P->getLocation(), "'mutex' applies to the parameters of a function, not of a function type");
  }

  void onMonitorOf(const clang::CallExpr *C) {
    if (C->getNumArgs() != 1 || !L.isInUserFile(C->getBeginLoc()))
      return;
    const clang::Expr *Arg = C->getArg(0); // converted as for a call without prototype
    std::string Path = monitorPath(Arg->getType());
    if (Path.empty()) {
      L.error(Arg->IgnoreParenImpCasts()->getBeginLoc(),
              "expected a pointer to a monitor or thread, not " + quotedType(Arg->getType()));
      return;
    }
    clang::SourceLocation Callee = C->getCallee()->IgnoreImpCasts()->getBeginLoc();
    if (!L.isUserCode(Callee) || !L.isUserCode(C->getRParenLoc()))
      return;
    L.rewriter().ReplaceText(Callee, llvm::StringRef("__cfa_monitor_of").size(), MonitorCast + "&");
    L.rewriter().InsertTextAfterToken(C->getRParenLoc(), Path);
  }

  // C converts any object pointer to a parameter's pointer type with only
  // a warning; for a mutex parameter the callee would lock a monitor that
  // is not there, so a pointer to another type is an error. A `void *`
  // (from malloc, say) converts silently in C and is accepted.
  void onMutexCall(const clang::CallExpr *C) {
    const clang::FunctionDecl *F = C->getDirectCallee();
    if (!F || !L.isInUserFile(C->getBeginLoc()))
      return;
    for (unsigned I = 0; I < C->getNumArgs() && I < F->getNumParams(); ++I) {
      const clang::ParmVarDecl *P = F->getParamDecl(I);
      if (!isMutexParameter(P, false))
        continue;
      const clang::RecordDecl *Wanted = pointeeRecord(P->getType());
      const clang::Expr *Arg = C->getArg(I)->IgnoreParenImpCasts();
      clang::QualType Given = Arg->getType();
      if (!Wanted || !Given->isPointerType() || Given->isVoidPointerType() || pointeeRecord(Given) == Wanted)
        continue;
      L.error(Arg->getBeginLoc(), "mutex parameter '" + P->getName().str() + "' of '" + F->getName().str() +
                                      "' needs a pointer to '" + Wanted->getName().str() + "', not " +
                                      quotedType(Given));
    }
  }

  // The mutex parameter types of F, in order (the declarations agree).
  static std::vector<clang::QualType> mutexTypes(const clang::FunctionDecl *F) {
    std::vector<clang::QualType> Types;
    for (const clang::ParmVarDecl *P : F->parameters())
      if (isMutexParameter(P, false))
        Types.push_back(P->getType());
    return Types;
  }

  static std::string typeList(const std::vector<clang::QualType> &Types) {
    std::string Out;
    for (clang::QualType T : Types)
      Out += (Out.empty() ? "" : ", ") + quotedType(T);
    return "(" + Out + ")";
  }

  void onWaitforClause(const clang::CallExpr *C) {
    if (C->getNumArgs() != 5 || !L.isInUserFile(C->getBeginLoc()))
      return;
    // Not IgnoreParens: it would step into the chosen operand.
    const auto *Choice = llvm::dyn_cast<clang::ChooseExpr>(C->getArg(2)->IgnoreImpCasts());
    const auto *List = llvm::dyn_cast<clang::CompoundLiteralExpr>(C->getArg(4)->IgnoreParenImpCasts());
    const auto *Init = List ? llvm::dyn_cast<clang::InitListExpr>(List->getInitializer()) : nullptr;
    if (!Choice || !Init)
      return;
    // The monitors: their types, and where to point at each.
    std::vector<clang::QualType> Types;
    std::vector<clang::SourceLocation> Locs;
    for (const clang::Expr *E : Init->inits()) {
      const auto *MonitorOf = llvm::dyn_cast<clang::CallExpr>(E->IgnoreParenImpCasts());
      if (!MonitorOf || MonitorOf->getNumArgs() != 1)
        return;
      const clang::Expr *Monitor = MonitorOf->getArg(0);
      if (monitorPath(Monitor->getType()).empty())
        return; // onMonitorOf reports it
      Types.push_back(Monitor->getType());
      Locs.push_back(Monitor->IgnoreParenImpCasts()->getBeginLoc());
    }
    const clang::Expr *Function = Choice->getLHS()->IgnoreParens();
    std::string Identity = functionIdentity(Function, Types, Locs);
    if (Identity.empty())
      return;
    // `__builtin_choose_expr(0, (f), __cfa_waitfor_unlowered())` -> the identity.
    clang::SourceManager &SM = L.sources();
    clang::SourceLocation Begin = Choice->getBeginLoc(), End = Choice->getRParenLoc();
    if (!Begin.isFileID() || !End.isFileID())
      return;
    const auto *Paren = llvm::dyn_cast<clang::ParenExpr>(Choice->getLHS());
    if (Identity == "(const void *)" && Paren) { // keep the user's tokens: (const void *)(f)
      unsigned Head = SM.getFileOffset(Paren->getLParen()) - SM.getFileOffset(Begin);
      unsigned Tail = SM.getFileOffset(End) - SM.getFileOffset(Paren->getRParen());
      L.rewriter().ReplaceText(Begin, Head, Identity);
      L.rewriter().RemoveText(Paren->getRParen().getLocWithOffset(1), Tail);
    } else {
      L.rewriter().ReplaceText(clang::SourceRange(Begin, End), Identity);
    }
  }

  // The identity of the function a waitfor clause names (checked against
  // its monitors), "(const void *)" to keep the name as written, or "" after
  // an error.
  std::string functionIdentity(const clang::Expr *Function, const std::vector<clang::QualType> &Types,
                               const std::vector<clang::SourceLocation> &Locs) {
    std::vector<const clang::FunctionDecl *> Candidates;
    std::string Name;
    clang::SourceLocation NameLoc = Function->getBeginLoc();
    if (const auto *Ref = llvm::dyn_cast<clang::DeclRefExpr>(Function)) {
      Name = Ref->getDecl()->getName().str();
      if (Name == "cfa_join_function") {
        if (Types.size() != 1)
          L.error(Locs[1], "waitfor(join, t) names one thread, the one whose join it accepts");
        else if (kindOfType(Types[0]->getPointeeType()) != ExtensionKind::Thread)
          L.error(Locs[0], "waitfor(join, t) accepts the join of thread t ('this' in its main), and " +
                               quotedType(Types[0]) + " is not a pointer to a thread");
        return "(const void *)";
      }
      if (const auto *F = llvm::dyn_cast<clang::FunctionDecl>(Ref->getDecl()))
        Candidates.push_back(F);
      else {
        L.error(NameLoc, "'" + Name + "' is not a function: waitfor needs the name of a mutex function");
        return "";
      }
    } else if (const auto *Set = llvm::dyn_cast<clang::UnresolvedLookupExpr>(Function)) {
      Name = Set->getName().getAsString();
      for (const clang::NamedDecl *D : Set->decls())
        if (const auto *F = llvm::dyn_cast<clang::FunctionDecl>(D->getUnderlyingDecl()))
          Candidates.push_back(F);
    }
    if (Candidates.empty()) {
      L.error(NameLoc, "waitfor needs the name of a mutex function");
      return "";
    }
    // The overloads that are mutex functions; a set of them is identified
    // by name, which the one function without `overloadable` C allows
    // among them would not share.
    std::vector<const clang::FunctionDecl *> Mutex;
    bool Plain = false;
    for (const clang::FunctionDecl *F : Candidates) {
      if (mutexTypes(F).empty())
        continue;
      Mutex.push_back(F);
      Plain |= !F->hasAttr<clang::OverloadableAttr>();
    }
    if (Mutex.empty()) {
      L.error(NameLoc, "'" + Name + "' is not a mutex function: waitfor accepts calls of "
                                   "functions with mutex parameters");
      return "";
    }
    bool Overloaded = Candidates.size() > 1 || Candidates[0]->hasAttr<clang::OverloadableAttr>();
    if (Overloaded && Plain) {
      L.error(NameLoc, "the mutex functions named '" + Name + "' are not all 'overloadable': waitfor "
                       "identifies overloaded mutex functions by name; give each the attribute");
      return "";
    }
    if (!checkMonitors(Name, Mutex, Types, Locs, NameLoc))
      return "";
    return Overloaded ? identityByName(Name) : "(const void *)";
  }

  // One monitor: some function has a mutex parameter of its type. Several:
  // some function's mutex parameters have their types, in order.
  bool checkMonitors(const std::string &Name, const std::vector<const clang::FunctionDecl *> &Mutex,
                     const std::vector<clang::QualType> &Types, const std::vector<clang::SourceLocation> &Locs,
                     clang::SourceLocation NameLoc) {
    std::vector<const clang::RecordDecl *> Wanted;
    for (clang::QualType T : Types)
      Wanted.push_back(pointeeRecord(T));
    for (const clang::FunctionDecl *F : Mutex) {
      std::vector<const clang::RecordDecl *> Records;
      for (clang::QualType T : mutexTypes(F))
        Records.push_back(pointeeRecord(T));
      if (Wanted.size() == 1 ? llvm::is_contained(Records, Wanted[0]) : Records == Wanted)
        return true;
    }
    if (Types.size() == 1) {
      L.error(Locs[0], "'" + Name + "' has no mutex parameter of type " + quotedType(Types[0]) + ": waitfor(" +
                           Name + ", m) accepts its calls with m as a mutex argument");
      return false;
    }
    std::string What = Mutex.size() > 1 ? "no overload of '" + Name + "' has the mutex parameters " + typeList(Types)
                                         : "the mutex parameters of '" + Name + "' are " +
                                               typeList(mutexTypes(Mutex[0])) + ", not " + typeList(Types);
    L.error(NameLoc, What + ": waitfor(" + Name + ", a, b, ...) accepts calls whose mutex arguments are "
                            "exactly a, b, ...");
    return false;
  }
};

} // namespace

void lowerMonitors(LoweringContext &L) {
  MonitorCallback Callback(L);
  MatchFinder Finder;
  Finder.addMatcher(functionDecl().bind("function"), &Callback);
  Finder.addMatcher(parmVarDecl(hasAttr(clang::attr::Annotate)).bind("param"), &Callback);
  Finder.addMatcher(callExpr(callee(functionDecl(hasName("__cfa_monitor_of")))).bind("monitorOf"), &Callback);
  Finder.addMatcher(callExpr(callee(functionDecl(hasName("__cfa_waitfor_add")))).bind("clause"), &Callback);
  Finder.addMatcher(callExpr(callee(functionDecl(hasAnyParameter(hasAttr(clang::attr::Annotate))))).bind("mutexCall"),
                    &Callback);
  Finder.matchAST(L.ast());
  // Weak: every unit that uses a name's identity defines it, and the
  // linker keeps one.
  std::string Definitions;
  for (const std::string &Name : Callback.NamedIdentities)
    Definitions += "__attribute__((weak)) const char __cfa_mutex_id_" + Name + ";\n";
  if (!Definitions.empty())
    L.rewriter().InsertTextAfter(L.sources().getLocForEndOfFile(L.sources().getMainFileID()),
                                 "\n/* cfacc: the identities of overloaded mutex functions. */\n" + Definitions);
}

} // namespace cfacc

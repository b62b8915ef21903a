// HelperEmitter: writes the C the other passes refer to.
//
//  - after each thread or coroutine definition (the `;` that ends it): the
//    per-type helpers: a prototype of its main and a trampoline with the
//    runtime's `void (*)(void *)` signature; join/unpark (threads) or
//    resume (coroutines), the bodies of the overloads the extension lexer
//    declared; start/destroy for arrays of n objects; delete; and one
//    cleanup function per array size used with that type (and one for
//    the guards of its run-time-sized arrays, when there are any);
//  - in the main file right after the prelude's include: the cleanup
//    functions for processors and clusters, which are prelude types;
//  - at the end of the main file: one constructor starting every object
//    with static storage in declaration order, and one destructor stopping
//    them in reverse, after main returns. They run after the runtime's own
//    constructor (priority 101) and before its destructor.
#include "ExtensionLexer.h"
#include "Passes.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Lex/Lexer.h"

namespace cfacc {
namespace {

using namespace clang::ast_matchers;

// Generated functions have no debug information (nodebug): they take no
// line of the user's, and a debugger's `step` goes over them into the
// user's code, as over a library function. None of them calls user code
// (whose debug information would go if it were inlined into one), but
// the trampoline, which has the type definition's line.
const char *const Inline = "static inline __attribute__((unused, nodebug)) ";
const char *const Overload = "static inline __attribute__((overloadable, unused, nodebug)) ";
const char *const Helper = "static __attribute__((nodebug)) ";
// A cleanup function's parameter must accept the address of the object,
// volatile ones included (const ones are rejected: the runtime updates them).
const char *const CleanupParameter = "volatile void *p";

std::string threadHelpers(const TypeHelpers &H, const std::string &T) {
  const std::string &N = H.Name;
  std::string D = ThreadDescriptorMember;
  std::string Out;
  Out += Overload + T + " *join(" + T + " *t) { cfa_thread_join(&t->" + D + "); return t; }\n";
  Out += Overload + std::string("void unpark(") + T + " *t) __CFA_IF_NOT_NULL(t) { if (t) cfa_unpark(&t->" + D +
         "); }\n";
  if (H.Main)
    Out += Inline + T + " *__cfa_start_" + N + "(" + T + " *o, size_t n) { for (size_t i = 0; i < n; i++) "
           "cfa_thread_start(&o[i]." + D + ", __cfa_trampoline_" + N + ", &o[i], \"" + N +
           "\", 0); return o; }\n";
  Out += Inline + std::string("void __cfa_destroy_") + N + "(" + T + " *o, size_t n) { while (n--) "
         "cfa_thread_destroy(&o[n]." + D + "); }\n";
  Out += Inline + std::string("void __cfa_delete_") + N + "(" + T + " *o) { if (o) { cfa_thread_destroy(&o->" +
         D + "); __builtin_free(o); } }\n";
  return Out;
}

std::string coroutineHelpers(const TypeHelpers &H, const std::string &T) {
  const std::string &N = H.Name;
  std::string D = CoroutineDescriptorMember;
  std::string Out;
  if (H.Main)
    Out += Overload + T + " *resume(" + T + " *c) { if (c->" + D + ".state == CFA_COROUTINE_INACTIVE) "
           "cfa_coroutine_setup(&c->" + D + ", __cfa_trampoline_" + N + ", c, \"" + N + "\"); "
           "cfa_coroutine_resume(&c->" + D + "); return c; }\n";
  Out += Inline + std::string("void __cfa_destroy_") + N + "(" + T + " *o, size_t n) { while (n--) "
         "cfa_coroutine_destroy(&o[n]." + D + "); }\n";
  Out += Inline + std::string("void __cfa_delete_") + N + "(" + T + " *o) { if (o) { cfa_coroutine_destroy(&o->" +
         D + "); __builtin_free(o); } }\n";
  return Out;
}

std::string typeHelpers(const TypeHelpers &H) {
  std::string T = "struct " + H.Name;
  std::string Out;
  if (H.Main) {
    clang::QualType Param = H.Main->getParamDecl(0)->getType().getCanonicalType();
    // The trampoline keeps its debug information (the user's main is
    // inlined into it, and a function without any loses that of what it
    // inlines) and takes the line of the type's definition, which the
    // block starts on (LoweringContext::insertBlockBefore).
    Out += std::string(H.MainIsStatic ? "static " : "") + "void " + TypeMainPrefix + H.Name + "(" +
           Param.getAsString() + "); ";
    Out += "static void __cfa_trampoline_" + H.Name + "(void *object) { " + TypeMainPrefix + H.Name +
           "(object); }\n";
  }
  Out += H.Kind == ExtensionKind::Thread ? threadHelpers(H, T) : coroutineHelpers(H, T);
  for (uint64_t Count : H.CleanupCounts)
    Out += std::string(Helper) + "void __cfa_cleanup_" + H.Name + "_" + std::to_string(Count) + "(" + CleanupParameter +
           ") { __cfa_destroy_" + H.Name + "((" + T + " *)p, " + std::to_string(Count) + "); }\n";
  if (H.GuardCleanup)
    Out += std::string(Helper) + "void __cfa_cleanup_" + H.Name + "_array(struct __cfa_array_guard *g) { __cfa_destroy_" +
           H.Name + "((" + T + " *)g->objects, g->count); }\n";
  return Out;
}

// The `;` that ends the declaration whose struct body closes at BraceEnd.
clang::SourceLocation declarationEnd(LoweringContext &L, clang::SourceLocation BraceEnd) {
  const clang::SourceManager &SM = L.sources();
  const clang::LangOptions &LO = L.ast().getLangOpts();
  int Depth = 0;
  clang::SourceLocation Loc = BraceEnd;
  for (int Steps = 0; Steps < 100000; ++Steps) {
    std::optional<clang::Token> Tok = clang::Lexer::findNextToken(Loc, SM, LO);
    if (!Tok || Tok->is(clang::tok::eof))
      return {};
    if (Tok->isOneOf(clang::tok::l_paren, clang::tok::l_brace, clang::tok::l_square))
      ++Depth;
    else if (Tok->isOneOf(clang::tok::r_paren, clang::tok::r_brace, clang::tok::r_square))
      --Depth;
    else if (Depth == 0 && Tok->is(clang::tok::semi))
      return Tok->getLocation();
    Loc = Tok->getLocation();
  }
  return {};
}

class RecordCallback : public MatchFinder::MatchCallback {
public:
  explicit RecordCallback(LoweringContext &L) : L(L) {}
  void run(const MatchFinder::MatchResult &Result) override {
    const auto *RD = Result.Nodes.getNodeAs<clang::RecordDecl>("record");
    ExtensionKind K = kindOfType(L.ast().getRecordType(RD));
    if ((K != ExtensionKind::Thread && K != ExtensionKind::Coroutine) || !L.isUserCode(RD->getLocation()) ||
        !RD->getDeclContext()->isFileContext())
      return;
    clang::SourceLocation Semi = declarationEnd(L, RD->getBraceRange().getEnd());
    if (Semi.isInvalid() || !L.isUserCode(Semi)) {
      L.error(RD->getBraceRange().getEnd(), "expected ';' after the definition of " +
                                                std::string(kindName(K)) + " '" + RD->getName().str() + "'");
      return;
    }
    L.insertBlockAfterToken(Semi, typeHelpers(L.helpersFor(RD)));
  }

private:
  LoweringContext &L;
};

std::string genericCleanups(LoweringContext &L) {
  std::string Out;
  for (uint64_t Count : L.genericCleanupCounts(ExtensionKind::Processor))
    Out += std::string(Helper) + "void __cfa_cleanup_processor_" + std::to_string(Count) + "(" + CleanupParameter +
           ") { __cfa_processors_stop((processor *)p, " + std::to_string(Count) + "); }\n";
  for (uint64_t Count : L.genericCleanupCounts(ExtensionKind::Cluster))
    Out += std::string(Helper) + "void __cfa_cleanup_cluster_" + std::to_string(Count) + "(" + CleanupParameter +
           ") { __cfa_clusters_destroy((cluster *)p, " + std::to_string(Count) + "); }\n";
  return Out;
}

std::string staticObjectFunctions(LoweringContext &L) {
  const std::vector<StaticObject> &Statics = L.staticObjects();
  std::string Starts, Stops;
  for (const StaticObject &O : Statics) {
    std::string Start = L.startFunction(O.Shape);
    if (!Start.empty())
      Starts += "  " + Start + "(" + L.elementPointerCast(O.Shape) + "&" + O.Expression + ", " +
                std::to_string(O.Shape.Count) + ");\n";
  }
  for (auto It = Statics.rbegin(); It != Statics.rend(); ++It)
    Stops += "  " + L.destroyFunction(It->Shape) + "(" + L.elementPointerCast(It->Shape) + "&" +
             It->Expression + ", " + std::to_string(It->Shape.Count) + ");\n";
  if (Stops.empty())
    return "";
  return "\n/* cfacc: objects with static storage start before main and stop after it. */\n"
         "__attribute__((constructor, nodebug)) static void __cfa_start_static_objects(void) {\n" + Starts +
         "}\n__attribute__((destructor, nodebug)) static void __cfa_stop_static_objects(void) {\n" + Stops +
         "}\n";
}

} // namespace

void emitHelpers(LoweringContext &L, clang::FileID MainFile) {
  RecordCallback Callback(L);
  MatchFinder Finder;
  Finder.addMatcher(recordDecl(isDefinition()).bind("record"), &Callback);
  Finder.matchAST(L.ast());

  clang::SourceManager &SM = L.sources();
  std::string Cleanups = genericCleanups(L);
  if (!Cleanups.empty()) {
    // Right after the prologue's `#include <cfa/prelude.h>` line.
    auto Entry = SM.getFileEntryRefForID(MainFile);
    if (const DesugaredFile *D = Entry ? L.files().lookup(Entry->getName()) : nullptr)
      L.rewriter().InsertTextAfter(SM.getLocForStartOfFile(MainFile).getLocWithOffset(D->PreludeEnd), Cleanups);
  }
  std::string Statics = staticObjectFunctions(L);
  if (!Statics.empty())
    L.rewriter().InsertTextAfter(SM.getLocForEndOfFile(MainFile), Statics);
}

} // namespace cfacc

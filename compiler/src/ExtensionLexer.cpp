// ExtensionLexer: see ExtensionLexer.h. The scan works on the file's code
// tokens (CodeTokens: directive lines removed) and records edits on original
// offsets; the output is assembled from the edits in one pass, which also
// builds the SourceMap. Edits never overlap: each pattern consumes its
// tokens, and a token inside a range already replaced is never looked at
// again. Statement-level constructs (mutex statements, waitfor) take their
// shape from StatementSyntax.
#include "ExtensionLexer.h"

#include "CodeTokens.h"
#include "LeadingDirectives.h"
#include "StatementSyntax.h"

#include <algorithm>
#include <map>

namespace cfacc {
namespace {

struct Edit {
  unsigned Begin, End; // original range replaced (Begin == End: insertion)
  std::string Replacement;
  unsigned Anchor;     // where synthesized text maps back to
  unsigned Sequence;   // creation order
  bool Closer;         // an insertion that closes a construct opened earlier
};

// Output order of edits. At one offset, insertions come before a
// replacement (which consumes the offset); among insertions, closers come
// first (what ends there ends before what starts there), closers of inner
// constructs (created later: the scan goes outside in) before outer ones,
// and openers in creation order (outer first).
bool editBefore(const Edit &A, const Edit &B) {
  if (A.Begin != B.Begin)
    return A.Begin < B.Begin;
  bool InsertA = A.Begin == A.End, InsertB = B.Begin == B.End;
  if (InsertA != InsertB)
    return InsertA;
  if (InsertA && A.Closer != B.Closer)
    return A.Closer;
  if (InsertA && A.Closer)
    return A.Sequence > B.Sequence;
  return A.Sequence < B.Sequence;
}

bool isTimeUnit(llvm::StringRef Word) {
  return Word == "ns" || Word == "us" || Word == "ms" || Word == "s";
}

class Desugarer {
public:
  Desugarer(llvm::StringRef Source, llvm::StringRef PresumedName)
      : Source(Source), PresumedName(PresumedName), Code(Source), Tokens(Code.tokens()),
        Partner(Code.partners()), DeclaresOwnNew(declaresFunctionNamed("new")),
        DeclaresOwnSuspend(declaresFunctionNamed("suspend")),
        DeclaresOwnCorun(declaresFunctionNamed("corun")), DeclaresOwnCofor(declaresFunctionNamed("cofor")),
        Statements(Code, !declaresFunctionNamed("waitfor")) {}

  DesugaredFile run() {
    for (size_t I = 0; I < Tokens.size(); ++I)
      I = desugarAt(I);
    collectTopLevelGroups();
    return assemble();
  }

private:
  llvm::StringRef Source;
  llvm::StringRef PresumedName;
  CodeTokens Code;
  const std::vector<CodeToken> &Tokens;
  const std::vector<size_t> &Partner; // index of the matching bracket, or None
  std::vector<Edit> Edits;
  std::map<unsigned, unsigned> Replaced; // Begin -> End of replacing edits
  DesugaredFile Result;
  bool DeclaresOwnNew; // the file's C code has a function named new
  bool DeclaresOwnSuspend; // ... a function named suspend
  bool DeclaresOwnCorun, DeclaresOwnCofor; // ... named corun, cofor
  StatementSyntax Statements;
  unsigned StatementCounter = 0; // names the variables of mutex and waitfor statements
  static constexpr size_t None = CodeTokens::None;

  void collectTopLevelGroups() {
    std::vector<unsigned> EditBegins;
    for (const Edit &E : Edits)
      EditBegins.push_back(E.Begin);
    std::sort(EditBegins.begin(), EditBegins.end());
    for (size_t I = 0; I < Tokens.size(); ++I) {
      if (Tokens[I].Kind != clang::tok::l_brace || Partner[I] == None)
        continue;
      size_t Close = Partner[I];
      std::vector<std::string> Names;
      for (size_t J = I + 1; J < Close; ++J)
        if (Tokens[J].Kind == clang::tok::raw_identifier)
          Names.push_back(Tokens[J].Text.str());
      std::sort(Names.begin(), Names.end());
      Names.erase(std::unique(Names.begin(), Names.end()), Names.end());
      // An edit on a line the body shares (a renamed `main` before its
      // `{`, say) moves the columns of that line in the emitted C, where
      // stage 2 would report a skipped body's errors: parse it here instead.
      unsigned From = lineStart(Tokens[I].Offset), To = lineEnd(Tokens[Close].Offset);
      auto FirstEdit = std::lower_bound(EditBegins.begin(), EditBegins.end(), From);
      bool Desugared = FirstEdit != EditBegins.end() && *FirstEdit <= To;
      Result.Groups.push_back({Tokens[I].Offset, Tokens[Close].Offset, std::move(Names), Desugared});
      I = Close;
    }
  }

  unsigned lineStart(unsigned Offset) const {
    size_t NL = Source.rfind('\n', Offset);
    return NL == llvm::StringRef::npos ? 0 : static_cast<unsigned>(NL + 1);
  }
  unsigned lineEnd(unsigned Offset) const {
    size_t NL = Source.find('\n', Offset);
    return NL == llvm::StringRef::npos ? static_cast<unsigned>(Source.size()) : static_cast<unsigned>(NL);
  }

  bool isWord(size_t I, llvm::StringRef Word) const { return Code.isWord(I, Word); }
  bool isKind(size_t I, clang::tok::TokenKind K) const { return Code.isKind(I, K); }
  bool isName(size_t I) const { return Code.isName(I); }
  bool followsMemberAccess(size_t I) const { return Code.followsMemberAccess(I); }
  unsigned endOf(size_t I) const { return Code.endOf(I); }

  void addEdit(unsigned Begin, unsigned End, std::string Text, unsigned Anchor, bool Closer = false) {
    Edits.push_back({Begin, End, std::move(Text), Anchor, static_cast<unsigned>(Edits.size()), Closer});
    if (Begin < End)
      Replaced[Begin] = End;
  }
  // Inserts Text after token I, closing a construct (see editBefore).
  void closeAfter(size_t I, std::string Text, unsigned Anchor) {
    addEdit(endOf(I), endOf(I), std::move(Text), Anchor, /*Closer=*/true);
  }
  void replaceToken(size_t I, std::string Text) {
    addEdit(Tokens[I].Offset, endOf(I), std::move(Text), Tokens[I].Offset);
  }
  void error(unsigned Offset, std::string Message) {
    Result.Errors.push_back({Offset, std::move(Message)});
  }

  // Returns the index of the last token the pattern consumed.
  size_t desugarAt(size_t I) {
    const CodeToken &T = Tokens[I];
    if (insideReplacement(T.Offset))
      return I; // consumed by an earlier pattern (a later clause of a waitfor, say)
    if (T.Kind == clang::tok::unknown && T.Text == "`")
      return desugarTimeLiteral(I);
    if (T.Kind != clang::tok::raw_identifier || followsMemberAccess(I))
      return I;
    if (T.Text == "thread" || T.Text == "coroutine" || T.Text == "monitor")
      return desugarAggregate(I);
    if (T.Text == "main")
      return desugarTypeMain(I);
    if (T.Text == "new")
      return desugarNew(I);
    if (T.Text == "mutex") {
      if (Statements.isMutexStatement(I))
        return desugarMutexStatement(I);
      if (Statements.isMutexWithoutBlock(I)) {
        error(T.Offset, "the body of a mutex statement is a block: mutex (a, b) { ... }");
        blankTokens(I, Partner[I + 1]); // the body stays, as an ordinary statement
        return I;
      }
      return desugarMutexParameter(I);
    }
    if ((T.Text == "waitfor" || T.Text == "when") && Statements.atStatementStart(I))
      return desugarWaitfor(I);
    if (T.Text == "suspend")
      return desugarSuspendStatement(I);
    if (T.Text == "corun" && !DeclaresOwnCorun)
      return desugarCorun(I);
    if (T.Text == "cofor" && !DeclaresOwnCofor)
      return desugarCofor(I);
    return I;
  }

  // corun S  ->  switch (__cfa_corun) default: S
  // (a switch, not an if: an `else` after S still belongs to the enclosing
  // if). The fork-join pass lowers it. Only at a statement start, and not
  // where the word is an operand (`corun = 1;`, `corun[i]`).
  size_t desugarCorun(size_t I) {
    if (!Statements.atStatementStart(I) || I + 1 >= Tokens.size())
      return I;
    switch (Tokens[I + 1].Kind) {
    case clang::tok::equal: case clang::tok::l_square: case clang::tok::period: case clang::tok::arrow:
    case clang::tok::plusplus: case clang::tok::minusminus: case clang::tok::comma:
    case clang::tok::plusequal: case clang::tok::minusequal: case clang::tok::starequal:
    case clang::tok::slashequal: case clang::tok::colon:
      return I;
    default:
      break;
    }
    replaceToken(I, "switch (__cfa_corun) default:");
    return I;
  }

  // cofor (i; lo ~ hi) S  ->  for (__auto_type i = (lo); __cfa_cofor; (void)(hi)) S
  // cofor (i; N) S        ->  for (__auto_type i = 0; __cfa_cofor; (void)(N)) S
  // cofor (T i; ...) S    ->  for (T i = ...
  // The fork-join pass lowers the loop; the index type is the common type
  // of lo and hi. `~` separates the bounds where it follows an operand
  // (elsewhere it is the complement operator).
  size_t desugarCofor(size_t I) {
    if (!Statements.atStatementStart(I) || !isKind(I + 1, clang::tok::l_paren) || Partner[I + 1] == None)
      return I;
    size_t Open = I + 1, Close = Partner[Open], Semi = None, Tilde = None;
    for (size_t J = Open + 1; J < Close; ++J) {
      if (Partner[J] != None && Partner[J] > J) {
        J = Partner[J];
        continue;
      }
      if (Semi == None && isKind(J, clang::tok::semi))
        Semi = J;
      else if (Semi != None && Tilde == None && isKind(J, clang::tok::tilde) && J > Semi + 1 &&
               endsOperand(J - 1))
        Tilde = J;
      else if (isKind(J, clang::tok::semi)) {
        error(Tokens[J].Offset, "a cofor header is (i; N) or (i; lo ~ hi)");
        blankTokens(I, Close);
        return Close;
      }
    }
    if (Semi == None)
      return I; // cofor(a, b): a call of the user's function
    if (Semi == Open + 1 || !isName(Semi - 1)) {
      error(Tokens[Semi == Open + 1 ? Semi : Semi - 1].Offset, "a cofor needs an index name: cofor (i; N)");
      blankTokens(I, Close);
      return Close;
    }
    if (Semi + 1 == Close || Tilde == Semi + 1 || Tilde + 1 == Close) {
      error(Tokens[Semi + 1 == Close ? Close : Tilde].Offset, "a cofor needs a range: cofor (i; N) or cofor (i; lo ~ hi)");
      blankTokens(I, Close);
      return Close;
    }
    replaceToken(I, "for");
    if (Semi == Open + 2)
      addEdit(Tokens[Semi - 1].Offset, Tokens[Semi - 1].Offset, "__auto_type ", Tokens[Semi - 1].Offset);
    if (Tilde != None) {
      replaceToken(Semi, " = (");
      replaceToken(Tilde, "); __cfa_cofor; (void)(");
    } else {
      replaceToken(Semi, " = 0; __cfa_cofor; (void)(");
    }
    addEdit(Tokens[Close].Offset, Tokens[Close].Offset, ")", Tokens[Close].Offset, /*Closer=*/true);
    return I;
  }

  // Token I can end an operand: a name, a literal, `)`, `]`, `++`, `--`.
  bool endsOperand(size_t I) const {
    switch (Tokens[I].Kind) {
    case clang::tok::raw_identifier:
      return !isCKeyword(Tokens[I].Text);
    case clang::tok::numeric_constant: case clang::tok::char_constant: case clang::tok::string_literal:
    case clang::tok::r_paren: case clang::tok::r_square: case clang::tok::plusplus: case clang::tok::minusminus:
      return true;
    default:
      return false;
    }
  }

  // `suspend;`, Cforall's statement form, is `suspend();`. Not in a file
  // with its own C function named suspend, and not after the `}` of a
  // struct body or initializer (`struct S {...} suspend;` declares a
  // variable).
  size_t desugarSuspendStatement(size_t I) {
    if (DeclaresOwnSuspend || !isKind(I + 1, clang::tok::semi) || !Statements.atStatementStart(I))
      return I;
    if (I > 0 && isKind(I - 1, clang::tok::r_brace) && !closesStatementBlock(I - 1))
      return I;
    replaceToken(I, "suspend()");
    return I + 1;
  }

  // The `}` at Close ends a compound statement, not a struct body or an
  // initializer: its `{` starts a statement.
  bool closesStatementBlock(size_t Close) const {
    size_t Open = Partner[Close];
    return Open != None && Open < Close && Statements.atStatementStart(Open) &&
           !(Open > 0 && isKind(Open - 1, clang::tok::r_paren) && isFunctionHead(Open - 1));
  }

  // The `)` at Close ends a function declarator (`int f(void) {`) rather
  // than the condition of an if/while/for/switch.
  bool isFunctionHead(size_t Close) const {
    size_t Open = Partner[Close];
    if (Open == None || Open == 0 || Open > Close)
      return false;
    const CodeToken &Before = Tokens[Open - 1];
    if (Before.Kind != clang::tok::raw_identifier)
      return true; // `(*f)(...) {`, `) (...)`: not a statement keyword
    llvm::StringRef W = Before.Text;
    return !(W == "if" || W == "while" || W == "for" || W == "switch");
  }

  // thread X { ... };  coroutine X { ... };  monitor X { ... };  KEYWORD X ;
  // Attributes may sit between the keyword and the name, as after
  // `struct`: `thread __attribute__((aligned(64))) X { ... };`, `[[...]]`.
  size_t desugarAggregate(size_t Keyword) {
    size_t I = skipAttributes(Keyword + 1) - 1; // I + 1: the name
    if (!isName(I + 1) || !(isKind(I + 2, clang::tok::l_brace) || isKind(I + 2, clang::tok::semi)))
      return Keyword;
    return desugarAggregateAt(Keyword, I);
  }

  // The first token at or after J that is not part of an attribute
  // (`__attribute__((...))`, `[[...]]`).
  size_t skipAttributes(size_t J) const {
    for (;;) {
      if ((isWord(J, "__attribute__") || isWord(J, "__attribute")) && isKind(J + 1, clang::tok::l_paren) &&
          Partner[J + 1] != None)
        J = Partner[J + 1] + 1;
      else if (isKind(J, clang::tok::l_square) && isKind(J + 1, clang::tok::l_square) && Partner[J] != None)
        J = Partner[J] + 1;
      else
        return J;
    }
  }

  // Keyword: `thread`, `coroutine` or `monitor`; I + 1 the name.
  size_t desugarAggregateAt(size_t Keyword, size_t I) {
    llvm::StringRef Word = Tokens[Keyword].Text;
    AggregateKeyword Kind = Word == "thread"      ? AggregateKeyword::Thread
                            : Word == "coroutine" ? AggregateKeyword::Coroutine
                                                  : AggregateKeyword::Monitor;
    std::string Struct = "struct";
    Struct.resize(std::max<size_t>(Word.size(), Struct.size()), ' ');
    replaceToken(Keyword, Struct);
    Result.Types.push_back({Tokens[I + 1].Text.str(), Kind, Tokens[Keyword].Offset});
    if (isKind(I + 2, clang::tok::semi))
      return I + 2;
    size_t Close = Partner[I + 2];
    if (Close == None) {
      error(Tokens[I + 2].Offset, "expected '}' to end the body of '" + Tokens[I + 1].Text.str() + "'");
      return I + 2;
    }
    size_t Last = Close - 1; // token before '}'
    bool NeedsSemi = !isKind(Last, clang::tok::semi) && !isKind(Last, clang::tok::l_brace);
    std::string Member = Kind == AggregateKeyword::Thread
                             ? std::string(" struct cfa_thread ") + ThreadDescriptorMember + ";"
                         : Kind == AggregateKeyword::Coroutine
                             ? std::string(" struct cfa_coroutine ") + CoroutineDescriptorMember + ";"
                             : std::string(" struct cfa_monitor ") + MonitorDescriptorMember + ";";
    addEdit(endOf(Last), endOf(Last), (NeedsSemi ? ";" : "") + Member, Tokens[Close].Offset);
    return I + 2; // the body is scanned normally
  }

  // main([const] [struct] X *[const] [mutex] [name]) -> __cfa_main_X(...)
  size_t desugarTypeMain(size_t I) {
    if (!isKind(I + 1, clang::tok::l_paren) || Partner[I + 1] == None)
      return I;
    size_t Close = Partner[I + 1], J = I + 2;
    auto SkipQualifiers = [&] {
      while (J < Close && Tokens[J].Kind == clang::tok::raw_identifier && isQualifier(Tokens[J].Text))
        ++J;
    };
    SkipQualifiers();
    if (isWord(J, "struct"))
      ++J;
    if (J >= Close || !isName(J))
      return I;
    size_t TypeName = J++;
    SkipQualifiers();
    if (J >= Close || !isKind(J, clang::tok::star))
      return I;
    ++J;
    SkipQualifiers();
    if (isWord(J, "mutex") && J + 1 < Close && isName(J + 1)) {
      ++J; // `T *mutex this`: a mutex parameter (desugared on its own)
      SkipQualifiers();
    }
    if (J < Close && isName(J))
      ++J;
    if (J != Close)
      return I;
    replaceToken(I, TypeMainPrefix + Tokens[TypeName].Text.str());
    return I;
  }

  // `T new(`: the word before is a type (or a name), not an expression
  // keyword, so a C function named new (say) is being declared or defined.
  bool isFunctionDeclarator(size_t I) const {
    if (I == 0 || Tokens[I - 1].Kind != clang::tok::raw_identifier)
      return false;
    llvm::StringRef Prev = Tokens[I - 1].Text;
    return !(Prev == "return" || Prev == "case" || Prev == "sizeof" || Prev == "else" || Prev == "do" ||
             Prev == "or"); // `or waitfor(`: a clause
  }

  // A C file with its own function `new` (or `waitfor`) keeps it: then
  // `new(` (`waitfor(`) is a call.
  bool declaresFunctionNamed(llvm::StringRef Name) const {
    for (size_t I = 0; I + 1 < Tokens.size(); ++I)
      if (isWord(I, Name) && isKind(I + 1, clang::tok::l_paren) && isFunctionDeclarator(I))
        return true;
    return false;
  }

  // new(T) / new(T, initializers) in expression position.
  size_t desugarNew(size_t I) {
    if (DeclaresOwnNew || !isKind(I + 1, clang::tok::l_paren))
      return I;
    size_t Close = Partner[I + 1];
    if (Close == None) {
      error(Tokens[I].Offset, "expected ')' to end 'new'");
      return I;
    }
    if (isKind(Close + 1, clang::tok::l_brace))
      return I; // a C function named new is being defined
    if (Close == I + 2) {
      error(Tokens[I].Offset, "'new' needs a type: new(T) or new(T, initializers)");
      return Close;
    }
    size_t Comma = None;
    for (size_t J = I + 2; J < Close; ++J) {
      if (Partner[J] != None && Partner[J] > J) {
        J = Partner[J];
        continue;
      }
      if (isKind(J, clang::tok::comma)) {
        Comma = J;
        break;
      }
    }
    if (Comma == I + 2) {
      error(Tokens[I + 2].Offset, "'new' needs a type before ','");
      return Close;
    }
    addEdit(Tokens[I].Offset, endOf(I + 1), "__cfa_new((", Tokens[I].Offset);
    if (Comma != None) {
      replaceToken(Comma, "){");
      replaceToken(Close, "})");
    } else {
      replaceToken(Close, "){0})");
    }
    return I + 1; // the initializers are scanned normally (nested new, literals)
  }

  // `T *mutex p` in a parameter list: the parameter keeps its type and is
  // marked for the monitor pass with an annotation, which Clang keeps on
  // the ParmVarDecl. A name must follow: `T *mutex)` reads, as in C, as a
  // parameter named mutex (common in pthread code).
  size_t desugarMutexParameter(size_t I) {
    size_t Before = I;
    while (Before > 0 && Tokens[Before - 1].Kind == clang::tok::raw_identifier &&
           isQualifier(Tokens[Before - 1].Text))
      --Before;
    if (Before == 0 || !isKind(Before - 1, clang::tok::star))
      return I;
    size_t Name = I + 1;
    while (Name < Tokens.size() && Tokens[Name].Kind == clang::tok::raw_identifier &&
           isQualifier(Tokens[Name].Text))
      ++Name;
    if (!isName(Name) || !(isKind(Name + 1, clang::tok::comma) || isKind(Name + 1, clang::tok::r_paren) ||
                           isKind(Name + 1, clang::tok::l_square)))
      return I;
    replaceToken(I, std::string("__attribute__((annotate(\"") + MutexAnnotation + "\")))");
    return I;
  }

  // mutex (a, b) { body }  ->
  //   { struct cfa_monitor *__cfa_mutex_monitors_N[] = { __cfa_monitor_of((a)), __cfa_monitor_of((b)) };
  //     struct cfa_mutex_group __cfa_mutex_N __attribute__((cleanup(cfa_mutex_leave)));
  //     cfa_mutex_enter(&__cfa_mutex_N, __cfa_mutex_monitors_N, 2, (const void *)0); { body } }
  // The monitor pass turns each __cfa_monitor_of into the object's monitor.
  // The statement's function identity is a null pointer: waitfor clauses
  // always name a function, so no waitfor ever accepts a mutex statement.
  size_t desugarMutexStatement(size_t I) {
    size_t Open = I + 1, Close = Partner[Open], Body = Close + 1;
    std::vector<size_t> Commas = Code.topLevelCommas(Open);
    std::vector<size_t> Bounds = {Open};
    Bounds.insert(Bounds.end(), Commas.begin(), Commas.end());
    Bounds.push_back(Close);
    for (size_t K = 0; K + 1 < Bounds.size(); ++K) {
      if (Bounds[K] + 1 == Bounds[K + 1]) {
        error(Tokens[Bounds[K + 1]].Offset, "a mutex statement names the monitors it holds: mutex (a, b) { ... }");
        blankTokens(I, Close); // leaves the block
        return Close;
      }
    }
    std::string N = std::to_string(++StatementCounter);
    std::string Monitors = "__cfa_mutex_monitors_" + N, Group = "__cfa_mutex_" + N;
    replaceToken(I, "{ struct cfa_monitor *" + Monitors + "[] = { __cfa_monitor_of(");
    for (size_t Comma : Commas)
      replaceToken(Comma, ")), __cfa_monitor_of((");
    replaceToken(Close, ")) }; struct cfa_mutex_group " + Group +
                            " __attribute__((cleanup(cfa_mutex_leave))); cfa_mutex_enter(&" + Group + ", " +
                            Monitors + ", " + std::to_string(Commas.size() + 1) + ", (const void *)0);");
    closeAfter(Partner[Body], " }", Tokens[I].Offset);
    return I; // the monitor expressions and the body are scanned normally
  }

  // A waitfor statement (LANGUAGE.md section 6) becomes one if/else-if
  // chain, every clause statement in place, that runs twice (the
  // __cfa_waitfor helpers in the prelude):
  //
  //   { struct cfa_waitfor_clause W_clauses[2]; unsigned W_numbers[2]; struct cfa_monitor *W_monitors[3];
  //     struct __cfa_waitfor W = __cfa_waitfor_begin(W_clauses, W_numbers, W_monitors); W_again:
  //     if (W.done ? W.chosen == 0 : __cfa_waitfor_add(&W, 0, F(f), 1, (struct cfa_monitor *[]){ __cfa_monitor_of((m)) })) { S0 }
  //     else if (W.done ? W.chosen == 1 : (g) && __cfa_waitfor_add(&W, 1, F(f2), 2, (...){ ...((a)), ...((b)) })) { S1 }
  //     else if (W.done ? W.chosen == CFA_WAITFOR_TIMEOUT : __cfa_waitfor_timeout(&W, (d))) { S2 }
  //     else if (W.done ? W.chosen == CFA_WAITFOR_ELSE : (g2) && __cfa_waitfor_else(&W)) { S3 }
  //     else { __cfa_waitfor_run(&W); goto W_again; } }
  //
  // F(f) is `__builtin_choose_expr(0, (f), __cfa_waitfor_unlowered())`: Clang
  // looks f up in scope, and accepts it unresolved if it names overloaded
  // functions; the monitor pass replaces it by the function's identity.
  // The first pass evaluates the guards, functions, monitors and timeout in
  // source order (a false guard skips its clause's expressions) and every
  // condition is false; the final else waits and jumps back (see finalElse
  // for a statement whose clauses may all be disabled: it does nothing);
  // the second pass runs the statement of the clause that fired. So the
  // statements stay ordinary statements: break, continue and return act on
  // the enclosing loop or function, and nothing is moved, so every token
  // keeps its line. Each statement is braced, so an `if` in it cannot take
  // the chain's else. `join` as the function is the thread's join
  // (cfa_join_function).
  size_t desugarWaitfor(size_t I) {
    WaitforChain Chain = Statements.waitforChain(I);
    if (!Chain.IsStatement)
      return I;
    if (!Chain.Error.empty()) {
      error(Tokens[Chain.ErrorToken].Offset, Chain.Error);
      blankWaitforHeaders(Chain);
      return I;
    }
    std::string N = std::to_string(++StatementCounter);
    std::string W = "__cfa_waitfor_" + N;
    size_t Accepts = 0, Monitors = 0;
    for (const WaitforClause &C : Chain.Clauses) {
      if (C.Kind == WaitforClause::Accept) {
        ++Accepts;
        Monitors += C.Commas.size();
      }
    }
    std::string Prefix = "{ struct cfa_waitfor_clause " + W + "_clauses[" + std::to_string(Accepts) +
                         "]; unsigned " + W + "_numbers[" + std::to_string(Accepts) + "]; struct cfa_monitor *" +
                         W + "_monitors[" + std::to_string(Monitors) + "]; struct __cfa_waitfor " + W +
                         " = __cfa_waitfor_begin(" + W + "_clauses, " + W + "_numbers, " + W + "_monitors); " + W +
                         "_again: ";
    unsigned Anchor = Tokens[I].Offset;
    unsigned AcceptNumber = 0;
    for (size_t K = 0; K < Chain.Clauses.size(); ++K) {
      const WaitforClause &C = Chain.Clauses[K];
      std::string Selected = C.Kind == WaitforClause::Accept    ? std::to_string(AcceptNumber)
                             : C.Kind == WaitforClause::Timeout ? "CFA_WAITFOR_TIMEOUT"
                                                                : "CFA_WAITFOR_ELSE";
      std::string Head = (K == 0 ? Prefix + "if (" : std::string("else if (")) + W + ".done ? " + W +
                         ".chosen == " + Selected + " : ";
      std::string Call; // what replaces the clause keyword
      if (C.Or != None)
        replaceToken(C.Or, Head);
      if (C.When != None)
        replaceToken(C.When, C.Or != None ? " " : Head);
      else if (C.Or == None)
        Call = Head;
      if (C.When != None)
        Call += "&& ";
      size_t Close = C.Open != None ? Partner[C.Open] : None;
      switch (C.Kind) {
      case WaitforClause::Accept:
        replaceToken(C.Keyword, Call + "__cfa_waitfor_add");
        // Anchored at the function's first token, as the timeout's below is
        // at the duration's: errors in the argument point there.
        addEdit(endOf(C.Open), endOf(C.Open), "&" + W + ", " + std::to_string(AcceptNumber++) +
                                                   ", __builtin_choose_expr(0, (", Tokens[C.Open + 1].Offset);
        if (C.Commas[0] == C.Open + 2 && isWord(C.Open + 1, "join"))
          replaceToken(C.Open + 1, "cfa_join_function");
        replaceToken(C.Commas[0], "), __cfa_waitfor_unlowered()), " + std::to_string(C.Commas.size()) +
                                      ", (struct cfa_monitor *[]){ __cfa_monitor_of((");
        for (size_t M = 1; M < C.Commas.size(); ++M)
          replaceToken(C.Commas[M], ")), __cfa_monitor_of((");
        replaceToken(Close, ")) })) {");
        break;
      case WaitforClause::Timeout:
        replaceToken(C.Keyword, Call + "__cfa_waitfor_timeout");
        addEdit(endOf(C.Open), endOf(C.Open), "&" + W + ", (", Tokens[C.Open + 1].Offset);
        replaceToken(Close, "))) {");
        break;
      case WaitforClause::Else:
        replaceToken(C.Keyword, Call + "__cfa_waitfor_else(&" + W + ")) {");
        break;
      }
      bool Last = K + 1 == Chain.Clauses.size();
      closeAfter(C.StmtEnd, Last ? " } " + finalElse(Chain, W) + " }" : std::string(" }"),
                 Last ? Anchor : Tokens[C.StmtEnd].Offset);
    }
    return I; // guards, functions, monitors and statements are scanned normally
  }

  // The chain's final else: wait, then select the clause that fired. Only
  // when every clause is guarded can nothing be enabled (the runtime then
  // returns false and the statement does nothing); otherwise the else is
  // an endless loop to the C compiler, as it is, so that a function whose
  // every clause returns needs no return after the statement.
  static std::string finalElse(const WaitforChain &Chain, const std::string &W) {
    bool AllGuarded = std::all_of(Chain.Clauses.begin(), Chain.Clauses.end(),
                                  [](const WaitforClause &C) { return C.When != None; });
    if (AllGuarded)
      return "else if (__cfa_waitfor_run(&" + W + ")) goto " + W + "_again;";
    return "else { __cfa_waitfor_run(&" + W + "); goto " + W + "_again; }";
  }

  // After an error: tokens From..To are removed so that Clang reports
  // nothing more about them. One edit per token, each a space (not empty),
  // so that the lexical error, wherever it points among them, maps back.
  void blankTokens(size_t From, size_t To) {
    if (From == None || To == None)
      return;
    for (size_t K = From; K <= To && K < Tokens.size(); ++K)
      replaceToken(K, " ");
  }

  // After an error in a waitfor statement: the clause headers are removed
  // (the statements stay).
  void blankWaitforHeaders(const WaitforChain &Chain) {
    auto Blank = [&](size_t From, size_t To) { blankTokens(From, To); };
    for (const WaitforClause &C : Chain.Clauses) {
      Blank(C.Or, C.Or);
      if (C.When != None)
        Blank(C.When, Partner[C.When + 1] != None ? Partner[C.When + 1] : C.When);
      if (C.Keyword != None)
        Blank(C.Keyword, C.Open != None && Partner[C.Open] != None ? Partner[C.Open] : C.Keyword);
    }
  }

  // operand`unit -> unit(operand)
  size_t desugarTimeLiteral(size_t I) {
    if (!(I + 1 < Tokens.size() && Tokens[I + 1].Kind == clang::tok::raw_identifier &&
          isTimeUnit(Tokens[I + 1].Text))) {
      error(Tokens[I].Offset, "expected a time unit (ns, us, ms or s) after '`'");
      return I;
    }
    size_t OperandBegin = I > 0 ? postfixExpressionStart(I - 1) : None;
    if (OperandBegin == None || editTouches(Tokens[OperandBegin].Offset)) {
      error(Tokens[I].Offset, "'`" + Tokens[I + 1].Text.str() +
                                  "' must follow a number, a name or a parenthesized expression");
      return I + 1;
    }
    addEdit(Tokens[OperandBegin].Offset, Tokens[OperandBegin].Offset,
            Tokens[I + 1].Text.str() + "(", Tokens[I].Offset);
    addEdit(Tokens[I].Offset, endOf(I + 1), ")", Tokens[I].Offset);
    return I + 1;
  }

  // First token of the postfix expression ending at token Last (a number,
  // a name, a parenthesized expression, with calls, subscripts and member
  // accesses: `x`, `(a+b)`, `this->ms`, `f(x).d`, `a[i]`), or None.
  size_t postfixExpressionStart(size_t Last) const {
    size_t B = Last;
    for (;;) {
      const CodeToken &T = Tokens[B];
      if (T.Kind == clang::tok::r_paren || T.Kind == clang::tok::r_square) {
        if (Partner[B] == None)
          return None;
        B = Partner[B];
        bool Postfix = B > 0 && (isName(B - 1) || isKind(B - 1, clang::tok::r_paren) ||
                                 isKind(B - 1, clang::tok::r_square));
        if (T.Kind == clang::tok::r_square && !Postfix)
          return None; // a bare [..] is not an expression
        if (!Postfix)
          return B;
        --B;
        continue;
      }
      if (T.Kind != clang::tok::numeric_constant && !isName(B))
        return None;
      if (B >= 2 && (isKind(B - 1, clang::tok::period) || isKind(B - 1, clang::tok::arrow))) {
        B -= 2;
        continue;
      }
      return B;
    }
  }

  // An insertion at Offset would land inside a range already replaced.
  // Replaced ranges never overlap, so only the last one starting before
  // Offset can hold it.
  // Offset lies in a range already replaced (at its start included).
  bool insideReplacement(unsigned Offset) const {
    auto It = Replaced.upper_bound(Offset);
    if (It == Replaced.begin())
      return false;
    --It;
    return It->first <= Offset && Offset < It->second;
  }

  bool editTouches(unsigned Offset) const {
    auto It = Replaced.lower_bound(Offset);
    if (It == Replaced.begin())
      return false;
    --It;
    return It->first < Offset && Offset < It->second;
  }

  static std::string quoted(llvm::StringRef Name) {
    std::string Out = "\"";
    for (char C : Name) {
      if (C == '"' || C == '\\')
        Out += '\\';
      Out += (C == '\n' || C == '\r') ? ' ' : C;
    }
    return Out + "\"";
  }

  std::string prologueFor(const DeclaredExtensionType &T) const {
    const std::string &N = T.Name;
    std::string Overload = "static inline __attribute__((overloadable)) ";
    std::string Out = "typedef struct " + N + " " + N + "; ";
    if (T.Keyword == AggregateKeyword::Thread)
      Out += Overload + N + " *join(" + N + " *); " + Overload + "void unpark(" + N +
             " *t) __CFA_IF_NOT_NULL(t); ";
    else if (T.Keyword == AggregateKeyword::Coroutine)
      Out += Overload + N + " *resume(" + N + " *); ";
    return Out;
  }

  DesugaredFile assemble() {
    std::string &Out = Result.Text;
    SourceMap &Map = Result.Map;
    auto Synthesize = [&](const std::string &Text, unsigned Anchor) {
      Out += Text;
      Map.appendSynthesized(static_cast<unsigned>(Text.size()), Anchor);
    };
    // The file's leading directives (feature-test macros) come first, so
    // that they configure the C library headers the prelude includes.
    unsigned Lead = leadingDirectivesEnd(Source);
    unsigned LeadLines = static_cast<unsigned>(Source.take_front(Lead).count('\n'));
    if (Lead > 0) {
      Out.append(Source.data(), Lead);
      Map.appendCopied(Lead, 0);
      if (Source[Lead - 1] != '\n') {
        Synthesize("\n", Lead);
        ++LeadLines;
      }
    }
    Synthesize("#include <cfa/prelude.h>\n", Lead);
    Result.PreludeEnd = static_cast<unsigned>(Out.size());
    for (const DeclaredExtensionType &T : Result.Types)
      Synthesize(prologueFor(T), T.KeywordOffset);
    Synthesize("\n#line " + std::to_string(LeadLines + 1) + " " + quoted(PresumedName) + "\n", Lead);

    std::sort(Edits.begin(), Edits.end(), editBefore);
    unsigned Cursor = Lead; // no edit before it: the leading lines hold no code
    for (const Edit &E : Edits) {
      if (E.Begin < Cursor)
        continue; // defensive: patterns never overlap
      Out.append(Source.data() + Cursor, E.Begin - Cursor);
      Map.appendCopied(E.Begin - Cursor, Cursor);
      // A replaced range may span lines (`new\n(`, an escaped newline in a
      // token): keep its newlines so that every later line keeps its number.
      size_t Newlines = Source.slice(E.Begin, E.End).count('\n');
      Synthesize(E.Replacement + std::string(Newlines, '\n'), E.Anchor);
      Cursor = E.End;
    }
    Out.append(Source.data() + Cursor, Source.size() - Cursor);
    Map.appendCopied(static_cast<unsigned>(Source.size()) - Cursor, Cursor);
    return std::move(Result);
  }
};

} // namespace

DesugaredFile desugarExtensions(llvm::StringRef Source, llvm::StringRef PresumedName) {
  return Desugarer(Source, PresumedName).run();
}

bool isExtensionSourceName(llvm::StringRef Path) {
  return Path.ends_with(".cfa") || Path.ends_with(".hfa");
}

} // namespace cfacc

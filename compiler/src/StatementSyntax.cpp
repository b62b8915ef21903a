// StatementSyntax: see StatementSyntax.h.
#include "StatementSyntax.h"

namespace cfacc {
namespace {

using clang::tok::TokenKind;
constexpr size_t None = CodeTokens::None;
// Statements nested deeper than this (in a waitfor clause) are reported,
// so that hostile input cannot exhaust the stack.
constexpr unsigned MaxDepth = 200;

bool isOpener(TokenKind K) {
  return K == clang::tok::l_paren || K == clang::tok::l_brace || K == clang::tok::l_square;
}
bool isCloser(TokenKind K) {
  return K == clang::tok::r_paren || K == clang::tok::r_brace || K == clang::tok::r_square;
}

} // namespace

bool StatementSyntax::atStatementStart(size_t I) const {
  if (I == 0)
    return true;
  switch (Code[I - 1].Kind) {
  case clang::tok::semi:
  case clang::tok::l_brace:
  case clang::tok::r_brace:
  case clang::tok::r_paren: // if (...), while (...), for (...)
  case clang::tok::colon:   // a label, case x:, default:
    return true;
  default:
    return Code.isWord(I - 1, "else") || Code.isWord(I - 1, "do");
  }
}

bool StatementSyntax::isMutexStatement(size_t I) const {
  if (!Code.isWord(I, "mutex") || Code.followsMemberAccess(I) || !atStatementStart(I))
    return false;
  size_t Close = parenthesizedEnd(I);
  return Close != None && Code.isKind(Close + 1, clang::tok::l_brace) && Code.partner(Close + 1) != None;
}

bool StatementSyntax::isMutexWithoutBlock(size_t I) const {
  if (!Code.isWord(I, "mutex") || Code.followsMemberAccess(I) || !atStatementStart(I))
    return false;
  size_t Close = parenthesizedEnd(I);
  return Close != None && Code.isKind(Close + 1, clang::tok::raw_identifier);
}

size_t StatementSyntax::parenthesizedEnd(size_t Keyword) const {
  if (!Code.isKind(Keyword + 1, clang::tok::l_paren))
    return None;
  size_t Close = Code.partner(Keyword + 1);
  return Close != None && Close > Keyword + 1 ? Close : None;
}

size_t StatementSyntax::statementEnd(size_t B, unsigned Depth) const {
  if (Depth > MaxDepth || B >= Code.size())
    return None;
  const CodeToken &T = Code[B];
  if (T.Kind == clang::tok::l_brace) {
    size_t Close = Code.partner(B);
    return Close != None && Close > B ? Close : None;
  }
  if (T.Kind == clang::tok::semi)
    return B;
  if (T.Kind == clang::tok::raw_identifier) {
    llvm::StringRef W = T.Text;
    if (W == "if") {
      size_t Cond = parenthesizedEnd(B);
      size_t Then = Cond == None ? None : statementEnd(Cond + 1, Depth + 1);
      if (Then != None && Code.isWord(Then + 1, "else"))
        return statementEnd(Then + 2, Depth + 1);
      return Then;
    }
    if (W == "while" || W == "for" || W == "switch") {
      size_t Head = parenthesizedEnd(B);
      return Head == None ? None : statementEnd(Head + 1, Depth + 1);
    }
    if (W == "do") {
      size_t Body = statementEnd(B + 1, Depth + 1);
      if (Body == None || !Code.isWord(Body + 1, "while"))
        return None;
      size_t Cond = parenthesizedEnd(Body + 1);
      return Cond != None && Code.isKind(Cond + 1, clang::tok::semi) ? Cond + 1 : None;
    }
    if (W == "else")
      return None;
    if (W == "case") {
      for (size_t J = B + 1; J < Code.size(); ++J) {
        if (isOpener(Code[J].Kind)) {
          J = Code.partner(J);
          if (J == None)
            return None;
          continue;
        }
        if (Code[J].Kind == clang::tok::colon)
          return statementEnd(J + 1, Depth + 1);
        if (Code[J].Kind == clang::tok::semi || isCloser(Code[J].Kind))
          return None;
      }
      return None;
    }
    if (W == "default" && Code.isKind(B + 1, clang::tok::colon))
      return statementEnd(B + 2, Depth + 1);
    if (WaitforIsKeyword && (W == "waitfor" || W == "when")) {
      WaitforChain Chain = waitforChain(B, Depth + 1);
      if (Chain.IsStatement)
        return Chain.Error.empty() ? Chain.End : None;
    }
    if (W == "mutex" && isMutexStatement(B))
      return Code.partner(parenthesizedEnd(B) + 1);
    if (Code.isName(B) && Code.isKind(B + 1, clang::tok::colon))
      return statementEnd(B + 2, Depth + 1); // a label
  }
  // An expression, jump or declaration: up to `;`, brackets skipped whole
  // (statement expressions, compound literals and initializers included).
  for (size_t J = B; J < Code.size(); ++J) {
    TokenKind K = Code[J].Kind;
    if (isOpener(K)) {
      size_t Close = Code.partner(J);
      if (Close == None || Close < J)
        return None;
      J = Close;
      continue;
    }
    if (isCloser(K))
      return None; // the enclosing block ends first: no `;`
    if (K == clang::tok::semi)
      return J;
  }
  return None;
}

bool StatementSyntax::parseClause(size_t &J, bool First, WaitforClause &C, WaitforChain &R,
                                  unsigned Depth) const {
  auto Fail = [&](size_t Token, std::string Message) {
    R.IsStatement = true;
    R.Error = std::move(Message);
    R.ErrorToken = std::min(Token, Code.size() - 1);
    return false;
  };
  auto IsClauseWord = [&](size_t K) {
    return Code.isWord(K, "waitfor") || Code.isWord(K, "timeout") || Code.isWord(K, "else");
  };
  if (Code.isWord(J, "when")) {
    size_t Close = parenthesizedEnd(J);
    if (First && (Close == None || !IsClauseWord(Close + 1)))
      return false; // a call of a C function named when
    if (Close == None)
      return Fail(J, "expected '(' and a condition after 'when'");
    if (Close == J + 2)
      return Fail(J, "'when' needs a condition: when (cond)");
    C.When = J;
    J = Close + 1;
  }
  if (Code.isWord(J, "waitfor")) {
    size_t Close = parenthesizedEnd(J);
    if (Close == None) {
      if (First && C.When == None)
        return false; // `waitfor` is not followed by (...): no statement
      return Fail(J, "expected '(' after 'waitfor'");
    }
    C.Kind = WaitforClause::Accept;
    C.Keyword = J;
    C.Open = J + 1;
    std::vector<size_t> Commas = Code.topLevelCommas(J + 1);
    if (Commas.empty())
      return Fail(J, "waitfor needs a mutex function and a monitor: waitfor(f, m)");
    if (Commas[0] == J + 2)
      return Fail(Commas[0], "waitfor needs a mutex function before ','");
    for (size_t K = 0; K < Commas.size(); ++K)
      if (Commas[K] + 1 == (K + 1 < Commas.size() ? Commas[K + 1] : Close))
        return Fail(Commas[K], "waitfor needs a monitor after ','");
    C.Commas = std::move(Commas);
    J = Close + 1;
  } else if (!First && Code.isWord(J, "timeout")) {
    C.Kind = WaitforClause::Timeout;
    C.Keyword = J;
    size_t Close = parenthesizedEnd(J);
    if (Close == None)
      return Fail(J, "expected '(' and a duration after 'timeout'");
    C.Open = J + 1;
    if (Close == J + 2)
      return Fail(J, "'timeout' needs a duration: timeout(d)");
    J = Close + 1;
  } else if (!First && Code.isWord(J, "else")) {
    C.Kind = WaitforClause::Else;
    C.Keyword = J;
    J = J + 1;
  } else if (First) {
    C.Keyword = J; // timeout or else: removed with the guard after the error
    if (Code.isKind(J + 1, clang::tok::l_paren))
      C.Open = J + 1;
    return Fail(J, "a waitfor statement starts with a waitfor clause: when (cond) waitfor(f, m)");
  } else {
    return Fail(J, C.When != None ? "expected 'waitfor', 'timeout' or 'else' after 'when (...)'"
                                  : "expected a clause after 'or': waitfor, when, timeout or else");
  }
  R.IsStatement = true;
  C.StmtBegin = J;
  C.StmtEnd = statementEnd(J, Depth + 1);
  if (C.StmtEnd == None) {
    std::string Word = Code[C.Keyword].Text.str();
    return Fail(J, "expected a statement after '" + Word + (C.Kind == WaitforClause::Else ? "'" : "(...)'") +
                       " (';' for none)");
  }
  return true;
}

WaitforChain StatementSyntax::waitforChain(size_t I, unsigned Depth) const {
  WaitforChain R;
  if (!WaitforIsKeyword)
    return R;
  if (Depth > MaxDepth) {
    R.IsStatement = true;
    R.Error = "statements nested too deeply";
    R.ErrorToken = I;
    return R;
  }
  size_t J = I;
  for (bool First = true;; First = false) {
    WaitforClause C;
    if (!First)
      C.Or = J - 1;
    if (!parseClause(J, First, C, R, Depth)) {
      if (R.IsStatement)
        R.Clauses.push_back(C); // what was parsed of it, for error recovery
      return R;
    }
    R.Clauses.push_back(C);
    size_t Next = C.StmtEnd + 1;
    if (!Code.isWord(Next, "or"))
      break;
    if (Code.isWord(Next + 1, "waitfor") || Code.isWord(Next + 1, "when") ||
        Code.isWord(Next + 1, "timeout") || Code.isWord(Next + 1, "else")) {
      J = Next + 1;
      continue;
    }
    if (Next + 1 >= Code.size() || Code.isKind(Next + 1, clang::tok::semi) ||
        Code.isKind(Next + 1, clang::tok::l_brace) || Code.isKind(Next + 1, clang::tok::r_brace)) {
      R.Error = "expected a clause after 'or': waitfor, when, timeout or else";
      R.ErrorToken = Next;
      WaitforClause Dangling;
      Dangling.Or = Next;
      R.Clauses.push_back(Dangling);
      return R;
    }
    break; // `or` starts the next statement (a C name)
  }
  R.End = R.Clauses.back().StmtEnd;
  const WaitforClause *Timeout = nullptr, *Else = nullptr;
  for (const WaitforClause &C : R.Clauses) {
    const WaitforClause *&Seen = C.Kind == WaitforClause::Timeout ? Timeout : Else;
    if (C.Kind == WaitforClause::Accept)
      continue;
    if (Seen) {
      R.Error = std::string("a waitfor statement has at most one '") + Code[C.Keyword].Text.str() + "' clause";
      R.ErrorToken = C.Keyword;
      return R;
    }
    Seen = &C;
  }
  return R;
}

} // namespace cfacc

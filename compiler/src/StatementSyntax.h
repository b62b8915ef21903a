// StatementSyntax: the statement structure the extension lexer needs to
// desugar cfa-lite's statements (docs/language.md sections 4 and 6), on code
// tokens, before Clang parses anything:
//
//   mutex (a, b) { ... }
//   [when (g)] waitfor(f, m [, m2 ...]) stmt
//     or [when (g)] waitfor(f, m) stmt
//     or [when (g)] timeout(d) stmt
//     or [when (g)] else stmt
//
// A waitfor clause's statement is any C statement (and may itself be a
// waitfor or mutex statement), so its extent has to be known: where it ends
// tells whether an `or` follows. statementEnd finds it from the shape of C
// statements (braces, if/else, loops, labels, up to `;` at bracket depth
// 0). The words are contextual: `waitfor`/`when`/`mutex` are keywords only
// at the start of a statement and in these shapes, `or`/`timeout` only
// between clauses, so a C program's identifiers with these names keep
// working (a file that declares its own function `waitfor` keeps it: then
// no waitfor statement is recognised in that file).
//
// Pure functions of the tokens; recursion is bounded (deeply nested input is
// reported as an error, never a stack overflow).
#ifndef CFACC_STATEMENT_SYNTAX_H
#define CFACC_STATEMENT_SYNTAX_H

#include "CodeTokens.h"

#include <string>
#include <vector>

namespace cfacc {

struct WaitforClause {
  enum ClauseKind { Accept, Timeout, Else } Kind = Accept;
  size_t Or = CodeTokens::None;      // `or` before the clause (not for the first)
  size_t When = CodeTokens::None;    // `when` of a guard; its condition is When+1..partner
  size_t Keyword = CodeTokens::None; // `waitfor`, `timeout` or `else`
  size_t Open = CodeTokens::None;    // `(` after waitfor/timeout; its partner closes it
  std::vector<size_t> Commas;        // waitfor: the `,` before each monitor
  size_t StmtBegin = CodeTokens::None, StmtEnd = CodeTokens::None; // the clause's statement
};

struct WaitforChain {
  bool IsStatement = false; // false: the tokens are no waitfor statement (a call of when(), say)
  std::vector<WaitforClause> Clauses;
  size_t End = CodeTokens::None; // last token of the whole statement
  // A malformed statement: the message and the token it points at.
  std::string Error;
  size_t ErrorToken = CodeTokens::None;
};

class StatementSyntax {
public:
  // WaitforIsKeyword: false in a file that declares its own C function
  // named waitfor.
  StatementSyntax(const CodeTokens &Code, bool WaitforIsKeyword)
      : Code(Code), WaitforIsKeyword(WaitforIsKeyword) {}

  // The token before I allows a statement to start at I.
  bool atStatementStart(size_t I) const;
  // Last token of the statement that starts at Begin, or None when no
  // complete statement starts there.
  size_t statementEnd(size_t Begin) const { return statementEnd(Begin, 0); }
  // The waitfor statement starting at I (a `waitfor` or `when`).
  WaitforChain waitforChain(size_t I) const { return waitforChain(I, 0); }
  // `mutex (...) {` at a statement start.
  bool isMutexStatement(size_t I) const;
  // `mutex (...) name` at a statement start: no C call is followed by a
  // name, so this is a mutex statement whose body is not a block.
  bool isMutexWithoutBlock(size_t I) const;

private:
  size_t statementEnd(size_t Begin, unsigned Depth) const;
  WaitforChain waitforChain(size_t I, unsigned Depth) const;
  // Parses one clause at J (after `or`, or the first one); false on error.
  bool parseClause(size_t &J, bool First, WaitforClause &C, WaitforChain &R, unsigned Depth) const;
  size_t parenthesizedEnd(size_t Keyword) const; // partner of the `(` after Keyword, or None

  const CodeTokens &Code;
  bool WaitforIsKeyword;
};

} // namespace cfacc
#endif

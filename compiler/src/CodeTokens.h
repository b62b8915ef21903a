// CodeTokens: the code tokens of one .cfa/.hfa file, as the extension lexer
// and the statement grammar see them.
//
// Clang's raw Lexer supplies the tokens (C17, GNU mode, digraphs); comments
// and preprocessor directive lines are left out, so nothing in them is ever
// desugared. Each bracket knows its matching partner; unbalanced input is
// matched to the nearest opener of the right kind within a few levels, so
// that hostile input stays linear. Identifiers stay raw (no keyword
// lookup): the extension keywords are contextual and recognised by shape.
#ifndef CFACC_CODE_TOKENS_H
#define CFACC_CODE_TOKENS_H

#include "clang/Basic/TokenKinds.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace cfacc {

struct CodeToken {
  clang::tok::TokenKind Kind;
  unsigned Offset;
  unsigned Length;
  llvm::StringRef Text;
};

class CodeTokens {
public:
  static constexpr size_t None = static_cast<size_t>(-1);

  explicit CodeTokens(llvm::StringRef Source);

  const std::vector<CodeToken> &tokens() const { return Tokens; }
  // Index of the bracket matching the one at I, or None.
  const std::vector<size_t> &partners() const { return Partner; }
  size_t size() const { return Tokens.size(); }
  const CodeToken &operator[](size_t I) const { return Tokens[I]; }
  size_t partner(size_t I) const { return I < Partner.size() ? Partner[I] : None; }

  bool isWord(size_t I, llvm::StringRef Word) const {
    return I < Tokens.size() && Tokens[I].Kind == clang::tok::raw_identifier && Tokens[I].Text == Word;
  }
  bool isKind(size_t I, clang::tok::TokenKind K) const { return I < Tokens.size() && Tokens[I].Kind == K; }
  // An identifier that is not a C keyword.
  bool isName(size_t I) const;
  // `.` or `->` precedes: the word names a member, it is not a keyword.
  bool followsMemberAccess(size_t I) const {
    return I > 0 && (isKind(I - 1, clang::tok::period) || isKind(I - 1, clang::tok::arrow));
  }
  unsigned endOf(size_t I) const { return Tokens[I].Offset + Tokens[I].Length; }
  // The tokens strictly between the bracket at Open and its partner, split
  // at the commas that are not nested in other brackets: the index of each
  // such comma, in order.
  std::vector<size_t> topLevelCommas(size_t Open) const;

private:
  void tokenize(llvm::StringRef Source);
  void matchBrackets();

  std::vector<CodeToken> Tokens;
  std::vector<size_t> Partner;
};

bool isCKeyword(llvm::StringRef Word);
// const, volatile, restrict (and spellings), _Atomic.
bool isQualifier(llvm::StringRef Word);

} // namespace cfacc
#endif

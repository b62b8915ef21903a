// CodeTokens: see CodeTokens.h.
#include "CodeTokens.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>

namespace cfacc {

bool isCKeyword(llvm::StringRef Word) {
  static const llvm::StringSet<> Keywords = {
      "auto", "break", "case", "char", "const", "continue", "default", "do",
      "double", "else", "enum", "extern", "float", "for", "goto", "if",
      "inline", "int", "long", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
      "unsigned", "void", "volatile", "while", "_Alignas", "_Alignof",
      "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
      "_Static_assert", "_Thread_local", "__attribute__", "__restrict",
      "__restrict__", "__inline", "__inline__", "__const", "__volatile__",
      "__typeof__", "typeof", "__extension__", "asm", "__asm__"};
  return Keywords.contains(Word);
}

bool isQualifier(llvm::StringRef Word) {
  return Word == "const" || Word == "volatile" || Word == "restrict" ||
         Word == "__restrict" || Word == "__restrict__" || Word == "_Atomic";
}

CodeTokens::CodeTokens(llvm::StringRef Source) {
  tokenize(Source);
  matchBrackets();
}

bool CodeTokens::isName(size_t I) const {
  return I < Tokens.size() && Tokens[I].Kind == clang::tok::raw_identifier && !isCKeyword(Tokens[I].Text);
}

std::vector<size_t> CodeTokens::topLevelCommas(size_t Open) const {
  std::vector<size_t> Commas;
  size_t Close = partner(Open);
  if (Close == None || Close < Open)
    return Commas;
  for (size_t J = Open + 1; J < Close; ++J) {
    if (Partner[J] != None && Partner[J] > J) {
      J = Partner[J];
      continue;
    }
    if (Tokens[J].Kind == clang::tok::comma)
      Commas.push_back(J);
  }
  return Commas;
}

void CodeTokens::tokenize(llvm::StringRef Source) {
  clang::LangOptions Opts;
  Opts.C17 = true;
  Opts.GNUMode = true;
  Opts.Digraphs = true;
  Opts.LineComment = true;
  clang::Lexer Lex(clang::SourceLocation(), Opts, Source.begin(), Source.begin(), Source.end());
  Lex.SetCommentRetentionState(false);
  bool InDirective = false;
  for (;;) {
    clang::Token Tok;
    bool AtEnd = Lex.LexFromRawLexer(Tok);
    if (Tok.is(clang::tok::eof))
      break;
    unsigned End = static_cast<unsigned>(Lex.getBufferLocation() - Source.begin());
    unsigned Length = std::min<unsigned>(Tok.getLength(), End);
    unsigned Offset = End - Length;
    if (Tok.isAtStartOfLine())
      InDirective = Tok.is(clang::tok::hash);
    if (!InDirective)
      Tokens.push_back({Tok.getKind(), Offset, Length, Source.substr(Offset, Length)});
    if (AtEnd)
      break;
  }
}

void CodeTokens::matchBrackets() {
  Partner.assign(Tokens.size(), None);
  std::vector<size_t> Open;
  for (size_t I = 0; I < Tokens.size(); ++I) {
    auto K = Tokens[I].Kind;
    if (K == clang::tok::l_paren || K == clang::tok::l_brace || K == clang::tok::l_square) {
      Open.push_back(I);
      continue;
    }
    clang::tok::TokenKind Opener;
    if (K == clang::tok::r_paren) Opener = clang::tok::l_paren;
    else if (K == clang::tok::r_brace) Opener = clang::tok::l_brace;
    else if (K == clang::tok::r_square) Opener = clang::tok::l_square;
    else continue;
    // Unbalanced input: pop to the nearest opener of the right kind, but
    // look only a few levels down, so that hostile input stays linear.
    constexpr long SearchDepth = 16;
    auto Limit = Open.rbegin() + std::min<long>(SearchDepth, static_cast<long>(Open.size()));
    auto It = std::find_if(Open.rbegin(), Limit, [&](size_t J) { return Tokens[J].Kind == Opener; });
    if (It == Limit)
      continue;
    size_t J = *It;
    Open.erase(std::next(It).base(), Open.end());
    Partner[I] = J;
    Partner[J] = I;
  }
}

} // namespace cfacc

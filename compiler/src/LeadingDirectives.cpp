// LeadingDirectives: see LeadingDirectives.h. A line scanner: it knows
// comments, line continuations and quoted strings (so that `/*` in a
// string does not open a comment), and nothing else of C.
#include "LeadingDirectives.h"

namespace cfacc {
namespace {

class Scanner {
public:
  explicit Scanner(llvm::StringRef S) : S(S) {}

  // The end of the last leading directive (or group) that precedes the
  // first line of another kind.
  unsigned run() {
    unsigned End = 0;   // after the last complete leading directive
    unsigned Depth = 0; // open conditional groups
    while (Pos < S.size()) {
      skipBlanksAndComments();
      if (Pos >= S.size())
        break;
      if (S[Pos] == '\n') {
        ++Pos;
        continue;
      }
      if (S[Pos] != '#')
        break; // code
      ++Pos;
      skipBlanksAndComments();
      llvm::StringRef Name = directiveName();
      skipRestOfDirective();
      if (Name == "if" || Name == "ifdef" || Name == "ifndef") {
        ++Depth;
      } else if (Name == "endif") {
        if (Depth == 0)
          break; // unbalanced: left to the compiler
        --Depth;
      } else if ((Name == "elif" || Name == "else" || Name == "elifdef" || Name == "elifndef") && Depth) {
      } else if (!(Name.empty() || Name == "define" || Name == "undef" || Name == "pragma" ||
                   Name == "error" || Name == "warning" || Name == "ident")) {
        break; // include, line, embed, ...
      }
      if (Depth == 0)
        End = Pos;
    }
    return End;
  }

private:
  llvm::StringRef S;
  unsigned Pos = 0;

  bool at(llvm::StringRef Text) const { return S.substr(Pos).starts_with(Text); }

  // Spaces, tabs, line continuations and comments, up to a newline (not
  // consumed) or something else. A block comment may span lines.
  void skipBlanksAndComments() {
    while (Pos < S.size()) {
      if (S[Pos] == ' ' || S[Pos] == '\t' || S[Pos] == '\r' || S[Pos] == '\f' || S[Pos] == '\v') {
        ++Pos;
      } else if (at("\\\n")) {
        Pos += 2;
      } else if (at("/*")) {
        size_t End = S.find("*/", Pos + 2);
        Pos = End == llvm::StringRef::npos ? S.size() : End + 2;
      } else if (at("//")) {
        skipToEndOfLine();
      } else {
        return;
      }
    }
  }

  void skipToEndOfLine() {
    while (Pos < S.size() && S[Pos] != '\n')
      Pos += at("\\\n") ? 2 : 1;
  }

  llvm::StringRef directiveName() {
    unsigned Begin = Pos;
    while (Pos < S.size() && (isalnum(static_cast<unsigned char>(S[Pos])) || S[Pos] == '_'))
      ++Pos;
    return S.slice(Begin, Pos);
  }

  // To the end of the directive's logical line (the newline consumed).
  void skipRestOfDirective() {
    while (Pos < S.size()) {
      char C = S[Pos];
      if (C == '\n') {
        ++Pos;
        return;
      }
      if (at("\\\n") || at("/*") || at("//")) {
        skipBlanksAndComments();
      } else if (C == '"' || C == '\'') {
        skipQuoted(C);
      } else {
        ++Pos;
      }
    }
  }

  void skipQuoted(char Quote) {
    for (++Pos; Pos < S.size() && S[Pos] != Quote && S[Pos] != '\n'; ++Pos)
      if (S[Pos] == '\\' && Pos + 1 < S.size() && S[Pos + 1] != '\n')
        ++Pos;
    if (Pos < S.size() && S[Pos] == Quote)
      ++Pos;
  }
};

} // namespace

unsigned leadingDirectivesEnd(llvm::StringRef Source) { return Scanner(Source).run(); }

} // namespace cfacc

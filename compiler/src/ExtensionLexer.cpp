// ExtensionLexer: see ExtensionLexer.h. The scan works on the file's code
// tokens (directive lines removed) and records edits on original offsets;
// the output is assembled from the edits in one pass, which also builds the
// SourceMap. Edits never overlap: each pattern consumes its tokens.
#include "ExtensionLexer.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <map>

namespace cfacc {
namespace {

struct CodeToken {
  clang::tok::TokenKind Kind;
  unsigned Offset;
  unsigned Length;
  llvm::StringRef Text;
};

struct Edit {
  unsigned Begin, End; // original range replaced (Begin == End: insertion)
  std::string Replacement;
  unsigned Anchor;     // where synthesized text maps back to
  unsigned Sequence;   // keeps insertions at one offset in creation order
};

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

bool isTimeUnit(llvm::StringRef Word) {
  return Word == "ns" || Word == "us" || Word == "ms" || Word == "s";
}

class Desugarer {
public:
  Desugarer(llvm::StringRef Source, llvm::StringRef PresumedName)
      : Source(Source), PresumedName(PresumedName) {}

  DesugaredFile run() {
    tokenize();
    matchBrackets();
    DeclaresOwnNew = declaresFunctionNamedNew();
    for (size_t I = 0; I < Tokens.size(); ++I)
      I = desugarAt(I);
    collectTopLevelGroups();
    return assemble();
  }

private:
  llvm::StringRef Source;
  llvm::StringRef PresumedName;
  std::vector<CodeToken> Tokens;
  std::vector<size_t> Partner; // index of the matching bracket, or npos
  std::vector<Edit> Edits;
  std::map<unsigned, unsigned> Replaced; // Begin -> End of replacing edits
  DesugaredFile Result;
  bool DeclaresOwnNew = false; // the file's C code has a function named new
  static constexpr size_t None = static_cast<size_t>(-1);

  void tokenize() {
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

  void matchBrackets() {
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
      auto FirstEdit = std::lower_bound(EditBegins.begin(), EditBegins.end(), Tokens[I].Offset);
      bool Desugared = FirstEdit != EditBegins.end() && *FirstEdit <= Tokens[Close].Offset;
      Result.Groups.push_back({Tokens[I].Offset, Tokens[Close].Offset, std::move(Names), Desugared});
      I = Close;
    }
  }

  bool isWord(size_t I, llvm::StringRef Word) const {
    return I < Tokens.size() && Tokens[I].Kind == clang::tok::raw_identifier &&
           Tokens[I].Text == Word;
  }
  bool isKind(size_t I, clang::tok::TokenKind K) const {
    return I < Tokens.size() && Tokens[I].Kind == K;
  }
  bool isName(size_t I) const {
    return I < Tokens.size() && Tokens[I].Kind == clang::tok::raw_identifier &&
           !isCKeyword(Tokens[I].Text);
  }
  // A member access or a declaration precedes: the word is not a keyword.
  bool followsMemberAccess(size_t I) const {
    return I > 0 && (isKind(I - 1, clang::tok::period) || isKind(I - 1, clang::tok::arrow));
  }
  unsigned endOf(size_t I) const { return Tokens[I].Offset + Tokens[I].Length; }

  void addEdit(unsigned Begin, unsigned End, std::string Text, unsigned Anchor) {
    Edits.push_back({Begin, End, std::move(Text), Anchor, static_cast<unsigned>(Edits.size())});
    if (Begin < End)
      Replaced[Begin] = End;
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
    return I;
  }

  // thread X { ... };  coroutine X { ... };  monitor X { ... };  KEYWORD X ;
  size_t desugarAggregate(size_t I) {
    if (!isName(I + 1) || !(isKind(I + 2, clang::tok::l_brace) || isKind(I + 2, clang::tok::semi)))
      return I;
    llvm::StringRef Word = Tokens[I].Text;
    AggregateKeyword Keyword = Word == "thread"      ? AggregateKeyword::Thread
                               : Word == "coroutine" ? AggregateKeyword::Coroutine
                                                     : AggregateKeyword::Monitor;
    std::string Struct = "struct";
    Struct.resize(std::max<size_t>(Word.size(), Struct.size()), ' ');
    replaceToken(I, Struct);
    Result.Types.push_back({Tokens[I + 1].Text.str(), Keyword, Tokens[I].Offset});
    if (Keyword == AggregateKeyword::Monitor)
      error(Tokens[I].Offset, "monitor types are not supported yet by this cfacc "
                              "(monitors, mutex parameters and waitfor come next)");
    if (isKind(I + 2, clang::tok::semi))
      return I + 2;
    size_t Close = Partner[I + 2];
    if (Close == None) {
      error(Tokens[I + 2].Offset, "expected '}' to end the body of '" + Tokens[I + 1].Text.str() + "'");
      return I + 2;
    }
    if (Keyword != AggregateKeyword::Monitor) {
      size_t Last = Close - 1; // token before '}'
      bool NeedsSemi = !isKind(Last, clang::tok::semi) && !isKind(Last, clang::tok::l_brace);
      std::string Member = Keyword == AggregateKeyword::Thread
                               ? std::string(" struct cfa_thread ") + ThreadDescriptorMember + ";"
                               : std::string(" struct cfa_coroutine ") + CoroutineDescriptorMember + ";";
      addEdit(endOf(Last), endOf(Last), (NeedsSemi ? ";" : "") + Member, Tokens[Close].Offset);
    }
    return I + 2; // the body is scanned normally
  }

  // main([const] [struct] X *[const] [name]) -> __cfa_main_X(...)
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
    if (J < Close && isName(J))
      ++J;
    if (J != Close)
      return I;
    replaceToken(I, TypeMainPrefix + Tokens[TypeName].Text.str());
    return I;
  }

  // `T new(`: the word before is a type (or a name), not an expression
  // keyword, so a C function named new is being declared or defined.
  bool isNewDeclaration(size_t I) const {
    if (I == 0 || Tokens[I - 1].Kind != clang::tok::raw_identifier)
      return false;
    llvm::StringRef Prev = Tokens[I - 1].Text;
    return !(Prev == "return" || Prev == "case" || Prev == "sizeof" || Prev == "else" || Prev == "do");
  }

  // A C file with its own function `new` keeps it: then `new(` is a call.
  bool declaresFunctionNamedNew() const {
    for (size_t I = 0; I + 1 < Tokens.size(); ++I)
      if (isWord(I, "new") && isKind(I + 1, clang::tok::l_paren) && isNewDeclaration(I))
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
      Out += Overload + N + " *join(" + N + " *); " + Overload + "void unpark(" + N + " *); ";
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
    Synthesize("#include <cfa/prelude.h>\n", 0);
    for (const DeclaredExtensionType &T : Result.Types)
      Synthesize(prologueFor(T), T.KeywordOffset);
    Synthesize("\n#line 1 " + quoted(PresumedName) + "\n", 0);

    std::sort(Edits.begin(), Edits.end(), [](const Edit &A, const Edit &B) {
      return A.Begin != B.Begin ? A.Begin < B.Begin : A.Sequence < B.Sequence;
    });
    unsigned Cursor = 0;
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

// StageTwoDiagnostics: see StageTwoDiagnostics.h.
#include "StageTwoDiagnostics.h"
#include "UserNames.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <map>
#include <vector>

namespace cfacc {
namespace {

std::string canonical(llvm::StringRef Path) {
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}


// Column map from one line to another: for each byte of From, the byte of
// To it corresponds to, by a longest common subsequence of characters;
// a byte inside an insertion maps to the byte after the last match.
class ColumnMap {
public:
  ColumnMap(llvm::StringRef From, llvm::StringRef To) : ToSize(To.size()) {
    size_t N = From.size(), M = To.size();
    Map.assign(N + 1, 0);
    Matched.assign(N, false);
    if (N * M > 4000000) { // a pathological line: keep the columns
      for (size_t I = 0; I <= N; ++I)
        Map[I] = std::min(I, M);
      return;
    }
    std::vector<std::vector<unsigned>> L(N + 1, std::vector<unsigned>(M + 1, 0));
    for (size_t I = N; I-- > 0;)
      for (size_t J = M; J-- > 0;)
        L[I][J] = From[I] == To[J] ? L[I + 1][J + 1] + 1 : std::max(L[I + 1][J], L[I][J + 1]);
    size_t I = 0, J = 0;
    while (I < N) {
      if (J < M && From[I] == To[J] && L[I][J] == L[I + 1][J + 1] + 1) {
        Matched[I] = true;
        Map[I++] = J++;
      } else if (J < M && L[I][J + 1] >= L[I + 1][J]) {
        ++J;
      } else {
        Map[I++] = J;
      }
    }
    Map[N] = M;
  }
  // Whether From's byte has a counterpart in To (it is not lowered code).
  bool matched(size_t Byte) const { return Byte < Matched.size() && Matched[Byte]; }
  // 0-based byte of From -> 0-based byte of To.
  size_t operator()(size_t Byte) const {
    return Byte < Map.size() ? Map[Byte] : ToSize + (Byte - (Map.size() - 1));
  }

private:
  std::vector<size_t> Map;
  std::vector<bool> Matched;
  size_t ToSize;
};

class Rewriter {
public:
  explicit Rewriter(const StageTwoSources &S) : Sources(S) {}

  std::string run(llvm::StringRef Output) {
    llvm::SmallVector<llvm::StringRef, 64> Lines;
    Output.split(Lines, '\n');
    std::string Out;
    for (size_t I = 0; I < Lines.size(); ++I) {
      llvm::SmallVector<llvm::StringRef, 6> M;
      if (!Location.match(Lines[I], &M)) {
        if (!Dropping || !isSnippetLine(Lines[I]))
          emit(Out, withUserNames(Lines[I].str()), I + 1 == Lines.size());
        if (!isSnippetLine(Lines[I]))
          Dropping = false;
        continue;
      }
      std::string File = canonical(M[1]);
      std::string Message = withUserNames(M[5].str());
      // A note in cfacc's headers, or one that only proposed a helper's name.
      Dropping = M[4] == "note" && (isOwnHeader(File) || Message.empty());
      if (Dropping)
        continue;
      const std::vector<std::string> *Original = originalLines(File);
      unsigned Line = 0, Column = 0;
      M[2].getAsInteger(10, Line);
      M[3].getAsInteger(10, Column);
      if (Original && Line > Original->size()) {
        // Code that lowering appended after the user's last line (the
        // static objects' constructors): an error there follows from one
        // the user left open (a missing '}'); it is reported at the end of
        // the user's file, without the lowered line.
        emit(Out, M[1].str() + ":" + std::to_string(Original->size()) + ":1: " + M[4].str() + ": " + Message,
             false);
        Dropping = true;
        continue;
      }
      llvm::SmallVector<llvm::StringRef, 3> Quote;
      if (!Original || Line == 0 || I + 1 >= Lines.size() ||
          !Quoted.match(Lines[I + 1], &Quote)) {
        emit(Out, withUserNames(Lines[I].str()), false);
        continue;
      }
      // The location, the quoted line, then its marker lines (caret, fix-it).
      llvm::StringRef Emitted = Quote[2];
      const std::string &User = (*Original)[Line - 1];
      ColumnMap Columns(Emitted, User);
      // A note about code that lowering wrote (a declaration it added)
      // would point at an unrelated user line.
      if (M[4] == "note" && !Columns.matched(Column ? Column - 1 : 0)) {
        Dropping = true;
        continue;
      }
      std::string Head = M[1].str() + ":" + M[2].str() + ":" +
                         std::to_string(Columns(Column ? Column - 1 : 0) + 1) + ": " + M[4].str() + ": " +
                         Message;
      emit(Out, Head, false);
      ++I;
      emitQuote(Out, Lines, I, Quote[1], User, Columns);
      // A range over several lines quotes the lines after the first too:
      // each is the user's line of the same number (lowering keeps lines).
      while (I + 1 < Lines.size() && Quoted.match(Lines[I + 1], &Quote)) {
        ++I;
        unsigned Next = 0;
        Quote[1].trim().drop_back().trim().getAsInteger(10, Next);
        if (Next == 0 || Next > Original->size()) { // lowered lines past the user's end
          while (I + 1 < Lines.size() && isMarkerLine(Lines[I + 1], Quote[1].size()))
            ++I;
          continue;
        }
        const std::string &NextUser = (*Original)[Next - 1];
        emitQuote(Out, Lines, I, Quote[1], NextUser, ColumnMap(Quote[2], NextUser));
      }
    }
    return Out;
  }

private:
  const StageTwoSources &Sources;
  std::map<std::string, std::vector<std::string>> Cache;
  bool Dropping = false;
  llvm::Regex Location{"^(.+):([0-9]+):([0-9]+): (error|warning|note|remark|fatal error): (.*)$"};
  llvm::Regex Quoted{"^( *[0-9]+ \\| )(.*)$"};

  // The quoted line at Lines[I], as the user's line, then its marker lines
  // (caret, ranges, fix-its) moved under the user's columns; I ends on the
  // last line used.
  static void emitQuote(std::string &Out, llvm::ArrayRef<llvm::StringRef> Lines, size_t &I,
                        llvm::StringRef Prefix, const std::string &User, const ColumnMap &Columns) {
    emit(Out, Prefix.str() + User, false);
    while (I + 1 < Lines.size() && isMarkerLine(Lines[I + 1], Prefix.size())) {
      ++I;
      if (!Lines[I].contains("__cfa")) // a fix-it inserting a helper's name
        emit(Out, moveMarkers(Lines[I], Prefix.size(), Columns), false);
    }
  }

  static void emit(std::string &Out, const std::string &Line, bool Last) {
    Out += Line;
    if (!Last)
      Out += '\n';
  }

  static bool isSnippetLine(llvm::StringRef L) {
    llvm::StringRef T = L.ltrim(' ');
    return T.starts_with("|") || (!T.empty() && llvm::isDigit(T[0]) && T.contains(" | "));
  }

  static bool isMarkerLine(llvm::StringRef L, size_t Prefix) {
    return L.size() >= Prefix - 1 && L.take_front(Prefix - 2).trim(' ').empty() &&
           L.substr(Prefix - 2).starts_with("|");
  }

  bool isOwnHeader(const std::string &File) const {
    return !Sources.IncludeDir.empty() && llvm::StringRef(File).starts_with(Sources.IncludeDir + "/");
  }

  const std::vector<std::string> *originalLines(const std::string &File) {
    if (!Sources.Translated.count(File))
      return nullptr;
    auto It = Cache.find(File);
    if (It != Cache.end())
      return &It->second;
    std::vector<std::string> &Lines = Cache[File];
    if (auto Buffer = llvm::MemoryBuffer::getFile(File)) {
      llvm::SmallVector<llvm::StringRef, 128> Split;
      (*Buffer)->getBuffer().split(Split, '\n');
      for (llvm::StringRef L : Split)
        Lines.push_back(L.rtrim('\r').str());
    }
    return &Lines;
  }

  // A marker line's characters after its prefix sit under the quoted
  // emitted line's columns: move each under the user's.
  static std::string moveMarkers(llvm::StringRef L, size_t Prefix, const ColumnMap &Columns) {
    std::string Moved = L.take_front(std::min(L.size(), Prefix)).str();
    llvm::StringRef Marks = L.size() > Prefix ? L.substr(Prefix) : "";
    std::string Row;
    for (size_t K = 0; K < Marks.size(); ++K) {
      if (Marks[K] == ' ')
        continue;
      size_t At = Columns(K);
      if (Row.size() <= At)
        Row.resize(At + 1, ' ');
      if (Row[At] == ' ' || Marks[K] == '^')
        Row[At] = Marks[K];
    }
    return Moved + Row;
  }
};

} // namespace

std::string rewriteStageTwoDiagnostics(llvm::StringRef Output, const StageTwoSources &Sources) {
  return Rewriter(Sources).run(Output);
}

} // namespace cfacc

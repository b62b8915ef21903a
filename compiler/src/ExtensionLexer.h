// ExtensionLexer: desugars cfa-lite's extension syntax at the token level.
//
// Input: the text of one .cfa or .hfa file. Output: C that Clang can parse,
// with the same lines (a prologue that includes the prelude, after the
// file's leading directives (LeadingDirectives.h), ends in `#line`), a SourceMap
// back to the input, the extension types the file declares, and lexical
// errors. Clang's raw Lexer supplies the tokens; preprocessor directives are
// left untouched. Every construct is contextual (LANGUAGE.md section 1):
//
//   thread X {  /  coroutine X {   -> struct X { ... <descriptor member>; }
//   monitor X {                    -> struct X { ... struct cfa_monitor __cfa_monitor; }
//   thread X ;  (coroutine, monitor) -> struct X ;
//   T *mutex p  (a parameter)      -> T *__attribute__((annotate("cfa_mutex"))) p
//   mutex (a, b) { ... }           -> a block that enters the monitors (see
//                                     desugarMutexStatement)
//   waitfor(f, m) S or when (g) waitfor(f2, m) S2 or timeout(d) S3 or else S4
//                                  -> an if/else-if chain (see desugarWaitfor)
//   main(X *p)                     -> __cfa_main_X(X *p)   (one pointer param)
//   new(T, inits)                  -> __cfa_new((T){inits})  (new(T): (T){0})
//                                     (not in a file that declares its own
//                                     C function named new)
//   10`ms, x`s, (a+b)`us           -> ms(10), s(x), us((a+b))
//   suspend;  (a statement)        -> suspend();  (not in a file that
//                                     declares its own C function suspend)
//   corun S                        -> switch (__cfa_corun) default: S
//   cofor (i; lo ~ hi) S           -> for (__auto_type i = (lo); __cfa_cofor; (void)(hi)) S
//   cofor (i; N) S                 -> for (__auto_type i = 0; __cfa_cofor; (void)(N)) S
//                                     (both lowered by ForkJoinLowering; not in
//                                     a file with its own function of that name)
//
// The prologue includes <cfa/prelude.h> and declares, per type, the typedef
// and the per-type overloads (join/unpark for threads, resume for
// coroutines) so that `resume(&f)->fn` type-checks. What needs types (the
// member path to a monitor, whether waitfor names a mutex function) is left
// to the monitor pass: the lexer marks it with __cfa_monitor_of(...) and
// the annotation. Their bodies come later
// from the AST lowering. The function never fails and never reads outside
// its input (a libFuzzer target checks this).
#ifndef CFACC_EXTENSION_LEXER_H
#define CFACC_EXTENSION_LEXER_H

#include "SourceMap.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace cfacc {

enum class AggregateKeyword { Thread, Coroutine, Monitor };

struct DeclaredExtensionType {
  std::string Name;
  AggregateKeyword Keyword;
  unsigned KeywordOffset; // in the original text
};

struct LexicalError {
  unsigned Offset; // in the original text
  std::string Message;
};

// A brace group at file scope (a function body, a struct body, an
// initializer) and the distinct identifiers written inside it. The
// translator uses it to decide, before Clang parses a function body,
// whether the body can need lowering (see Translator.cpp).
struct TopLevelGroup {
  unsigned Begin, End; // original offsets of '{' and '}'
  std::vector<std::string> Identifiers;
  bool Desugared = false; // the lexer rewrote something inside
};

struct DesugaredFile {
  std::string Text;
  SourceMap Map;
  std::vector<DeclaredExtensionType> Types;
  std::vector<LexicalError> Errors;
  std::vector<TopLevelGroup> Groups; // sorted by Begin
  unsigned PreludeEnd = 0; // in Text: just after the `#include <cfa/prelude.h>` line
};

// Name of the descriptor member embedded (last) in each extension type.
inline constexpr const char *ThreadDescriptorMember = "__cfa_thread";
inline constexpr const char *CoroutineDescriptorMember = "__cfa_cor";
inline constexpr const char *MonitorDescriptorMember = "__cfa_monitor";
// The annotation that marks a `mutex` parameter (annotate attribute).
inline constexpr const char *MutexAnnotation = "cfa_mutex";
// Prefix of the renamed per-type main functions: __cfa_main_<Type>.
inline constexpr const char *TypeMainPrefix = "__cfa_main_";

DesugaredFile desugarExtensions(llvm::StringRef Source, llvm::StringRef PresumedName);

// True for file names cfacc desugars: *.cfa and *.hfa.
bool isExtensionSourceName(llvm::StringRef Path);

} // namespace cfacc
#endif

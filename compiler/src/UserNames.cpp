// UserNames: see UserNames.h.
#include "UserNames.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

namespace cfacc {

std::string withUserNames(std::string Text) {
  static const llvm::Regex TypeMain("__cfa_main_[A-Za-z0-9_$]+");
  static const llvm::Regex Unit("__cfa_(ns|us|ms|s)([^A-Za-z0-9_]|$)");
  // new(T, ...) is typed through the prelude's literal: show its type.
  static const llvm::Regex NewType("'(const )?typeof \\(\\*__cfa_literal\\) \\*' \\(aka '([^']*)'\\)");
  // new(T, ...) whose T did not parse as a type: the prelude's literal got
  // whatever was left (a function, say), or nothing.
  static const llvm::Regex NewNotType("variable '__cfa_literal' .*");
  // A macro of the prelude the user's text expanded: new() is one; the
  // note about any other only shows how the prelude is built (dropped).
  static const llvm::Regex NewMacro("macro '__cfa_new'");
  static const llvm::Regex HelperMacroNote("^expansion of macro '__cfa[A-Za-z0-9_$]*' requested here$");
  // The note under a dropped suggestion: where the helper is declared.
  static const llvm::Regex HelperDeclaredNote("^'__cfa[A-Za-z0-9_$]*' declared here$");
  // A typo correction that proposes a helper of the lowered program (the
  // user wrote `_cfa_waitfor_addt`) is no help: the message ends before it,
  // and a note that is only the suggestion becomes empty (not printed).
  static const llvm::Regex HelperSuggestion("(; )?did you mean '__cfa[A-Za-z0-9_$]*'\\?");
  while (TypeMain.match(Text))
    Text = TypeMain.sub("main", Text);
  while (Unit.match(Text))
    Text = Unit.sub("\\1\\2", Text);
  while (NewType.match(Text))
    Text = NewType.sub("'\\2'", Text);
  if (NewNotType.match(Text))
    Text = NewNotType.sub("'new' needs a type: new(T) or new(T, initializers)", Text);
  while (NewMacro.match(Text))
    Text = NewMacro.sub("'new'", Text);
  if (HelperMacroNote.match(Text) || HelperDeclaredNote.match(Text))
    Text.clear();
  while (HelperSuggestion.match(Text))
    Text = HelperSuggestion.sub("", Text);
  return Text;
}

bool isHelperCascade(const std::string &Text) {
  static const llvm::Regex Undeclared("^(use of undeclared identifier|unknown type name) '__cfa[A-Za-z0-9_$]*'(; did you mean '[^']*'\\?)?$");
  return Undeclared.match(Text);
}

const char HelperCascadeAlone[] =
    "internal error: cfacc lowered this construct incompletely; please report the program";

} // namespace cfacc

// UserNames: the names of the lowered program, in a diagnostic's text,
// spelt as the user wrote them: a type's main (`__cfa_main_T`) is `main`,
// a duration unit (`__cfa_ms`, what the prelude's `ms(n)` expands to) is
// `ms`, the type of `new(T, ...)` is `T *` (not the prelude's
// `typeof (*__cfa_literal) *`), the prelude's `__cfa_new` macro is `new`;
// a typo correction that proposes a helper (`did you mean
// '__cfa_waitfor_add'?`) and a note naming another prelude macro are
// dropped. Both stages' diagnostic printers apply it to every message.
//
// A helper that lowering declares is undeclared only where the user's own
// error broke its declaration (`mutex (*a] ) {...}` loses the statement's
// monitor array): such an error (isHelperCascade) is dropped, with its
// notes and from the error count, when an earlier error was reported;
// otherwise it is a defect of cfacc and says so (HelperCascadeAlone).
// Stage 1 reports it (the lowering that lost the declaration ran there
// and stopped the compilation), so only its printer applies this rule.
#ifndef CFACC_USER_NAMES_H
#define CFACC_USER_NAMES_H

#include <string>

namespace cfacc {
std::string withUserNames(std::string Text);
bool isHelperCascade(const std::string &Text);
extern const char HelperCascadeAlone[];
} // namespace cfacc
#endif

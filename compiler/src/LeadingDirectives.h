// LeadingDirectives: where the prelude goes in a .cfa or .hfa file.
//
// A C file's first lines may configure the C library before anything
// includes it: `#define _GNU_SOURCE`, `_POSIX_C_SOURCE`,
// `_FILE_OFFSET_BITS`, `#undef`, `#pragma`. The prelude includes C library
// headers, so it must come after those lines, or they would have no effect
// (<features.h> is read once). The leading section is every line before
// the first that is neither blank, a comment, nor one of the directives
// `define`, `undef`, `pragma`, `error`, `warning`, `ident`; a conditional
// group (`#if`/`#ifdef`/`#ifndef` ... `#endif`) belongs to it when all of
// its lines do, as in `#ifndef _GNU_SOURCE #define _GNU_SOURCE #endif`.
// Anything else (an `#include`, a line of code) ends the section; it ends
// after its last directive (or complete group), so comments after that
// stay after the prelude.
#ifndef CFACC_LEADING_DIRECTIVES_H
#define CFACC_LEADING_DIRECTIVES_H

#include "llvm/ADT/StringRef.h"

namespace cfacc {

// The offset where the leading section of Source ends: just after the
// newline of its last directive, or 0 when it has none.
unsigned leadingDirectivesEnd(llvm::StringRef Source);

} // namespace cfacc
#endif

// StageTwoDiagnostics: puts the user's source back into what clang says
// about the emitted C (stage 2).
//
// Stage 2 compiles the emitted C through a VFS overlay, and the #line
// markers make its diagnostics name the user's files and lines; but its
// columns, and the source lines it quotes, are those of the emitted text,
// where a line may hold lowered code (`void __cfa_main_T(T *this)` for the
// user's `void main(T *this)`). This rewrites clang's text output:
//  - the quoted line of a translated file becomes the user's line, and the
//    column of the location, the caret and range markers and fix-its move
//    to the matching characters of that line (a character alignment of the
//    two lines: lowering only inserts, removes and renames);
//  - notes located in cfacc's own headers (the prelude, the library's
//    macros), or at code that lowering added, are dropped: the diagnostic
//    they explain already points at the user's code;
//  - lowered names of type mains read `main`, as the user wrote them.
// Lines about other files pass through unchanged.
#ifndef CFACC_STAGE_TWO_DIAGNOSTICS_H
#define CFACC_STAGE_TWO_DIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"

#include <set>
#include <string>

namespace cfacc {

struct StageTwoSources {
  std::set<std::string> Translated; // absolute paths of the .cfa/.hfa files translated
  std::string IncludeDir;           // cfacc's headers (prelude, library)
};

// Returns Output (clang's stderr, without colours) in the user's terms.
std::string rewriteStageTwoDiagnostics(llvm::StringRef Output, const StageTwoSources &Sources);

} // namespace cfacc
#endif

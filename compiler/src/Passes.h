// Passes: the AST lowering passes, run in this order on a parsed
// translation unit. Each reads the AST, reports misuse through the
// LoweringContext and records Rewriter edits; none changes the AST.
//
//  1. lowerTypeMains      main(T *) bodies: validate, register, canonical name
//  2. lowerObjectLifetimes  declarations: RAII start/stop, statics, by-value rules
//  3. lowerHeapObjects    new(...) and delete(...)
//  4. lowerMonitors       mutex parameters and statements, waitfor clauses
//  5. lowerForkJoin       corun and cofor: bodies into generated functions
//  6. emitHelpers         per-type helpers, cleanups, static start/stop
#ifndef CFACC_PASSES_H
#define CFACC_PASSES_H

#include "LoweringContext.h"

namespace cfacc {

void lowerTypeMains(LoweringContext &L);
void lowerObjectLifetimes(LoweringContext &L);
void lowerHeapObjects(LoweringContext &L);
void lowerMonitors(LoweringContext &L);
void lowerForkJoin(LoweringContext &L);
void emitHelpers(LoweringContext &L, clang::FileID MainFile);

} // namespace cfacc
#endif

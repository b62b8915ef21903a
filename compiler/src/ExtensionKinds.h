// ExtensionKinds: which objects have a lifetime cfacc manages.
//
// A type's kind is decided on Clang's canonical type, arrays stripped:
//  - Thread:    a struct whose last member is `struct cfa_thread __cfa_thread`
//  - Coroutine: a struct whose last member is `struct cfa_coroutine __cfa_cor`
//  - Processor: struct cfa_processor (`processor` in the prelude)
//  - Cluster:   struct cfa_cluster (`cluster`)
// The descriptor member is added only by the extension lexer, so the test
// is exact for types declared with `thread`/`coroutine`. (Monitors will add
// a kind here; a thread will also count as a monitor.)
#ifndef CFACC_EXTENSION_KINDS_H
#define CFACC_EXTENSION_KINDS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Type.h"

#include <string>

namespace cfacc {

enum class ExtensionKind { None, Thread, Coroutine, Processor, Cluster };

// Kind of T itself (an array of threads is None here).
ExtensionKind kindOfType(clang::QualType T);

// Kind of the element type after stripping every array level, and the
// total number of elements (1 for a non-array). VLAs count as None.
struct ObjectShape {
  ExtensionKind Kind = ExtensionKind::None;
  clang::QualType Element;
  uint64_t Count = 1;
};
ObjectShape shapeOf(clang::QualType T, const clang::ASTContext &Ctx);

// "thread", "coroutine", "processor", "cluster".
const char *kindName(ExtensionKind K);

// The record's name as the user wrote it (the typedef equals the tag).
std::string typeNameOf(clang::QualType T);

} // namespace cfacc
#endif

// ExtensionKinds: which objects have a lifetime cfacc manages.
//
// A type's kind is decided on Clang's canonical type, arrays stripped:
//  - Thread:    a struct whose last member is `struct cfa_thread __cfa_thread`
//  - Coroutine: a struct whose last member is `struct cfa_coroutine __cfa_cor`
//  - Monitor:   a struct whose last member is `struct cfa_monitor __cfa_monitor`
//  - Processor: struct cfa_processor (`processor` in the prelude)
//  - Cluster:   struct cfa_cluster (`cluster`)
//  - Condition: struct cfa_condition (`condition`)
// The descriptor member is added only by the extension lexer, so the test
// is exact for types declared with `thread`/`coroutine`/`monitor`.
//
// Kinds differ in what cfacc does with their objects: threads, coroutines,
// processors and clusters have a managed lifetime (started, stopped at
// scope exit); monitors and conditions only need to start all-zero (the
// runtime's ready state), so they are zero-initialised and never copied.
// A thread is also a monitor: its descriptor embeds one (self_monitor).
#ifndef CFACC_EXTENSION_KINDS_H
#define CFACC_EXTENSION_KINDS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Type.h"

#include <string>

namespace cfacc {

enum class ExtensionKind { None, Thread, Coroutine, Monitor, Processor, Cluster, Condition };

// Started and stopped by cfacc (RAII): thread, coroutine, processor, cluster.
bool hasManagedLifetime(ExtensionKind K);
// Ready when all-zero, nothing to start: monitor, condition.
bool isZeroInitKind(ExtensionKind K);

// The runtime descriptor member the extension lexer adds last to threads,
// coroutines and monitors ("__cfa_thread", "__cfa_cor", "__cfa_monitor"),
// or "" for the other kinds.
std::string descriptorMemberOf(ExtensionKind K);

// The path from an object of kind K to its `struct cfa_monitor`
// ("__cfa_monitor", or "__cfa_thread.self_monitor" for a thread), or an
// empty string when objects of kind K are not monitors.
std::string monitorMemberOf(ExtensionKind K);

// Does an object of type T hold a monitor or condition anywhere in its
// members or elements (so that it must start all-zero)?
bool containsZeroInitKind(clang::QualType T, const clang::ASTContext &Ctx);

// Kind of T itself (an array of threads is None here).
ExtensionKind kindOfType(clang::QualType T);

// Kind of the element type after stripping every array level, and the
// total number of elements (1 for a non-array). An array with a size known
// only at run time (a C variable-length array, at any level) has
// VariableLength set and Count 0: its element count is `sizeof` the object
// over `sizeof` one element, evaluated where it is declared.
struct ObjectShape {
  ExtensionKind Kind = ExtensionKind::None;
  clang::QualType Element;
  uint64_t Count = 1;
  bool VariableLength = false;
};
ObjectShape shapeOf(clang::QualType T, const clang::ASTContext &Ctx);

// "thread", "coroutine", "monitor", "processor", "cluster", "condition".
const char *kindName(ExtensionKind K);

// The record's name as the user wrote it (the typedef equals the tag).
std::string typeNameOf(clang::QualType T);

} // namespace cfacc
#endif

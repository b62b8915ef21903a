/* cfa/internal/assert.h: the debug build's invariant check, for the
 * runtime, the standard library and the headers they share (internal:
 * not part of the user API).
 *
 * cfa_assert(invariant, cond): where CFA_DEBUG is defined (the debug
 * build, CMake option CFA_DEBUG), when cond is false the program stops with
 *   cfa-lite: invariant '<invariant>' broken in thread '<name>' (0x...) at file.c:line
 * (the thread is the running user thread, or "scheduler" on a processor
 * between threads, or "kernel thread" elsewhere) and aborts. Otherwise it
 * compiles to nothing: cond is not even compiled (it may name fields that
 * only the debug build has). invariant_broken is the debug runtime's.
 */
#ifndef CFA_INTERNAL_ASSERT_H
#define CFA_INTERNAL_ASSERT_H

#ifdef CFA_DEBUG
__attribute__((noreturn, cold)) void invariant_broken(const char *invariant, const char *file, int line);
#define cfa_assert(invariant, cond) \
    (__builtin_expect(!!(cond), 1) ? (void)0 : invariant_broken((invariant), __FILE_NAME__, __LINE__))
#define CFA_DEBUG_ONLY(...) __VA_ARGS__
#else
#define cfa_assert(invariant, cond) ((void)0)
#define CFA_DEBUG_ONLY(...)
#endif

#endif

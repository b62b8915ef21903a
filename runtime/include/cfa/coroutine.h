/* cfa/coroutine.h: stackful coroutines, the execution unit under every
 * user thread.
 *
 * A cfa_coroutine is embedded (as the last member) in each object of a
 * `coroutine` type, and inside every cfa_thread as the thread's own stack.
 * An all-zero descriptor is a valid, not-yet-set-up coroutine: objects in
 * static storage, on the stack or from calloc need no set-up call before
 * cfa_coroutine_setup().
 *
 * Invariants:
 *  - a coroutine has no stack until its first resume (lazy stack);
 *  - `last` is the coroutine that most recently resumed it: suspend()
 *    returns there (last-resumer semantics);
 *  - `starter` is the first resumer: when main returns, control goes there;
 *  - a coroutine runs on at most one user thread at a time, the thread
 *    that resumed it.
 */
#ifndef CFA_COROUTINE_H
#define CFA_COROUTINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*cfa_main_fn)(void *object);

enum cfa_coroutine_state {
    CFA_COROUTINE_INACTIVE = 0, /* zeroed or set up, never resumed: no stack */
    CFA_COROUTINE_ACTIVE,       /* has a stack, main has not returned */
    CFA_COROUTINE_HALTED,       /* main returned; resuming it is an error */
};

/* Where a suspended execution resumes: its stack pointer. The callee-saved
 * registers, MXCSR and the x87 control word are on that stack. */
struct cfa_context {
    void *sp;
};

/* A mapped stack. The lowest `guard` bytes are guard pages, so that an
 * overflow faults and is reported by name (see cfa_fault), or, when
 * `canary` is set, mapped memory left untouched that every switch away
 * from the stack checks (runtime/src/stack.c says when). */
struct cfa_stack {
    void  *map;        /* start of the mapping, guard included */
    size_t map_size;   /* whole mapping */
    size_t guard;      /* bytes of guard at the bottom */
    unsigned memcheck_id; /* valgrind's id for the stack; 0 outside valgrind */
    unsigned char canary; /* no guard pages: the switch checks the canary */
};

struct cfa_coroutine {
    struct cfa_context    ctx;
    struct cfa_stack      stack;
    size_t                stack_size;  /* requested usable size; 0 = default */
    cfa_main_fn           main;
    void                 *object;      /* the user object main receives */
    const char           *type_name;   /* e.g. "Fib": used in diagnostics */
    const char           *name;        /* user-given name, or NULL */
    struct cfa_coroutine *starter;
    struct cfa_coroutine *last;
    int                   state;       /* enum cfa_coroutine_state */
    void                 *sanitizer_fiber; /* TSan fiber, when built with TSan */
    struct cfa_coroutine *all_prev, *all_next; /* started, not halted: the registry (debugger) */
};

/* Records main and object; allocates nothing. May be repeated while the
 * coroutine is inactive. */
void cfa_coroutine_setup(struct cfa_coroutine *c, cfa_main_fn main, void *object,
                         const char *type_name);

/* Runs c until it suspends or its main returns. Aborts the program with a
 * message naming the coroutine if c has already halted. */
void cfa_coroutine_resume(struct cfa_coroutine *c);

/* Returns to the last resumer of the running coroutine. Calling it outside
 * any coroutine (on a thread's own stack) is an error reported by name. */
void cfa_coroutine_suspend(void);

/* Frees c's stack whatever its state. c must not be running. */
void cfa_coroutine_destroy(struct cfa_coroutine *c);

/* The coroutine (or thread stack) now executing on the calling thread. */
struct cfa_coroutine *cfa_coroutine_active(void);

#ifdef __cplusplus
}
#endif
#endif

/* cfa/errno.h: errno of the running user thread.
 *
 * errno belongs to the user thread: the runtime saves it whenever a thread
 * gives its processor up and restores it when the thread runs again. But
 * glibc reaches errno through __errno_location(), declared `const`, so a
 * compiler may compute the address once and reuse it across a call that
 * switches threads; once the thread has moved to another processor (a
 * kernel thread), that address is the other kernel thread's errno. Here
 * errno calls __errno_location through a volatile pointer, which no
 * compiler may assume const: the address is found afresh at every use.
 * cfa/runtime.h includes this header, so cfacc's prelude brings it into
 * every .cfa file after the file's feature-test macros.
 */
#ifndef CFA_ERRNO_H
#define CFA_ERRNO_H

#include <errno.h>

static inline __attribute__((always_inline)) int *cfa_errno_location(void)
{
    int *(*volatile location)(void) = __errno_location;
    return location();
}

#undef errno
#define errno (*cfa_errno_location())

#endif

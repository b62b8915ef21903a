/* interpose_static.h: the names of the runtime's definitions of C library
 * functions in its static flavour (libcfa-static.a, compiled with
 * CFA_STATIC_LIBC, for `cfacc -static`).
 *
 * A static program has no dynamic linker to find glibc's definition
 * behind the runtime's: both would be definitions of one name in one
 * link. So here each function of cfa/internal/interposed.def is defined
 * as __wrap_<name> (an assembler name on its declaration), and cfacc
 * links with `-Wl,--wrap=<name>`: the linker sends every reference to
 * <name> to __wrap_<name> and every reference to __real_<name> (pt_real)
 * to glibc's <name>, whose libc.a member that strong reference pulls in.
 * Included by pthread_wait.h, before any of these definitions. */
#ifndef CFA_INTERPOSE_STATIC_H
#define CFA_INTERPOSE_STATIC_H

#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define CFA_INTERPOSED(name) extern __typeof__(name) name __asm__("__wrap_" #name);
#include <cfa/internal/interposed.def>
#undef CFA_INTERPOSED

#endif

/* lock_release.h: how a condition variable lets go of a lock and takes it
 * back (condition_variable.c), for each lock type. `release` must be
 * called by the holder; it returns what `reacquire` needs to restore (the
 * owner_lock's nesting).
 */
#ifndef CFA_STD_SRC_LOCK_RELEASE_H
#define CFA_STD_SRC_LOCK_RELEASE_H

#include <cfa/std/mutex_lock.h>
#include <cfa/std/owner_lock.h>

#include "waitq.h"

STD_HIDDEN unsigned std_owner_lock_release_all(struct cfa_owner_lock *l);
STD_HIDDEN void     std_owner_lock_reacquire(struct cfa_owner_lock *l, unsigned depth);

#endif

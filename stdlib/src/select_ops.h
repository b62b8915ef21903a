/* select_ops.h: what waituntil (select.c) needs from channels and futures:
 * their "complete it now, if possible" steps, called under the object's
 * lock. Each returns CFA_CHANNEL_OK when it completed the operation,
 * CFA_CHANNEL_WOULD_BLOCK when the caller would have to wait,
 * CFA_CHANNEL_CLOSED when the channel is closed (a send; a receive once the
 * channel is drained), and a send to a full unbounded channel
 * STD_CHANNEL_NEED_ROOM: the caller unlocks, calls std_channel_make_room
 * and tries again. Completed waits of other threads go to `wakes`.
 */
#ifndef CFA_STD_SRC_SELECT_OPS_H
#define CFA_STD_SRC_SELECT_OPS_H

#include <cfa/std/channel.h>
#include <cfa/std/future.h>

#include "waitq.h"

enum { STD_CHANNEL_NEED_ROOM = 3 };

STD_HIDDEN int  std_channel_send_now(struct cfa_channel *c, const void *value, struct std_wakes *wakes);
STD_HIDDEN int  std_channel_recv_now(struct cfa_channel *c, void *out, struct std_wakes *wakes);
/* Without c's lock: grows a full unbounded channel's ring. */
STD_HIDDEN void std_channel_make_room(struct cfa_channel *c);
/* Under f's lock: true (value copied to out unless NULL) if fulfilled. */
STD_HIDDEN bool std_future_get_now(struct cfa_future *f, const void *slot, void *out, size_t size);

#endif

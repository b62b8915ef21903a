/* monitor.h: monitor.c's API inside the runtime. */
#ifndef CFA_MONITOR_INTERNAL_H
#define CFA_MONITOR_INTERNAL_H

struct cfa_mutex_group;

/* The end of a thread's main, whose call on its own monitor (g, one
 * monitor, never nested) ends just before the thread halts. */
void monitor_leave_then_halt(struct cfa_mutex_group *g);

#endif

/* stats.h: CFA_STATS, the counters printed at exit (stats.c). */
#ifndef CFA_STATS_H
#define CFA_STATS_H

void stats_configure(void);

#endif

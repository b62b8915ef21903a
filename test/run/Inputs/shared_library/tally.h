/* The C interface of libtally.so, a library written in cfa-lite. */
#ifndef TALLY_H
#define TALLY_H
/* Adds 0 .. n-1 into a monitor from four threads on two processors;
 * returns what the monitor gained and, in *calls, how many mutex calls
 * it took. */
long tally_sum(long n, long *calls);
#endif

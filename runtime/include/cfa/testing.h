/* cfa/testing.h: hooks for the runtime's own tests, present in every
 * build. Each forces an event that a test needs but that happens only by
 * luck otherwise (where an asynchronous signal lands). Not for programs.
 */
#ifndef CFA_TESTING_H
#define CFA_TESTING_H
#include <stdbool.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Runs the preemption signal's handler (runtime/src/preemption.c) on the
 * calling user thread as if the signal had interrupted it at program
 * counter `pc`: the handler yields (and this returns true once the thread
 * runs again) or drops the tick (false), counting both in CFA_STATS as a
 * real signal. False when preemption is off. */
bool cfa_test_preemption_at(const void *pc);

/* Loads the cache topology from a tree laid out as /sys at `root`
 * (root/sys/devices/system/cpu/...), as a program linked without hwloc
 * reads /sys, and simulates that machine from then on
 * (runtime/src/topology.h); stores the cache instance of CPUs 0 .. n-1 in
 * cache_of[]. Returns the number of instances, 0 if the tree is
 * unreadable. Call before the program starts its second processor. */
unsigned cfa_test_topology_from_sysfs(const char *root, unsigned *cache_of, int n);

/* Makes the resizing lock's readers take their flags with an exchange,
 * as on a kernel without membarrier (runtime/src/resize_lock.h). Call
 * before the program starts its second processor. */
void cfa_test_resize_symmetric(void);

/* Forces the decision clock (runtime/src/processor.c) to sample (true:
 * the TSC at one decision in the most it skips, 16, whatever the
 * decisions' pace) or to read at every decision (false), so a test's
 * counts do not depend on how fast this machine decides. */
void cfa_test_decision_clock(bool sampled);

/* The decision clock's choice after a reading: at how many decisions
 * from now it reads the TSC again, when the last `decisions` decisions
 * took `elapsed` TSC cycles (the program's own clock is not touched). */
unsigned cfa_test_clock_countdown(unsigned long long elapsed, unsigned decisions);

/* Sets the steal grace (runtime/src/ready_queue.c: a thread made ready
 * less than this many TSC cycles ago is left to its processor), 0 for the
 * default, so a test can hold a thread inside it for as long as it needs.
 * Call while no other processor is stealing. */
void cfa_test_steal_grace(unsigned long long tsc);

/* The helping step's decision (runtime/src/ready_queue.c, worth_helping)
 * between a processor and another's lane, for lanes whose heads have
 * waited *_age TSC cycles (0: empty) and whose threads waited *_avg on
 * average: true if the lane would be helped. Builds the state itself; the
 * program's own queue is not touched. */
bool cfa_test_worth_helping(unsigned long long target_age, unsigned long long target_avg,
                            unsigned long long own_age, unsigned long long own_avg);

#ifdef __cplusplus
}
#endif
#endif

/* cfa/processor.h: processors, the kernel threads that run user threads.
 *
 * Starting a processor adds a kernel thread to its cluster; stopping it
 * removes the kernel thread after the user thread it is running gives the
 * processor up. No ready thread is lost or run twice: ready threads belong
 * to the cluster's queue, not to a processor that leaves.
 *
 * The public struct is a handle, as for clusters: `processor p[4];` is four
 * zeroed handles, each passed to cfa_processor_start.
 */
#ifndef CFA_PROCESSOR_H
#define CFA_PROCESSOR_H

#ifdef __cplusplus
extern "C" {
#endif

struct cfa_cluster;
struct cfa_processor_state;

struct cfa_processor {
    struct cfa_cluster         *cluster;  /* NULL: the caller's cluster */
    const char                 *name;
    struct cfa_processor_state *state;    /* NULL until started */
};

/* Starts the kernel thread; it begins scheduling at once. */
void cfa_processor_start(struct cfa_processor *p);

/* Stops the processor and waits (blocking the calling user thread only)
 * until its kernel thread has left the cluster. Safe to call from a thread
 * running on p itself. */
void cfa_processor_stop(struct cfa_processor *p);

/* Heap forms used by `new(processor)` and `delete`. */
struct cfa_processor *cfa_processor_new(struct cfa_cluster *cl);
void cfa_processor_delete(struct cfa_processor *p);

/* Number of processors now serving cl. */
unsigned cfa_cluster_processor_count(struct cfa_cluster *cl);

#ifdef __cplusplus
}
#endif
#endif

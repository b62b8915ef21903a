/* cfa/cluster.h: clusters, the scheduling domains.
 *
 * A cluster owns a ready queue, the processors that serve it and their idle
 * list. Threads run only on processors of their own cluster. The program
 * starts with the main cluster and one processor (its main kernel thread).
 *
 * The public struct is a handle: cfa_cluster_init() allocates the state, so
 * `cluster cl;` costs one init call and nothing on the hot paths.
 */
#ifndef CFA_CLUSTER_H
#define CFA_CLUSTER_H

#ifdef __cplusplus
extern "C" {
#endif

struct cfa_cluster_state;

struct cfa_cluster {
    const char               *name;
    struct cfa_cluster_state *state;   /* NULL until cfa_cluster_init */
};

/* Makes a zeroed (or designated-initialised) cluster usable. */
void cfa_cluster_init(struct cfa_cluster *cl);

/* Frees the cluster's state. It must have no processors and no threads
 * left; otherwise this is a fatal error naming the cluster. */
void cfa_cluster_destroy(struct cfa_cluster *cl);

struct cfa_cluster *cfa_default_cluster(void);
struct cfa_cluster *cfa_current_cluster(void);

/* Moves the calling thread to cl: it continues on one of cl's processors. */
void cfa_migrate(struct cfa_cluster *cl);

#ifdef __cplusplus
}
#endif
#endif

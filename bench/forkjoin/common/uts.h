/* uts.h: the unbalanced tree search workload (UTS, Olivier et al., LCPC
 * 2006): count the nodes of an implicit random tree. A node is its depth
 * and a 20-byte random state; the state decides how many children the node
 * has, and child i's state is SHA-1(parent's state, i as 4 bytes
 * big-endian); the root's state is SHA-1(16 zero bytes, the seed as 4
 * bytes big-endian). A node's random number is the state's last 4 bytes,
 * big-endian, less the sign bit; as a probability, that over 2^31.
 *
 * Trees (variants): T1 and T3 of the UTS distribution's sample trees,
 * whose published sizes are the check (nodes, leaves and depth):
 *   T1  geometric, fixed shape: every node above depth 10 has a
 *       geometrically distributed number of children of mean 4 (at most
 *       100); 4130071 nodes, 3305118 leaves, depth 10.
 *   T3  binomial: the root has 2000 children, every other node 8 children
 *       with probability 0.124875, else none; 4112897 nodes, 3599034
 *       leaves, depth 1572.
 * The test size uses smaller trees of the same kinds, checked against the
 * sequential count.
 *
 * The parallel programs spawn one task per child (the last child runs in
 * the parent's task), each with its own struct uts_task in the parent's
 * frame (alloca: k children take k x 48 bytes there), and add the
 * children's counts after the join. */
#ifndef BENCH_FORKJOIN_UTS_H
#define BENCH_FORKJOIN_UTS_H
#include "fj.h"
#include "sha1.h"
#include <alloca.h>

enum { UTS_BINOMIAL, UTS_GEOMETRIC_FIXED };
enum { UTS_MAX_CHILDREN = 100 }; /* the cap of every node but a binomial root */

struct uts_tree {
    const char *name;
    int kind;
    double b0;       /* root's children (binomial), mean children (geometric) */
    int max_depth;   /* geometric: no children at this depth */
    double q;        /* binomial: probability of having m children */
    int m;
    int seed;
    int64_t nodes, leaves; /* published sizes; 0: check against uts_seq */
    int depth;
};

static const struct uts_tree uts_trees[] = {
    { "T1", UTS_GEOMETRIC_FIXED, 4, 10, 0, 0, 19, 4130071, 3305118, 10 },
    { "T3", UTS_BINOMIAL, 2000, 0, 0.124875, 8, 42, 4112897, 3599034, 1572 },
};
static const struct uts_tree uts_test_trees[] = {
    { "T1", UTS_GEOMETRIC_FIXED, 4, 5, 0, 0, 19, 0, 0, 0 },
    { "T3", UTS_BINOMIAL, 200, 0, 0.124875, 7, 42, 0, 0, 0 },
};

struct uts_node {
    uint8_t state[20];
    int32_t depth;
};

struct uts_count {
    int64_t nodes, leaves;
    int64_t depth; /* the deepest node's */
};

/* A child and its subtree's count, filled by the child's task. */
struct uts_task {
    struct uts_node node;
    struct uts_count count;
};

static const struct uts_tree *uts_tree;
static struct uts_node uts_root;
static struct uts_count uts_result, uts_expected;

static inline double uts_probability(const struct uts_node *n)
{
    uint32_t r = (uint32_t)n->state[16] << 24 | (uint32_t)n->state[17] << 16 | (uint32_t)n->state[18] << 8 |
                 n->state[19];
    return (double)(r & 0x7FFFFFFF) / 2147483648.0;
}

static inline int uts_children(const struct uts_node *n)
{
    const struct uts_tree *t = uts_tree;
    int k;
    if (t->kind == UTS_BINOMIAL) {
        if (n->depth == 0)
            return (int)floor(t->b0);
        k = uts_probability(n) < t->q ? t->m : 0;
    } else {
        double b = n->depth < t->max_depth ? t->b0 : 0;
        double p = 1.0 / (1.0 + b); /* a geometric distribution of mean b */
        k = (int)floor(log(1.0 - uts_probability(n)) / log(1.0 - p));
    }
    return k > UTS_MAX_CHILDREN ? UTS_MAX_CHILDREN : k;
}

static inline void uts_child(const struct uts_node *parent, int i, struct uts_node *child)
{
    uint8_t msg[24];
    memcpy(msg, parent->state, 20);
    msg[20] = (uint8_t)(i >> 24), msg[21] = (uint8_t)(i >> 16), msg[22] = (uint8_t)(i >> 8), msg[23] = (uint8_t)i;
    sha1_short(msg, 24, child->state);
    child->depth = parent->depth + 1;
}

/* Counts node n itself, which has `children` children. */
static inline void uts_count_node(struct uts_count *c, const struct uts_node *n, int children)
{
    c->nodes++;
    c->leaves += children == 0;
    if (n->depth > c->depth)
        c->depth = n->depth;
}

static inline void uts_count_add(struct uts_count *into, const struct uts_count *from)
{
    into->nodes += from->nodes;
    into->leaves += from->leaves;
    if (from->depth > into->depth)
        into->depth = from->depth;
}

static inline void uts_seq(const struct uts_node *n, struct uts_count *c)
{
    int k = uts_children(n);
    uts_count_node(c, n, k);
    for (int i = 0; i < k; i++) {
        struct uts_node child;
        uts_child(n, i, &child);
        uts_seq(&child, c);
    }
}

static inline void uts_setup(int argc, char **argv)
{
    fj_parse(argc, argv, "T1|T3");
    if (!sha1_self_test())
        fj_fail("SHA-1(\"abc\") is not the standard's digest");
    uts_tree = &(fj.test_size ? uts_test_trees : uts_trees)[strcmp(fj.variant, "T1") == 0 ? 0 : 1];
    uint8_t msg[20] = { 0 };
    msg[16] = (uint8_t)(uts_tree->seed >> 24), msg[17] = (uint8_t)(uts_tree->seed >> 16);
    msg[18] = (uint8_t)(uts_tree->seed >> 8), msg[19] = (uint8_t)uts_tree->seed;
    sha1_short(msg, 20, uts_root.state);
    uts_root.depth = 0;
    if (uts_tree->nodes) {
        uts_expected.nodes = uts_tree->nodes;
        uts_expected.leaves = uts_tree->leaves;
        uts_expected.depth = uts_tree->depth;
    } else {
        memset(&uts_expected, 0, sizeof uts_expected);
        uts_seq(&uts_root, &uts_expected);
    }
}

static inline void uts_prepare(void) { memset(&uts_result, 0, sizeof uts_result); }

static inline void uts_check(void)
{
    if (uts_result.nodes != uts_expected.nodes || uts_result.leaves != uts_expected.leaves ||
        uts_result.depth != uts_expected.depth)
        fj_fail("tree %s: %lld nodes, %lld leaves, depth %lld; expected %lld, %lld, %lld", uts_tree->name,
                (long long)uts_result.nodes, (long long)uts_result.leaves, (long long)uts_result.depth,
                (long long)uts_expected.nodes, (long long)uts_expected.leaves, (long long)uts_expected.depth);
}
#endif

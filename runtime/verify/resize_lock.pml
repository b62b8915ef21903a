/* resize_lock.pml: the resizing lock's asymmetric readers
 * (runtime/src/resize_lock.h, steps R1-R2 and W1-W3).
 *
 * NR processors enter and leave their reader sections ROUNDS times each;
 * NW writers take the writer side once each. Promela's memory is
 * sequentially consistent: that is exactly what W2's membarrier gives the
 * reader's store-then-load (R1) against the writer's store-then-loads (W1,
 * W3), so the model checks the protocol's logic under the guarantee the
 * code obtains from the kernel. Checked: a writer and a reader are never
 * in their sections at once, nor two writers; every process ends (no
 * deadlock). -DBUGGY: the writer skips W3 (does not wait for reader
 * flags), which must be caught.
 */
#ifndef NR
#define NR 2
#endif
#ifndef NW
#define NW 2
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

bit  write_lock;        /* the global flag */
bit  mine[NR];          /* each processor's reader flag */
byte readers_in;        /* readers inside their section */
byte writers_in;        /* writers inside theirs */

proctype reader(byte r)
{
    byte round = 0;
    do
    :: round < ROUNDS ->
R1:     mine[r] = 1;
        if
        :: write_lock == 0 -> skip          /* in */
        :: else ->                          /* R2: back off, wait, retry */
            mine[r] = 0;
            (write_lock == 0);
            goto R1
        fi;
        readers_in++;
        assert(writers_in == 0);
        readers_in--;
        mine[r] = 0;                        /* rw_read_unlock */
        round++
    :: else -> break
    od
}

proctype writer()
{
    byte i;
    atomic { write_lock == 0 -> write_lock = 1 };   /* W1: spin_lock */
    /* W2: membarrier (sequential consistency here) */
#ifndef BUGGY
    i = 0;
    do                                              /* W3 */
    :: i < NR -> (mine[i] == 0); i++
    :: else -> break
    od;
#endif
    writers_in++;
    assert(readers_in == 0 && writers_in == 1);
    writers_in--;
    write_lock = 0                                  /* resize_write_unlock */
}

init
{
    byte k;
    atomic {
        k = 0;
        do
        :: k < NR -> run reader(k); k++
        :: else -> break
        od;
        k = 0;
        do
        :: k < NW -> run writer(); k++
        :: else -> break
        od
    }
}

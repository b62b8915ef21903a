/* asym_fence.c: the cold side of asymmetric fences. See asym_fence.h. */
#include "asym_fence.h"

#include <cfa/runtime.h>

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

bool asym_fence_membarrier;

static bool membarrier_private_expedited(int cmd) { return syscall(SYS_membarrier, cmd, 0, 0) == 0; }

/* Registration belongs to the address space: a child of fork registers
 * again (fork.c, step C3). */
bool asym_fence_init(void)
{
    asym_fence_membarrier = membarrier_private_expedited(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED);
    return asym_fence_membarrier;
}

void asym_fence_heavy(void)
{
    if (!asym_fence_membarrier) {
        atomic_thread_fence(memory_order_seq_cst);
        return;
    }
    if (!membarrier_private_expedited(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
        cfa_fatal("membarrier failed after it was registered");
}

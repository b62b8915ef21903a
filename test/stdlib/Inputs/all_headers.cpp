// Every public C header of the runtime and the standard library, from C++:
// extern "C" guards (the names link), no C-only keywords (_Bool).
#include <cfa/runtime.h>
#include <cfa/std/barrier.h>
#include <cfa/std/channel.h>
#include <cfa/std/condition_variable.h>
#include <cfa/std/future.h>
#include <cfa/std/mutex_lock.h>
#include <cfa/std/owner_lock.h>
#include <cfa/std/select.h>
#include <cfa/std/semaphore.h>
#include <cfa/std/time.h>
#include <cstdio>
int main(){ printf("%d\n", cfa_active_thread() != nullptr); }

/* code_windows.h: the ranges of code preemption never stops, registered
 * by every module (code_windows.c). */
#ifndef CFA_CODE_WINDOWS_H
#define CFA_CODE_WINDOWS_H

#include <stdbool.h>
#include <stdint.h>

/* A range of code [start, end) that preemption never stops, as
 * CFA_WINDOW_IN (cfa/mutex_call.h) records it: two offsets, each relative
 * to its own address. */
struct code_window { int32_t start, end; };
bool code_window_at(const struct code_window *first, const struct code_window *end, uintptr_t pc);
bool one_processor_window_at(uintptr_t pc); /* in any module's one-processor windows */
bool thread_read_window_at(uintptr_t pc);   /* in any module's thread-read windows */

#endif

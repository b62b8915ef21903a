/* cfa/internal/section.h: force-included into every C file of the runtime
 * and the standard library (runtime/CMakeLists.txt, stdlib/CMakeLists.txt;
 * internal: not part of the user API).
 *
 * All runtime code goes to the section cfa_runtime_text, so the preemption
 * handler can tell "inside the runtime" from a program counter alone
 * (__start_/__stop_cfa_runtime_text, defined by the linker) and never cut
 * a runtime critical section. context_x86_64.S uses the same section.
 */
#ifndef CFA_INTERNAL_SECTION_H
#define CFA_INTERNAL_SECTION_H
#if defined(__clang__)
#pragma clang section text = "cfa_runtime_text"
#else
#error "the cfa-lite runtime is built with clang (it relies on #pragma clang section)"
#endif
#endif

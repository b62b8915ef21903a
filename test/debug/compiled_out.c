// Outside the debug build the invariant checks and the test hooks of
// cfa/debug.h are compiled out (zero cost): libcfa.a has neither the
// report function nor a hook nor the fault switch.
//
// UNSUPPORTED: debug
// RUN: nm %cfa-lib > %t.symbols
// RUN: grep -c ' T cfa_thread_start$' %t.symbols | FileCheck %s --check-prefix=LIBRARY
// RUN: not grep -E 'invariant_broken|cfa_debug_|debug_fault|thread_check_transition' %t.symbols
// LIBRARY: 1

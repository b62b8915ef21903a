// The showcase program of `make demo` (examples/demo_c.c) keeps working.
//
// RUN: %cc %cfa-src/examples/demo_c.c -o %t %cfa-link
// RUN: %timeout %t | FileCheck %s
// CHECK: cfa-lite demo (C API)
// CHECK-NEXT: generator: fibonacci: 0 1 1 2 3 5 8 13 21 34 55 89
// CHECK-NEXT: coroutines: ping-pong:
// CHECK-NEXT:   ping pong ping pong ping pong
// CHECK-NEXT: threads: 8 workers on 4 processors
// CHECK-NEXT: sum of 0..9999999 = 49999995000000 (expected 49999995000000)

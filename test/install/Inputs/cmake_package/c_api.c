// The runtime's C API from a plain C program: two threads, joined.
#include <cfa/runtime.h>
#include <stdio.h>
struct job { int n; struct cfa_thread thread; };
static void job_main(void *arg) { struct job *j = arg; j->n *= 2; }
int main(void) {
  struct job a = { .n = 20 }, b = { .n = 1 };
  cfa_thread_start(&a.thread, job_main, &a, "job", 0);
  cfa_thread_start(&b.thread, job_main, &b, "job", 0);
  cfa_thread_join(&a.thread);
  cfa_thread_join(&b.thread);
  cfa_thread_destroy(&a.thread);
  cfa_thread_destroy(&b.thread);
  printf("jobs %d\n", a.n + b.n);
  return 0;
}

#!/usr/bin/env python3
"""Writes a cfa-lite program of about N lines (default 2000) to stdout.

The mix is what a real program has: mostly plain C functions, plus thread
and coroutine types with their mains, RAII objects, heap threads, time
literals and processors. Used by overhead.sh to measure translation cost.
"""
import sys

target = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
out = ['#include <stdio.h>', '#include <stdlib.h>', '#include <string.h>', '']
i = 0
while len(out) < target - 40:
    if i % 5 == 0:
        out += [f'thread Worker{i} {{ long n; long sum; }};',
                f'void main(Worker{i} *this) {{',
                f'    for (long k = 0; k < this->n; k++) {{ this->sum += k ^ {i}; if (k % 64 == 0) yield(); }}',
                '}',
                f'coroutine Gen{i} {{ long value; }};',
                f'void main(Gen{i} *this) {{',
                f'    for (long a = 0, b = 1;; ) {{ this->value = a; suspend(); long t = a + b; a = b; b = t; }}',
                '}',
                f'static long run{i}(long n) {{',
                f'    Gen{i} g;',
                f'    long total = resume(&g)->value;',
                f'    {{ Worker{i} crew[2] = {{ {{ .n = n }}, {{ .n = n + 1 }} }}; }}',
                f'    Worker{i} *w = new(Worker{i}, .n = n);',
                f'    total += join(w)->sum;',
                f'    delete(w);',
                f'    Duration d = {i}`us;',
                f'    return total + d.tn;',
                '}']
    out += [f'static long f{i}(long a, long b) {{',
            '    long r = 0;',
            f'    for (long k = 0; k < a; k++) {{ r += (k * b) ^ (r >> 3); if (r > {i}) r -= a; }}',
            '    char buf[32]; snprintf(buf, sizeof buf, "%ld", r);',
            '    return r + (long)strlen(buf);',
            '}']
    i += 1
out += ['int main(void) {', '    long s = 0;', '    processor p;']
for j in range(i):
    out.append(f'    s += f{j}(3, {j});' + (f' s += run{j}(10);' if j % 5 == 0 else ''))
out += ['    printf("%ld\\n", s);', '    return 0;', '}']
print('\n'.join(out))

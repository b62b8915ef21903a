/* time.c: printing durations and times (see cfa/std/time.h). Exact
 * decimal arithmetic on the nanosecond count: no floating point, so what
 * is printed is what is stored. */
#include <cfa/std/time.h>

#include <stdio.h>

static const struct { uint64_t ns; int digits; const char *name; } units[] = {
    { 1000000000u, 9, "s" }, { 1000000u, 6, "ms" }, { 1000u, 3, "us" }, { 1u, 0, "ns" },
};

static uint64_t magnitude(int64_t ns) { return ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns; }

int cfa_format_duration_ns(char *buf, size_t size, int64_t ns)
{
    uint64_t mag = magnitude(ns);
    if (mag == 0)
        return snprintf(buf, size, "0s");
    unsigned u = 0;
    while (mag < units[u].ns)
        u++;
    uint64_t whole = mag / units[u].ns, frac = mag % units[u].ns;
    int      digits = units[u].digits;
    while (frac && frac % 10 == 0) { /* drop trailing zeros */
        frac /= 10;
        digits--;
    }
    if (!frac)
        return snprintf(buf, size, "%s%llu%s", ns < 0 ? "-" : "", (unsigned long long)whole,
                        units[u].name);
    return snprintf(buf, size, "%s%llu.%0*llu%s", ns < 0 ? "-" : "", (unsigned long long)whole,
                    digits, (unsigned long long)frac, units[u].name);
}

int cfa_format_time_ns(char *buf, size_t size, int64_t ns)
{
    uint64_t mag = magnitude(ns);
    return snprintf(buf, size, "%s%llu.%09llus", ns < 0 ? "-" : "",
                    (unsigned long long)(mag / 1000000000u), (unsigned long long)(mag % 1000000000u));
}

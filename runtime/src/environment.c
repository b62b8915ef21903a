/* environment.c: parsing and validating the runtime's environment
 * variables (table: cfa/internal/environment.def).
 *
 * Owns: nothing mutable; every accessor parses getenv()'s text again, which
 * is cheap and happens only when a subsystem configures itself.
 * Invariant: env_validate() has accepted every variable that is set, so an
 * accessor's parse cannot fail after boot.
 */
#include "environment.h"

#include <cfa/runtime.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum env_kind { FLAG, COUNT, POW2, SIZE, CHOICE };

struct env_spec {
    const char *name;
    enum env_kind kind;
    long long min, max;
    const char *dflt, *accepts;
};

static const struct env_spec specs[ENV_COUNT] = {
#define CFA_ENV(name, kind, min, max, dflt, accepts, meaning) {#name, kind, min, max, dflt, accepts},
#include <cfa/internal/environment.def>
#undef CFA_ENV
};

static const char *text_of(enum cfa_env_var v)
{
    const char *t = getenv(specs[v].name);
    return t && *t ? t : specs[v].dflt;
}

/* Parses `t` for spec `s`; false when it is not acceptable. */
static bool parse(const struct env_spec *s, const char *t, long long *out)
{
    char *end;
    switch (s->kind) {
    case FLAG:
        if (strcmp(t, "0") != 0 && strcmp(t, "1") != 0)
            return false;
        *out = t[0] == '1';
        return true;
    case COUNT:
    case POW2:
        *out = strtoll(t, &end, 10);
        return end != t && *end == '\0' && *out >= s->min && *out <= s->max &&
               (s->kind == COUNT || (*out & (*out - 1)) == 0);
    case SIZE: {
        unsigned long long n = strtoull(t, &end, 0);
        if (end == t || t[0] == '-')
            return false;
        if (*end == 'k' || *end == 'K') n <<= 10, end++;
        else if (*end == 'm' || *end == 'M') n <<= 20, end++;
        *out = (long long)n;
        return *end == '\0' && n >= (unsigned long long)s->min && n < (1ull << 40);
    }
    case CHOICE: {
        size_t len = strlen(t);
        for (const char *w = s->accepts; *w;) {
            size_t wl = strcspn(w, "|");
            if (wl == len && strncmp(w, t, len) == 0)
                return true;
            w += wl + (w[wl] == '|');
        }
        return false;
    }
    }
    return false;
}

/* A configuration error is the user's, like a bad command-line option:
 * a message and exit status 2, not the abort of a runtime error. */
static void __attribute__((noreturn)) reject(const struct env_spec *s, const char *t)
{
    fprintf(stderr, "cfa: error: %s=%s: expected %s", s->name, t, s->accepts);
    if (s->kind == COUNT || s->kind == POW2)
        fprintf(stderr, " from %lld to %lld", s->min, s->max);
    else if (s->kind == SIZE)
        fprintf(stderr, ", at least %lld", s->min);
    fprintf(stderr, " (cfacc --help-runtime lists the runtime's variables)\n");
    exit(2);
}

void env_validate(void)
{
    long long ignored;
    for (int v = 0; v < ENV_COUNT; v++) {
        const char *t = getenv(specs[v].name);
        if (t && *t && !parse(&specs[v], t, &ignored))
            reject(&specs[v], t);
    }
}

static long long value_of(enum cfa_env_var v)
{
    long long n = 0;
    if (!parse(&specs[v], text_of(v), &n))
        cfa_fatal("%s: read before env_validate()", specs[v].name);
    return n;
}

bool env_flag(enum cfa_env_var v) { return value_of(v) != 0; }
long env_count(enum cfa_env_var v) { return (long)value_of(v); }
size_t env_size(enum cfa_env_var v) { return (size_t)value_of(v); }
const char *env_choice(enum cfa_env_var v) { return text_of(v); }
bool env_is_set(enum cfa_env_var v)
{
    const char *t = getenv(specs[v].name);
    return t && *t;
}

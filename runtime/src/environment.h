/* environment.h: the runtime's configuration from the environment (the
 * table is cfa/internal/environment.def). env_validate() runs first at
 * boot; after it every accessor returns a valid value, the default when the
 * variable is unset or empty.
 */
#ifndef CFA_ENVIRONMENT_H
#define CFA_ENVIRONMENT_H

#include <stdbool.h>
#include <stddef.h>

enum cfa_env_var {
#define CFA_ENV(name, kind, min, max, dflt, accepts, meaning) ENV_##name,
#include <cfa/internal/environment.def>
#undef CFA_ENV
    ENV_COUNT
};

void env_validate(void);
bool env_flag(enum cfa_env_var v);
long env_count(enum cfa_env_var v);
size_t env_size(enum cfa_env_var v);
/* The CHOICE's word as given (or the default). */
const char *env_choice(enum cfa_env_var v);
bool env_is_set(enum cfa_env_var v);

#endif

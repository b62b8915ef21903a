/* cfa/std/time.h: printing durations and times (the C side of
 * <cfa/time.hfa>, which owns the Time type and the arithmetic).
 *
 * Both write like snprintf (at most size bytes, always terminated when
 * size > 0) and return the length of the full text.
 *   duration: the largest unit among s, ms, us, ns in which the value is
 *             at least 1, with the exact fraction, trailing zeros dropped:
 *             "1.5s", "250ms", "-3us", "17ns", "0s".
 *   time:     seconds on the monotonic clock, 9 decimals: "1234.000000001s".
 */
#ifndef CFA_STD_TIME_H
#define CFA_STD_TIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enough for any int64 value in either format. */
#define CFA_TIME_FORMAT_SIZE 32

int cfa_format_duration_ns(char *buf, size_t size, int64_t ns);
int cfa_format_time_ns(char *buf, size_t size, int64_t ns);

#ifdef __cplusplus
}
#endif
#endif

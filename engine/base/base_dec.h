/* base: exact decimal numbers read as scaled integers (base_dec.c). */
#ifndef BASE_DEC_H
#define BASE_DEC_H

#include <stdint.h>

/* The non-negative decimal number s times 10^scale, exactly as an integer
 * (scale 12: seconds to ps, 6: us to ps, 0: an integer written "2e6"), any number
 * of digits long; -1 when malformed or when digits remain below the unit,
 * BASE_DEC_TOO_LARGE when well-formed but past INT64_MAX. */
#define BASE_DEC_TOO_LARGE (-2)
int64_t base_dec_scaled(const char *s, int scale);

#endif

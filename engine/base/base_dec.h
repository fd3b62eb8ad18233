/* base: decimal numbers as written, the one grammar every non-JSON number and
 * every exact decimal is read by (base_dec.c): its parts, and the number read
 * exactly as a scaled integer. */
#ifndef BASE_DEC_H
#define BASE_DEC_H

#include <stddef.h>
#include <stdint.h>

/* The parts of [-]D[.D][(e|E)[+|-]D] with at least one digit before the
 * exponent (no spaces, '+' before the digits, hexadecimal, inf or nan). */
#define BASE_DEC_EXP_CAP 1000000 /* |exponent| beyond this is as good as infinite */
typedef struct base_dec_text_t {
  int neg;
  const char *whole, *frac; /* the digits before and after the point */
  int n_whole, n_frac;
  long exp; /* as written, its magnitude capped near BASE_DEC_EXP_CAP */
} base_dec_text_t;
/* 0 with *t, or -1 when s is not such a number (whole). */
int base_dec_scan(const char *s, base_dec_text_t *t);

/* The number s (whole) as the nearest double, NAN when it is not one of the
 * grammar's: what every floating-point number outside JSON is read by
 * (options, configuration and topology files, nccl-tests logs). */
double base_dec_real(const char *s);

/* The shortest decimal that reads back (strtod) as the finite double x, into
 * buf (64 bytes are enough): an integer's digits below 2^53, else
 * D.DDDe[+-]XX with the fewest digits: what a JSON real was written as. */
void base_dec_shortest(double x, char *buf, size_t len);

/* The non-negative decimal number s times 10^scale, exactly as an integer
 * (scale 12: seconds to ps, 6: us to ps, 0: an integer written "2e6"), any number
 * of digits long; -1 when malformed or when digits remain below the unit,
 * BASE_DEC_TOO_LARGE when well-formed but past INT64_MAX. */
#define BASE_DEC_TOO_LARGE (-2)
int64_t base_dec_scaled(const char *s, int scale);

#endif

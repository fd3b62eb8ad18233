/* topo: exact decimal parsing of link rates ("100Gbps" -> bit/s) and delays
 * ("0.001ms" -> ps), with no floating point. */
#include <stdint.h>
#include <string.h>

#include "topo/topo_int.h"

/* Reads "D[.F]" (at least one digit) as mant / 10^nfrac with trailing fraction zeros
 * dropped. Returns the characters read, 0 if there is no number, -1 when the whole
 * part overflows (too large), -2 when the fraction does (too many decimals). */
static int read_decimal(const char *s, uint64_t *mant, int *nfrac) {
  const char *p = s;
  uint64_t m = 0;
  int frac = 0, zeros = 0, digits = 0, in_frac = 0;
  for (;; p++) {
    if (*p == '.' && !in_frac) {
      in_frac = 1;
      continue;
    }
    if (*p < '0' || *p > '9') break;
    digits++;
    if (in_frac && *p == '0') { /* applied only if a non-zero digit follows */
      zeros++;
      continue;
    }
    for (; zeros > 0; zeros--, frac++) {
      if (m > UINT64_MAX / 10) return -2;
      m *= 10;
    }
    if (m > (UINT64_MAX - 9) / 10) return in_frac ? -2 : -1;
    m = m * 10 + (uint64_t)(*p - '0');
    if (in_frac) frac++;
  }
  if (!digits) return 0;
  *mant = m;
  *nfrac = frac;
  return (int)(p - s);
}

/* The limits of topo.h, in words. */
#define TOO_FAST "is above 1000Tbps (1 Pb/s), the largest rate"
#define TOO_SLOW "is below 1Gbps, the smallest rate"
#define TOO_LONG "is more than 1s, the largest delay"

/* mant / 10^nfrac * 10^pow10 as an exact int64: -1 with *why if not whole or too big. */
static int64_t scale_exact(uint64_t mant, int nfrac, int pow10, const char *not_whole,
                           const char *too_large, const char **why) {
  for (; nfrac > pow10; nfrac--) {
    if (mant % 10) {
      *why = not_whole;
      return -1;
    }
    mant /= 10;
  }
  for (; pow10 > nfrac; pow10--) {
    if (mant > (uint64_t)INT64_MAX / 10) {
      *why = too_large;
      return -1;
    }
    mant *= 10;
  }
  if (mant > (uint64_t)INT64_MAX) {
    *why = too_large;
    return -1;
  }
  return (int64_t)mant;
}

int64_t topo_parse_rate_why(const char *s, const char **why) {
  uint64_t mant;
  int nfrac, pow10 = 0;
  if (s[0] == '-') {
    *why = "must be > 0";
    return -1;
  }
  int n = read_decimal(s, &mant, &nfrac);
  if (n <= 0) {
    *why = n == -1   ? TOO_FAST
           : n == -2 ? "is not a whole number of bit/s"
                     : "is not a rate (write e.g. 100Gbps)";
    return -1;
  }
  const char *u = s + n;
  if (*u == '\0') {
    *why = "has no unit (write e.g. 100Gbps)";
    return -1;
  }
  switch (*u) { /* SI prefixes as ns-3's DataRate reads them */
  case 'k':
  case 'K':
    pow10 = 3;
    break;
  case 'M':
    pow10 = 6;
    break;
  case 'G':
    pow10 = 9;
    break;
  case 'T':
    pow10 = 12;
    break;
  }
  if (pow10) u++;
  if (!(strcmp(u, "bps") == 0 || strcmp(u, "b/s") == 0 || (pow10 && *u == '\0'))) {
    *why = "has an unknown unit (write e.g. 100Gbps, 25Gb/s or 400G)";
    return -1;
  }
  int64_t r = scale_exact(mant, nfrac, pow10, "is not a whole number of bit/s", TOO_FAST, why);
  if (r == 0) {
    *why = "must be > 0";
    return -1;
  }
  return r;
}

int64_t topo_parse_rate(const char *s) {
  const char *why;
  return topo_parse_rate_why(s, &why);
}

int64_t topo_parse_delay_why(const char *s, const char **why) {
  static const struct {
    const char *name;
    int pow10; /* ps per unit = 10^pow10 */
  } units[] = {{"s", 12}, {"ms", 9}, {"us", 6}, {"ns", 3}, {"ps", 0}};
  uint64_t mant;
  int nfrac;
  if (s[0] == '-') {
    *why = "must be > 0";
    return -1;
  }
  int n = read_decimal(s, &mant, &nfrac);
  if (n <= 0) {
    *why = n == -1   ? TOO_LONG
           : n == -2 ? "is finer than 1 ps"
                     : "is not a delay (write e.g. 0.001ms or 1us)";
    return -1;
  }
  if (s[n] == '\0') {
    *why = "has no unit (write e.g. 0.001ms or 1us)";
    return -1;
  }
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(s + n, units[i].name) == 0)
      return scale_exact(mant, nfrac, units[i].pow10, "is finer than 1 ps", TOO_LONG, why);
  *why = "has an unknown unit (use s, ms, us, ns or ps)";
  return -1;
}

int64_t topo_parse_delay(const char *s) {
  const char *why;
  return topo_parse_delay_why(s, &why);
}

int topo_check_rate(int64_t bps, const char **why) {
  *why = bps < TOPO_MIN_RATE_BPS ? TOO_SLOW : bps > TOPO_MAX_RATE_BPS ? TOO_FAST : NULL;
  return *why ? -1 : 0;
}

int topo_check_delay(int64_t ps, const char **why) {
  *why = ps < 1 ? "must be > 0" : ps > TOPO_MAX_DELAY_PS ? TOO_LONG : NULL;
  return *why ? -1 : 0;
}

/* base: exact conversion of decimal numbers ("2.000001", "1e-3") to integers:
 * seconds to ps, microseconds to ps, ps; no floating point, no arithmetic that can
 * overflow (base_dec.h). */
#include <stdint.h>

#include "base/base_dec.h"

#define SIG_MAX 19      /* significant digits that always fit a uint64 */
#define EXP_CAP 1000000 /* |exponent| beyond this is as good as infinite */

int64_t base_dec_scaled(const char *s, int scale) {
  /* Digit k (0-based, over the whole and fraction parts) has weight 10^(nint - 1 - k)
   * of the number. first/last: the first and last non-zero digits. */
  const char *p = s;
  char sig[SIG_MAX];
  long first = -1, last = -1, k = 0, nint = 0;
  int in_frac = 0;
  for (;; p++) {
    if (*p == '.' && !in_frac) {
      in_frac = 1;
      continue;
    }
    if (*p < '0' || *p > '9') break;
    if (!in_frac) nint++;
    if (*p != '0') {
      if (first < 0) first = k;
      last = k;
    }
    if (first >= 0 && k - first < SIG_MAX) sig[k - first] = *p;
    k++;
  }
  if (k == 0) return -1;
  long exp10 = 0;
  if (*p == 'e' || *p == 'E') {
    int neg = 0, edigits = 0;
    p++;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    for (; *p >= '0' && *p <= '9'; p++, edigits++)
      if (exp10 < EXP_CAP) exp10 = exp10 * 10 + (*p - '0');
    if (!edigits) return -1;
    if (neg) exp10 = -exp10;
  }
  if (*p) return -1;
  if (first < 0) return 0;
  /* Powers of ten, in the result's unit, of the lowest and highest non-zero digits. */
  long low = nint - 1 - last + exp10 + scale, high = nint - 1 - first + exp10 + scale;
  if (high >= SIG_MAX) return BASE_DEC_TOO_LARGE; /* 10^19 > INT64_MAX */
  /* The whole units: the digits at powers high..0 (at most SIG_MAX, all held in sig). */
  long lo = low > 0 ? low : 0;
  uint64_t m = 0;
  for (long i = 0; i <= high - lo; i++)
    m = m * 10 + (uint64_t)(i <= last - first ? sig[i] - '0' : 0);
  for (long i = 0; i < lo; i++)
    m *= 10; /* m < 10^(high + 1) <= 10^19 < 2^64 */
  if (m > (uint64_t)INT64_MAX) return BASE_DEC_TOO_LARGE;
  return low < 0 ? -1 : (int64_t)m; /* -1: digits below the unit */
}

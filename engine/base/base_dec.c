/* base: the decimal grammar (base_dec_scan) and exact conversion of decimal
 * numbers ("2.000001", "1e-3") to integers: seconds to ps, microseconds to ps,
 * ps; no floating point, no arithmetic that can overflow; and the nearest double
 * of a number of the grammar (base_dec.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/base_dec.h"

#define SIG_MAX 19 /* significant digits that always fit a uint64 */

static int is_digit(char c) {
  return c >= '0' && c <= '9';
}

int base_dec_scan(const char *s, base_dec_text_t *t) {
  const char *p = s;
  *t = (base_dec_text_t){0};
  if (*p == '-') {
    t->neg = 1;
    p++;
  }
  for (t->whole = p; is_digit(*p); p++)
    t->n_whole++;
  if (*p == '.')
    for (t->frac = ++p; is_digit(*p); p++)
      t->n_frac++;
  if (!t->frac) t->frac = p;
  if (t->n_whole + t->n_frac == 0) return -1;
  if (*p == 'e' || *p == 'E') {
    int neg = 0, digits = 0;
    p++;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    for (; is_digit(*p); p++, digits++)
      if (t->exp < BASE_DEC_EXP_CAP) t->exp = t->exp * 10 + (*p - '0');
    if (!digits) return -1;
    if (neg) t->exp = -t->exp;
  }
  return *p ? -1 : 0;
}

double base_dec_real(const char *s) {
  base_dec_text_t t; /* what strtod reads, less spaces, '+', hexadecimal, inf and nan */
  return base_dec_scan(s, &t) == 0 ? strtod(s, NULL) : NAN;
}

void base_dec_shortest(double x, char *buf, size_t len) {
  /* An integer below 2^53: its digits are the shortest (doubles there are at
   * most 1 apart, so fewer significant digits name another integer, another
   * double); the search below would find the same, at up to 17 printf and
   * strtod calls. */
  if (fabs(x) < 0x1p53 && x == trunc(x)) {
    snprintf(buf, len, "%lld", (long long)x);
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, len, "%.*e", prec - 1, x);
    if (strtod(buf, NULL) == x) break;
  }
}

int64_t base_dec_scaled(const char *s, int scale) {
  base_dec_text_t t;
  if (base_dec_scan(s, &t) || t.neg) return -1;
  /* Digit k (0-based, over the whole and fraction parts) has weight 10^(nint - 1 - k)
   * of the number. first/last: the first and last non-zero digits. */
  char sig[SIG_MAX];
  long first = -1, last = -1, nint = t.n_whole, n = t.n_whole + t.n_frac;
  for (long k = 0; k < n; k++) {
    char c = k < nint ? t.whole[k] : t.frac[k - nint];
    if (c != '0') {
      if (first < 0) first = k;
      last = k;
    }
    if (first >= 0 && k - first < SIG_MAX) sig[k - first] = c;
  }
  if (first < 0) return 0;
  /* Powers of ten, in the result's unit, of the lowest and highest non-zero digits. */
  long low = nint - 1 - last + t.exp + scale, high = nint - 1 - first + t.exp + scale;
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

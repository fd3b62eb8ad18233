/* Exact decimals: parameter values are read and written as decimal digits and
 * converted to their stored units (ps, bytes, Q16) in integer arithmetic, so a
 * value prints as exactly what is stored and reads back to the same bits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_dec.h"
#include "jobs/job_param_int.h"

typedef unsigned __int128 dec_u128;

/* Removes leading and trailing zeros of the digits (trailing ones raise exp). */
static void dec_trim(job_dec_t *d) {
  int lead = 0;
  while (lead < d->n && d->digits[lead] == '0')
    lead++;
  memmove(d->digits, d->digits + lead, (size_t)(d->n - lead));
  d->n -= lead;
  while (d->n > 0 && d->digits[d->n - 1] == '0') {
    d->n--;
    d->exp++;
  }
  d->digits[d->n] = 0;
  if (d->n == 0) d->neg = d->exp = 0;
}

int job_dec_parse(const char *s, job_dec_t *d) {
  base_dec_text_t t;
  char raw[512];
  int n = 0, exp = 0;
  memset(d, 0, sizeof *d);
  if (base_dec_scan(s, &t)) return -1;
  d->neg = t.neg;
  for (int i = 0; i < t.n_whole; i++)
    if (n < (int)sizeof raw)
      raw[n++] = t.whole[i];
    else if (t.whole[i] != '0')
      return -1;
    else
      exp++;
  for (int i = 0; i < t.n_frac; i++)
    if (n < (int)sizeof raw) {
      raw[n++] = t.frac[i];
      exp--;
    } else if (t.frac[i] != '0')
      return -1;
  exp += (int)t.exp;
  /* Leading zeros first, then the significant digits must fit. */
  int lead = 0;
  while (lead < n && raw[lead] == '0')
    lead++;
  int tail = n;
  while (tail > lead && raw[tail - 1] == '0') {
    tail--;
    exp++;
  }
  if (tail - lead > JOB_DEC_DIGITS || exp > 10000 || exp < -10000) return -1;
  d->n = tail - lead;
  memcpy(d->digits, raw + lead, (size_t)d->n);
  d->exp = exp;
  dec_trim(d);
  return 0;
}

int job_dec_from_double(double x, job_dec_t *d) {
  if (!isfinite(x)) return -1;
  char buf[64];
  base_dec_shortest(x, buf, sizeof buf);
  return job_dec_parse(buf, d);
}

int job_dec_to_int(const job_dec_t *d, int pow2, int scale10, int exact, int64_t *out) {
  const dec_u128 lim = (dec_u128)INT64_MAX;
  dec_u128 v = 0;
  for (int i = 0; i < d->n; i++) /* < 10^36: fits */
    v = v * 10 + (dec_u128)(d->digits[i] - '0');
  int k = d->exp + scale10;
  if (v == 0) {
    *out = 0;
    return 0;
  }
  if (k >= 0) {
    if (v > lim) return -1;
    v <<= pow2;
    for (int i = 0; i < k; i++) {
      if (v > lim / 10) return -1;
      v *= 10;
    }
  } else if (k < -38) { /* v < 10^36 <= 10^-k / 100: rounds to 0 */
    if (exact) return -1;
    v = 0;
  } else {
    dec_u128 den = 1;
    for (int i = 0; i < -k; i++)
      den *= 10;
    /* q = floor(v 2^pow2 / den), one bit of the multiplier at a time: the
     * remainder stays below den, so nothing overflows. */
    dec_u128 q = v / den, rem = v % den;
    if (q > lim) return -1;
    for (int i = 0; i < pow2; i++) {
      q <<= 1;
      rem <<= 1;
      if (rem >= den) {
        rem -= den;
        q++;
      }
    }
    if (rem && exact) return -1;
    if (rem >= den - rem) q++; /* half away from zero */
    v = q;
  }
  if (v > lim) return -1;
  *out = d->neg ? -(int64_t)v : (int64_t)v;
  return 0;
}

double job_dec_to_double(const job_dec_t *d, int scale10) {
  char buf[64];
  if (d->n == 0) return 0.0;
  snprintf(buf, sizeof buf, "%s%se%d", d->neg ? "-" : "", d->digits, d->exp + scale10);
  return strtod(buf, NULL);
}

void job_dec_of_int(int64_t v, int pow2, int scale10, job_dec_t *d) {
  dec_u128 m = v < 0 ? (dec_u128)(-(v + 1)) + 1 : (dec_u128)v;
  for (int i = 0; i < pow2; i++) /* v / 2^k = v * 5^k / 10^k */
    m *= 5;
  char rev[48];
  int n = 0;
  for (; m; m /= 10)
    rev[n++] = (char)('0' + (int)(m % 10));
  memset(d, 0, sizeof *d);
  d->neg = v < 0;
  for (int i = 0; i < n && i < JOB_DEC_DIGITS; i++)
    d->digits[i] = rev[n - 1 - i];
  d->n = n < JOB_DEC_DIGITS ? n : JOB_DEC_DIGITS;
  d->exp = -pow2 - scale10 + (n - d->n);
  dec_trim(d);
}

void job_dec_format(const job_dec_t *d, char *buf, size_t len) {
  char t[128];
  int n = d->n, point = d->n + d->exp, k = 0; /* point: digits before the decimal point */
  if (d->neg) t[k++] = '-';
  if (n == 0) {
    t[k++] = '0';
  } else if (d->exp >= 0 && point <= 21) {
    memcpy(t + k, d->digits, (size_t)n);
    k += n;
    for (int i = 0; i < d->exp; i++)
      t[k++] = '0';
  } else if (point > 0 && point < n) {
    memcpy(t + k, d->digits, (size_t)point);
    k += point;
    t[k++] = '.';
    memcpy(t + k, d->digits + point, (size_t)(n - point));
    k += n - point;
  } else if (point <= 0 && point > -7) {
    t[k++] = '0';
    t[k++] = '.';
    for (int i = 0; i < -point; i++)
      t[k++] = '0';
    memcpy(t + k, d->digits, (size_t)n);
    k += n;
  } else {
    t[k++] = d->digits[0];
    if (n > 1) t[k++] = '.';
    memcpy(t + k, d->digits + 1, (size_t)(n - 1));
    k += n - 1;
    k += snprintf(t + k, sizeof t - (size_t)k, "e%d", point - 1);
  }
  t[k] = 0;
  snprintf(buf, len, "%s", t);
}

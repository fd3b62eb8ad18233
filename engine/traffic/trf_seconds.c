/* trf: exact conversion of decimal numbers ("2.000001", "1e-3") to integers:
 * seconds to ps, microseconds to ps, ps. */
#include <stdint.h>

#include "traffic/trf.h"

int64_t trf_parse_seconds(const char *s) {
  return trf_parse_decimal(s, 12);
}

int64_t trf_parse_decimal(const char *s, int scale) {
  const char *p = s;
  uint64_t m = 0;
  int exp10 = scale; /* value = m * 10^exp10 */
  int digits = 0, zeros = 0;
  for (; *p >= '0' && *p <= '9'; p++, digits++) {
    if (m > (UINT64_MAX - 9) / 10) return -1;
    m = m * 10 + (uint64_t)(*p - '0');
  }
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
      if (*p == '0') { /* applied only if a non-zero digit follows */
        zeros++;
        continue;
      }
      for (; zeros > 0; zeros--, exp10--) {
        if (m > UINT64_MAX / 10) return -1;
        m *= 10;
      }
      if (m > (UINT64_MAX - 9) / 10) return -1;
      m = m * 10 + (uint64_t)(*p - '0');
      exp10--;
    }
  if (!digits) return -1;
  if (*p == 'e' || *p == 'E') {
    int sign = 1, e = 0, edigits = 0;
    p++;
    if (*p == '+' || *p == '-') sign = *p++ == '-' ? -1 : 1;
    for (; *p >= '0' && *p <= '9'; p++, edigits++)
      if (e < 10000) e = e * 10 + (*p - '0');
    if (!edigits) return -1;
    exp10 += sign * e;
  }
  if (*p) return -1;
  if (m == 0) return 0;
  for (; exp10 < 0; exp10++) { /* digits below the unit must be zeros */
    if (m % 10) return -1;
    m /= 10;
  }
  for (; exp10 > 0; exp10--) {
    if (m > (uint64_t)INT64_MAX / 10) return -1;
    m *= 10;
  }
  return m > (uint64_t)INT64_MAX ? -1 : (int64_t)m;
}

/* Fuzz target: link rates and delays (topo_parse_rate, topo_parse_delay); the first
 * byte picks which. An accepted value is exact: it prints back to the same integer
 * and agrees with strtod on the number before the unit. */
#include <math.h>

#include "fuzz.h"
#include "topo/topo.h"

/* strtod of the digits and '.' before the unit, times 10^pow10; NAN if not plain. */
static double approx(const char *s, int pow10) {
  size_t n = strspn(s, "0123456789.");
  char num[4096];
  if (n == 0 || n >= sizeof num) return NAN;
  memcpy(num, s, n);
  num[n] = '\0';
  return strtod(num, NULL) * pow(10, pow10);
}

static int rate_pow10(const char *unit) {
  switch (unit[0]) {
  case 'k':
  case 'K':
    return 3;
  case 'M':
    return 6;
  case 'G':
    return 9;
  case 'T':
    return 12;
  }
  return 0;
}

static int delay_pow10(const char *unit) {
  return strcmp(unit, "s") == 0    ? 12
         : strcmp(unit, "ms") == 0 ? 9
         : strcmp(unit, "us") == 0 ? 6
         : strcmp(unit, "ns") == 0 ? 3
                                   : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  char *s = fuzz_cstr(data + 1, size - 1), back[64];
  const char *unit = s + strspn(s, "0123456789.");
  if (data[0] & 1) {
    int64_t r = topo_parse_rate(s);
    FUZZ_ASSERT(r > 0 || r == -1, "'%s' -> %lld", s, (long long)r);
    if (r > 0) {
      snprintf(back, sizeof back, "%lldbps", (long long)r);
      FUZZ_ASSERT(topo_parse_rate(back) == r, "'%s' -> %lld, printed '%s'", s, (long long)r, back);
      double v = approx(s, rate_pow10(unit));
      FUZZ_ASSERT(fabs(v - (double)r) <= 1e-12 * (double)r, "'%s': %lld, strtod %.17g", s,
                  (long long)r, v);
    }
  } else {
    int64_t d = topo_parse_delay(s);
    FUZZ_ASSERT(d >= 0 || d == -1, "'%s' -> %lld", s, (long long)d);
    if (d >= 0) {
      snprintf(back, sizeof back, "%lldps", (long long)d);
      FUZZ_ASSERT(topo_parse_delay(back) == d, "'%s' -> %lld, printed '%s'", s, (long long)d, back);
      double v = approx(s, delay_pow10(unit));
      FUZZ_ASSERT(fabs(v - (double)d) <= 1e-12 * (double)d, "'%s': %lld, strtod %.17g", s,
                  (long long)d, v);
    }
  }
  free(s);
  return 0;
}

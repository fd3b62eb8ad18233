/* Numbers read whole (eng_num.h): options, configuration files, environment. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "sim/eng_num.h"

int eng_num_int(const char *s, long long lo, long long hi, long long *out) {
  const char *d = s + (*s == '-');
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (*d < '0' || *d > '9' || *end || errno || x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

/* [-]D[.D][(e|E)[+|-]D] or [-].D...: what strtod reads, less spaces, signs
 * '+', hexadecimal, inf and nan. */
static int num_decimal(const char *s) {
  int digits = 0;
  s += *s == '-';
  for (; *s >= '0' && *s <= '9'; s++)
    digits++;
  if (*s == '.')
    for (s++; *s >= '0' && *s <= '9'; s++)
      digits++;
  if (!digits) return 0;
  if (*s == 'e' || *s == 'E') {
    s++;
    s += *s == '+' || *s == '-';
    if (*s < '0' || *s > '9') return 0;
    while (*s >= '0' && *s <= '9')
      s++;
  }
  return *s == '\0';
}

int eng_num_real(const char *s, double lo, double hi, double *out) {
  double x = num_decimal(s) ? strtod(s, NULL) : NAN;
  if (!(x >= lo && x <= hi)) return -1;
  *out = x;
  return 0;
}

int eng_env_int(const char *name, long long lo, long long hi, long long def, long long *out) {
  const char *v = getenv(name);
  *out = def;
  if (!v) return 0;
  return eng_num_int(v, lo, hi, out);
}

int eng_env_flag(const char *name) {
  long long v;
  return eng_env_int(name, 0, 1, 0, &v) == 0 && v == 1;
}

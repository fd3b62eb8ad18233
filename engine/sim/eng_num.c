/* Numbers read whole (eng_num.h): options, configuration files, environment. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "base/base_dec.h"
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

int eng_num_real(const char *s, double lo, double hi, double *out) {
  double x = base_dec_real(s);
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

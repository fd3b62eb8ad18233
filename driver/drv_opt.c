/* Strict option values shared by the driver's commands: numbers fully
 * consumed and range-checked, a backend named, a parameter key given once. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"

int drv_opt_int(const char *cmd, const char *opt, const char *v, long long lo, long long hi,
                long long *out) {
  const char *d = v + (*v == '-');
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (*d < '0' || *d > '9' || *end || errno || x < lo || x > hi)
    return drv_fail(2, "multiverse %s: %s %s: expected an integer from %lld to %lld\n", cmd, opt, v,
                    lo, hi);
  *out = x;
  return 0;
}

int drv_opt_backend(const char *cmd, const char *v, int auto_ok, int *out) {
  if (strcmp(v, "cpu") == 0)
    *out = ENG_BACKEND_CPU;
  else if (strcmp(v, "cuda") == 0)
    *out = ENG_BACKEND_CUDA;
  else if (auto_ok && strcmp(v, "auto") == 0)
    *out = -1;
  else
    return drv_fail(2, "multiverse %s: --backend %s: expected %s\n", cmd, v,
                    auto_ok ? "auto, cpu or cuda" : "cpu or cuda");
  return 0;
}

/* [-]D[.D][(e|E)[+|-]D] or [-].D...: what strtod reads, less spaces, signs
 * '+', hexadecimal, inf and nan. */
static int opt_decimal(const char *s) {
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

int drv_opt_real(const char *cmd, const char *opt, const char *v, double lo, double hi,
                 const char *unit, double *out) {
  double x = opt_decimal(v) ? strtod(v, NULL) : NAN;
  if (!(x >= lo && x <= hi))
    return drv_fail(2, "multiverse %s: %s %s: expected a number from %g to %g%s%s\n", cmd, opt, v,
                    lo, hi, *unit ? " " : "", unit);
  *out = x;
  return 0;
}

/* The key of "KEY=..." (its length). */
static size_t opt_key_len(const char *kv) {
  return strcspn(kv, "=");
}

int drv_opt_keys_once(const char *cmd, const char *what, const char *const *kvs, int n) {
  for (int i = 1; i < n; i++)
    for (int j = 0; j < i; j++)
      if (opt_key_len(kvs[i]) == opt_key_len(kvs[j]) &&
          strncmp(kvs[i], kvs[j], opt_key_len(kvs[i])) == 0)
        return drv_fail(2, "multiverse %s: %s %.*s is given twice: give each key once\n", cmd, what,
                        (int)opt_key_len(kvs[i]), kvs[i]);
  return 0;
}

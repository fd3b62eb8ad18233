/* Strict option values shared by the driver's commands: numbers read whole
 * and range-checked (sim/eng_num.h, the parser of every number outside
 * JSON), a backend named, a parameter key given once. */
#include <string.h>

#include "driver/drv.h"
#include "sim/eng_num.h"

int drv_opt_int(const char *cmd, const char *opt, const char *v, long long lo, long long hi,
                long long *out) {
  if (eng_num_int(v, lo, hi, out))
    return drv_fail(2, "multiverse %s: %s %s: expected an integer from %lld to %lld\n", cmd, opt, v,
                    lo, hi);
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

int drv_opt_real(const char *cmd, const char *opt, const char *v, double lo, double hi,
                 const char *unit, double *out) {
  if (eng_num_real(v, lo, hi, out))
    return drv_fail(2, "multiverse %s: %s %s: expected a number from %g to %g%s%s\n", cmd, opt, v,
                    lo, hi, *unit ? " " : "", unit);
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

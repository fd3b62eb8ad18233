/* `--sweep KEY=V1,V2,...` of the driver's commands: every combination of the
 * swept values as one parameter set. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"

int drv_sweep(const char *cmd, const char *const *sweeps, int n_sweeps, const job_presets_t *ps,
              const eng_params_t *base, int *n, eng_params_t **out, char ***labels) {
  char vals[DRV_MAX_SWEEPS][1024];
  int count[DRV_MAX_SWEEPS];
  long total = 1;
  for (int s = 0; s < n_sweeps; s++) {
    snprintf(vals[s], sizeof vals[s], "%s", strchr(sweeps[s], '=') + 1);
    count[s] = 1;
    for (const char *p = vals[s]; *p; p++)
      count[s] += *p == ',';
    total *= count[s];
    if (total > DRV_MAX_EXPS)
      return drv_fail(2, "multiverse %s: --sweep: over %d combinations\n", cmd, DRV_MAX_EXPS);
  }
  *n = (int)total;
  *out = calloc((size_t)total, sizeof **out);
  *labels = calloc((size_t)total, sizeof **labels);
  if (!*out || !*labels) return drv_fail(2, "multiverse %s: out of memory\n", cmd);
  for (long c = 0; c < total; c++) {
    eng_params_t *p = &(*out)[c];
    char label[2048] = "", err[1024];
    *p = *base;
    long stride = total;
    for (int s = 0; s < n_sweeps; s++) {
      stride /= count[s];
      int pick = (int)((c / stride) % count[s]);
      const char *v = vals[s];
      for (int k = 0; k < pick; k++)
        v = strchr(v, ',') + 1;
      int key_len = (int)(strchr(sweeps[s], '=') - sweeps[s]);
      char kv[1200];
      snprintf(kv, sizeof kv, "%.*s=%.*s", key_len, sweeps[s], (int)strcspn(v, ","), v);
      if (job_param_set(ps, p, kv, err, sizeof err))
        return drv_fail(2, "multiverse %s: --sweep %s: %s\n", cmd, sweeps[s], err);
      size_t used = strlen(label);
      snprintf(label + used, sizeof label - used, "%s%s", used ? " " : "", kv);
    }
    (*labels)[c] = strdup(label);
    if (!(*labels)[c]) return drv_fail(2, "multiverse %s: out of memory\n", cmd);
  }
  return 0;
}

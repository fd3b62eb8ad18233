/* `--sweep KEY=V1,V2,...` of the driver's commands: every combination of the
 * swept values as one parameter set, with the `--set`s. Lists of any length;
 * a key swept twice, or a value given twice, is an error. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"

/* One --sweep: its key and values (pointers into `buf`, the list split at
 * its commas). */
typedef struct sweep_axis_t {
  int key_len;
  char *buf;
  char **val;
  int n;
} sweep_axis_t;

static int sweep_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Splits sweeps[s] into ax; 0 or 2 with a message. */
static int sweep_split(const char *cmd, const char *sw, sweep_axis_t *ax) {
  const char *eq = strchr(sw, '=');
  if (!eq || eq == sw)
    return drv_fail(2, "multiverse %s: --sweep %s: expected KEY=V1,V2,...\n", cmd, sw);
  ax->key_len = (int)(eq - sw);
  ax->buf = strdup(eq + 1);
  ax->n = 1;
  for (const char *p = eq + 1; *p; p++)
    ax->n += *p == ',';
  ax->val = malloc((size_t)ax->n * sizeof *ax->val);
  if (!ax->buf || !ax->val) return drv_fail(2, "multiverse %s: out of memory\n", cmd);
  char *v = ax->buf;
  for (int i = 0; i < ax->n; i++) {
    ax->val[i] = v;
    v += strcspn(v, ",");
    if (*v) *v++ = '\0';
    if (!*ax->val[i])
      return drv_fail(2, "multiverse %s: --sweep %.*s: value %d of %d is empty\n", cmd, ax->key_len,
                      sw, i + 1, ax->n);
  }
  char **sorted = malloc((size_t)ax->n * sizeof *sorted);
  if (!sorted) return drv_fail(2, "multiverse %s: out of memory\n", cmd);
  memcpy(sorted, ax->val, (size_t)ax->n * sizeof *sorted);
  qsort(sorted, (size_t)ax->n, sizeof *sorted, sweep_cmp);
  int dup = -1;
  for (int i = 1; i < ax->n && dup < 0; i++)
    if (strcmp(sorted[i], sorted[i - 1]) == 0) dup = i;
  int rc = dup < 0 ? 0
                   : drv_fail(2, "multiverse %s: --sweep %.*s: the value %s is given twice\n", cmd,
                              ax->key_len, sw, sorted[dup]);
  free(sorted);
  return rc;
}

/* Values of one axis written differently with one meaning (1000, 1e3, 1000.0:
 * one experiment, one id) are given twice: each applied alone to the
 * defaults, their canonical parameters compared. Values the key refuses are
 * left to the expansion's message. 0 or 2. */
static int sweep_same(const char *cmd, const char *sw, const sweep_axis_t *ax,
                      const job_presets_t *ps) {
  char **canon = calloc((size_t)ax->n + 1, sizeof *canon), err[1024], kv[4200];
  static eng_params_t p; /* large: not on the stack */
  int rc = canon ? 0 : drv_fail(2, "multiverse %s: out of memory\n", cmd);
  for (int i = 0; !rc && i < ax->n; i++) {
    snprintf(kv, sizeof kv, "%.*s=%s", ax->key_len, sw, ax->val[i]);
    p = ps->defaults;
    if (job_param_set(ps, &p, kv, err, sizeof err)) continue;
    canon[i] = job_params_canonical(&p);
    for (int j = 0; canon[i] && j < i; j++)
      if (canon[j] && strcmp(canon[i], canon[j]) == 0)
        rc = drv_fail(2, "multiverse %s: --sweep %.*s: the value %s is given twice (as %s)\n", cmd,
                      ax->key_len, sw, ax->val[i], ax->val[j]);
  }
  for (int i = 0; canon && i < ax->n; i++)
    free(canon[i]);
  free(canon);
  return rc;
}

/* "--set KEY: why" of job_param_set, less its "--set KEY: " (for a swept value). */
static const char *sweep_why(const char *err) {
  const char *c = strncmp(err, "--set ", 6) == 0 ? strstr(err, ": ") : NULL;
  return c ? c + 2 : err;
}

/* The parameter sets: every combination, each from the defaults. */
static int sweep_expand(const char *cmd, const char *const *sets, int n_sets,
                        const char *const *sweeps, int n_sweeps, const sweep_axis_t *ax,
                        const job_presets_t *ps, long total, eng_params_t *out, char **labels) {
  const char **kvs = malloc(((size_t)n_sets + (size_t)n_sweeps) * sizeof *kvs);
  char **own = calloc((size_t)n_sweeps + 1, sizeof *own);
  int rc = kvs && own ? 0 : drv_fail(2, "multiverse %s: out of memory\n", cmd);
  for (int i = 0; i < n_sets && !rc; i++)
    kvs[i] = sets[i];
  for (long c = 0; c < total && !rc; c++) {
    size_t label_len = 1;
    long stride = total;
    for (int s = 0; s < n_sweeps && !rc; s++) {
      stride /= ax[s].n;
      const char *v = ax[s].val[(c / stride) % ax[s].n];
      size_t len = (size_t)ax[s].key_len + strlen(v) + 2;
      free(own[s]);
      own[s] = malloc(len);
      if (!own[s]) {
        rc = drv_fail(2, "multiverse %s: out of memory\n", cmd);
        break;
      }
      snprintf(own[s], len, "%.*s=%s", ax[s].key_len, sweeps[s], v);
      kvs[n_sets + s] = own[s];
      label_len += len;
    }
    if (rc) break;
    char err[1024];
    int bad = -1;
    out[c] = ps->defaults;
    if (job_params_set_list(ps, &out[c], kvs, n_sets + n_sweeps, &bad, err, sizeof err)) {
      rc = bad < n_sets
               ? drv_fail(2, "multiverse %s: %s\n", cmd, err)
               : drv_fail(2, "multiverse %s: --sweep %s: %s\n", cmd, kvs[bad], sweep_why(err));
      break;
    }
    if (!(labels[c] = malloc(label_len))) {
      rc = drv_fail(2, "multiverse %s: out of memory\n", cmd);
      break;
    }
    labels[c][0] = '\0';
    for (int s = 0, used = 0; s < n_sweeps; s++)
      used += sprintf(labels[c] + used, "%s%s", s ? " " : "", own[s]);
  }
  for (int s = 0; own && s < n_sweeps; s++)
    free(own[s]);
  free(own);
  free((void *)kvs);
  return rc;
}

int drv_sweep(const char *cmd, const char *const *sets, int n_sets, const char *const *sweeps,
              int n_sweeps, const job_presets_t *ps, int *n, eng_params_t **out, char ***labels) {
  sweep_axis_t ax[DRV_MAX_SWEEPS] = {{0}};
  long total = 1;
  int rc = drv_opt_keys_once(cmd, "--sweep", sweeps, n_sweeps);
  for (int s = 0; s < n_sweeps && !rc; s++) {
    if ((rc = sweep_split(cmd, sweeps[s], &ax[s])) || (rc = sweep_same(cmd, sweeps[s], &ax[s], ps)))
      break;
    total *= ax[s].n;
    if (total > DRV_MAX_EXPS)
      rc = drv_fail(2, "multiverse %s: --sweep: more than %d combinations\n", cmd, DRV_MAX_EXPS);
  }
  *n = 0;
  *out = NULL;
  *labels = NULL;
  if (!rc) {
    *out = calloc((size_t)total, sizeof **out);
    *labels = calloc((size_t)total, sizeof **labels);
    rc = *out && *labels
             ? sweep_expand(cmd, sets, n_sets, sweeps, n_sweeps, ax, ps, total, *out, *labels)
             : drv_fail(2, "multiverse %s: out of memory\n", cmd);
    *n = (int)total; /* the caller frees the labels made */
  }
  for (int s = 0; s < n_sweeps; s++) {
    free(ax[s].buf);
    free(ax[s].val);
  }
  return rc ? 2 : 0;
}

json_t *drv_sweep_json(const char *label) {
  json_t *sw = json_object();
  char *buf = strdup(label);
  for (char *save = NULL, *kv = buf ? strtok_r(buf, " ", &save) : NULL; kv && sw;
       kv = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(kv, '=');
    *eq = 0;
    json_object_set_new(sw, kv, json_string(eq + 1));
  }
  free(buf);
  return sw;
}

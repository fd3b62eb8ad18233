/* `--sweep KEY=V1,V2,...` of the driver's commands as the axes of their job's
 * grid (jobs/ expands it, as every job's): each value checked with the
 * `--set`s and written as the job writes it. Lists of any length; a key swept
 * twice, or a value given twice, is an error. */
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

/* The value `v` of swept key `key` as its job grid writes it: a preset's name
 * as given (cc, preset), else the canonical value of the key once set (with
 * the --sets, cc first). NULL with a message (2) when it is refused. */
static json_t *sweep_value(const char *cmd, const char *const *sets, int n_sets, const char *key,
                           int key_len, const char *v, const job_presets_t *ps, int *rc) {
  const char **kvs = malloc(((size_t)n_sets + 1) * sizeof *kvs);
  size_t len = (size_t)key_len + strlen(v) + 2;
  char *kv = malloc(len), err[1024], name[128];
  int n = 0, bad = -1;
  json_t *out = NULL;
  *rc = 0;
  if (!kvs || !kv) {
    *rc = drv_fail(2, "multiverse %s: out of memory\n", cmd);
    goto done;
  }
  snprintf(kv, len, "%.*s=%s", key_len, key, v);
  snprintf(name, sizeof name, "%.*s", key_len < 127 ? key_len : 127, key);
  for (int i = 0; i < n_sets; i++) /* a swept value replaces a --set of its key */
    if (strncmp(sets[i], kv, (size_t)key_len + 1) != 0) kvs[n++] = sets[i];
  kvs[n++] = kv;
  eng_params_t p = ps->defaults;
  if (job_params_set_list(ps, &p, kvs, n, &bad, err, sizeof err)) {
    *rc = bad < n - 1 ? drv_fail(2, "multiverse %s: %s\n", cmd, err)
                      : drv_fail(2, "multiverse %s: --sweep %s: %s\n", cmd, kv, sweep_why(err));
    goto done;
  }
  out = strcmp(name, "cc") == 0 || strcmp(name, "preset") == 0 ? json_string(v)
                                                                : job_param_json(&p, name);
  if (!out) *rc = drv_fail(2, "multiverse %s: out of memory\n", cmd);
done:
  free((void *)kvs);
  free(kv);
  return out;
}

int drv_sweep(const char *cmd, const char *const *sets, int n_sets, const char *const *sweeps,
              int n_sweeps, const job_presets_t *ps, json_t *grid, long *combos) {
  sweep_axis_t ax[DRV_MAX_SWEEPS] = {{0}};
  long total = 1;
  int rc = drv_opt_keys_once(cmd, "--sweep", sweeps, n_sweeps);
  json_t *lists[DRV_MAX_SWEEPS] = {NULL};
  for (int s = 0; s < n_sweeps && !rc; s++) {
    if ((rc = sweep_split(cmd, sweeps[s], &ax[s])) || (rc = sweep_same(cmd, sweeps[s], &ax[s], ps)))
      break;
    total *= ax[s].n;
    if (total > DRV_MAX_EXPS)
      rc = drv_fail(2, "multiverse %s: --sweep: more than %d combinations\n", cmd, DRV_MAX_EXPS);
    if (!rc && !(lists[s] = json_array())) rc = drv_fail(2, "multiverse %s: out of memory\n", cmd);
  }
  /* Values checked in the order the combinations list them, as they run. */
  for (long c = 0, stride; c < total && !rc; c++) {
    stride = total;
    for (int s = 0; s < n_sweeps && !rc; s++) {
      stride /= ax[s].n;
      int k = (int)((c / stride) % ax[s].n);
      if ((long)json_array_size(lists[s]) != k) continue; /* checked already */
      json_t *v = sweep_value(cmd, sets, n_sets, sweeps[s], ax[s].key_len, ax[s].val[k], ps, &rc);
      if (v) json_array_append_new(lists[s], v);
    }
  }
  /* Two texts of one value (4096 and 4096.0) would be one experiment twice. */
  for (int s = 0; s < n_sweeps && !rc; s++)
    for (int a = 0; a < ax[s].n && !rc; a++)
      for (int b = a + 1; b < ax[s].n && !rc; b++)
        if (json_equal(json_array_get(lists[s], (size_t)a), json_array_get(lists[s], (size_t)b)))
          rc = drv_fail(2, "multiverse %s: --sweep %.*s: %s and %s are one value\n", cmd,
                        ax[s].key_len, sweeps[s], ax[s].val[a], ax[s].val[b]);
  for (int s = 0; s < n_sweeps && !rc; s++) {
    char key[160];
    snprintf(key, sizeof key, "network.%.*s", ax[s].key_len < 140 ? ax[s].key_len : 140,
             sweeps[s]);
    if (json_object_set(grid, key, lists[s])) rc = drv_fail(2, "multiverse %s: out of memory\n", cmd);
  }
  for (int s = 0; s < n_sweeps; s++) {
    json_decref(lists[s]);
    free(ax[s].buf);
    free(ax[s].val);
  }
  *combos = total;
  return rc ? 2 : 0;
}

char *drv_sweep_label(const char *const *sweeps, int n_sweeps, long c) {
  long total = 1;
  size_t len = 1;
  int n[DRV_MAX_SWEEPS];
  for (int s = 0; s < n_sweeps; s++) {
    n[s] = 1;
    for (const char *p = strchr(sweeps[s], '='); p && *p; p++)
      n[s] += *p == ',';
    total *= n[s];
    len += strlen(sweeps[s]) + 1;
  }
  char *label = malloc(len);
  if (!label) return NULL;
  label[0] = '\0';
  for (int s = 0, used = 0; s < n_sweeps; s++) {
    total /= n[s];
    const char *eq = strchr(sweeps[s], '='), *v = eq + 1;
    for (long k = (c / total) % n[s]; k > 0; k--)
      v += strcspn(v, ",") + 1;
    used += sprintf(label + used, "%s%.*s=%.*s", s ? " " : "", (int)(eq - sweeps[s]), sweeps[s],
                    (int)strcspn(v, ","), v);
  }
  return label;
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

int drv_sets_json(const char *const *sets, int n_sets, const eng_params_t *p, json_t *obj) {
  for (int i = 0; i < n_sets; i++) {
    const char *eq = strchr(sets[i], '=');
    char key[128];
    snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - sets[i]) : 0, sets[i]);
    int named = strcmp(key, "cc") == 0 || strcmp(key, "preset") == 0; /* a preset's name */
    json_t *v = !eq ? NULL : named ? json_string(eq + 1) : job_param_json(p, key);
    if (!v || json_object_set_new(obj, key, v)) return -1;
  }
  return 0;
}

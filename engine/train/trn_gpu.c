/* trn: GPU types from gpus.json, their GEMM efficiency curves, and the roofline time
 * of one operation. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "train/trn_int.h"

static const char *const gpu_keys[] = {"peak_tflops",       "hbm_mib",     "hbm_TBps",
                                       "hbm_TBps_achieved", "nvlink_GBps", "gpus_per_server",
                                       "nics_per_server",   "nic_gbps",    "overlap_slowdown",
                                       "memory_reserve_gb", "gemm",        "gemm_fp8",
                                       "sources",           NULL};
static const char *const gemm_keys[] = {"dtype", "rows", "scaled_from", "anchor", "todo", NULL};

/* Reads [m, n, k, tflops] (named path); 0 or -1 with a problem. */
static int read_row(const json_t *row, const char *path, double *flops, double *tflops,
                    double *aspect, trn_problems_t *pr) {
  double v[4];
  if (!json_is_array(row) || json_array_size(row) != 4) {
    trn_jproblem(pr, path, NULL, "must be [m, n, k, tflops]");
    return -1;
  }
  for (size_t j = 0; j < 4; j++) {
    const json_t *x = json_array_get(row, j);
    v[j] = json_is_number(x) ? json_number_value(x) : -1;
    if (!(v[j] > 0 && v[j] < 1e9) || (j < 3 && v[j] != floor(v[j]))) {
      trn_jproblem(pr, path, NULL, "must be [m, n, k, tflops] of positive numbers, m n k integers");
      return -1;
    }
  }
  *flops = 2 * v[0] * v[1] * v[2];
  *tflops = v[3];
  double lo = fmin(v[0], fmin(v[1], v[2])), hi = fmax(v[0], fmax(v[1], v[2]));
  *aspect = hi / lo;
  return 0;
}

/* The curve of gemm.rows: rows within max_aspect, sorted by FLOPs. */
static int read_rows(const json_t *rows, const char *where, double max_aspect, double peak,
                     trn_gpu_t *g, trn_problems_t *pr) {
  int before = pr->n;
  if (!json_is_array(rows) || json_array_size(rows) == 0) {
    trn_jproblem(pr, where, NULL, "must be a non-empty array of [m, n, k, tflops]");
    return -1;
  }
  g->n_curve = 0;
  int32_t same[TRN_CURVE_MAX]; /* rows averaged into each point */
  for (size_t i = 0; i < json_array_size(rows); i++) {
    double f, t, aspect;
    char path[TRN_ERR_LEN];
    snprintf(path, sizeof path, "%s[%zu]", where, i);
    if (read_row(json_array_get(rows, i), path, &f, &t, &aspect, pr) < 0) continue;
    if (t > peak) {
      trn_jproblem(pr, path, NULL, "%g TFLOP/s is above the peak (%g)", t, peak);
      continue;
    }
    if (aspect > max_aspect) continue;
    int32_t j = 0;
    while (j < g->n_curve && g->curve_flops[j] < f)
      j++;
    if (j < g->n_curve && g->curve_flops[j] == f) { /* shapes of equal FLOPs: their mean */
      g->curve_tflops[j] = (g->curve_tflops[j] * same[j] + t) / (same[j] + 1);
      same[j]++;
      continue;
    }
    if (g->n_curve == TRN_CURVE_MAX) {
      trn_jproblem(pr, where, NULL, "more than %d rows", TRN_CURVE_MAX);
      return -1;
    }
    for (int32_t k = g->n_curve++; k > j; k--) {
      g->curve_flops[k] = g->curve_flops[k - 1];
      g->curve_tflops[k] = g->curve_tflops[k - 1];
      same[k] = same[k - 1];
    }
    g->curve_flops[j] = f;
    g->curve_tflops[j] = t;
    same[j] = 1;
  }
  if (pr->n == before && g->n_curve == 0)
    trn_jproblem(pr, where, NULL, "no row within curve_max_aspect %g", max_aspect);
  return pr->n == before ? 0 : -1;
}

/* gemm: measured rows, or another GPU's rows scaled through an anchor point. */
static void read_gemm(const json_t *o, const json_t *all, double max_aspect, const char *where,
                      trn_gpu_t *g, trn_problems_t *pr) {
  char path[TRN_ERR_LEN];
  const json_t *gemm = json_object_get(o, "gemm");
  snprintf(path, sizeof path, "%s.gemm", where);
  if (!json_is_object(gemm)) {
    trn_jproblem(pr, path, NULL, "missing: an object with rows, or scaled_from and anchor");
    return;
  }
  trn_jkeys(gemm, gemm_keys, path, pr);
  const json_t *rows = json_object_get(gemm, "rows");
  const json_t *from = json_object_get(gemm, "scaled_from");
  if (rows && !from) {
    char rpath[TRN_ERR_LEN];
    read_rows(rows, trn_path(rpath, sizeof rpath, path, "rows"), max_aspect, g->peak_tflops, g, pr);
    return;
  }
  const json_t *src = json_is_string(from) ? json_object_get(all, json_string_value(from)) : NULL;
  const json_t *src_gemm = json_object_get(src, "gemm");
  const json_t *anchor = json_object_get(gemm, "anchor");
  double af, at, aspect;
  if (rows || !src || !json_object_get(src_gemm, "rows")) {
    trn_jproblem(pr, path, "scaled_from",
                 "must name another GPU with measured rows (and no rows beside it)");
    return;
  }
  char apath[TRN_ERR_LEN];
  if (read_row(anchor, trn_path(apath, sizeof apath, path, "anchor"), &af, &at, &aspect, pr) < 0)
    return;
  char spath[TRN_ERR_LEN];
  snprintf(spath, sizeof spath, "%s.gemm.scaled_from (%s's rows)", where, json_string_value(from));
  if (read_rows(json_object_get(src_gemm, "rows"), spath, max_aspect, 1e9, g, pr) < 0) return;
  double scale = at / trn_gemm_tflops(g, af);
  for (int32_t i = 0; i < g->n_curve; i++) {
    g->curve_tflops[i] *= scale;
    if (g->curve_tflops[i] > g->peak_tflops)
      trn_jproblem(pr, path, "anchor", "scales the curve above the peak (%g TFLOP/s at %g FLOPs)",
                   g->curve_tflops[i], g->curve_flops[i]);
  }
}

int trn_gpu_read_preset(const json_t *o, const json_t *all, double max_aspect, const char *name,
                        const char *where, trn_gpu_t *g, trn_problems_t *pr) {
  int before = pr->n;
  memset(g, 0, sizeof *g);
  snprintf(g->name, sizeof g->name, "%s", name);
  if (strlen(name) >= sizeof g->name)
    trn_jproblem(pr, where, NULL, "GPU name longer than %zu characters", sizeof g->name - 1);
  if (!json_is_object(o)) {
    trn_jproblem(pr, where, NULL, "must be an object");
    return pr->n - before;
  }
  trn_jkeys(o, gpu_keys, where, pr);
  struct {
    const char *key;
    double min, max, *out;
  } num[] = {
      {"peak_tflops", 1, 1e6, &g->peak_tflops},
      {"hbm_mib", 1, 1e9, &g->hbm_bytes},
      {"hbm_TBps", 0.001, 1e4, &g->hbm_TBps},
      {"hbm_TBps_achieved", 0.001, 1e4, &g->hbm_TBps_achieved},
      {"nvlink_GBps", 0, 1e6, &g->nvlink_GBps},
      {"nic_gbps", 1, 1e6, &g->nic_gbps},
      {"overlap_slowdown", 1, 10, &g->overlap_slowdown},
      {"memory_reserve_gb", 0, 1e6, &g->memory_reserve_gb},
  };
  for (size_t i = 0; i < sizeof num / sizeof num[0]; i++)
    if (trn_jnum(o, num[i].key, num[i].min, num[i].max, num[i].out, where, pr) == 0)
      trn_jproblem(pr, where, num[i].key, "missing");
  g->hbm_bytes *= 1024.0 * 1024.0;
  if (trn_jint(o, "gpus_per_server", 1, 1024, &g->gpus_per_server, where, pr) == 0)
    trn_jproblem(pr, where, "gpus_per_server", "missing");
  if (trn_jint(o, "nics_per_server", 1, 1024, &g->nics_per_server, where, pr) == 0)
    trn_jproblem(pr, where, "nics_per_server", "missing");
  if (g->hbm_TBps_achieved > g->hbm_TBps)
    trn_jproblem(pr, where, "hbm_TBps_achieved", "must be at most hbm_TBps (%g)", g->hbm_TBps);
  if (g->peak_tflops > 0) read_gemm(o, all, max_aspect, where, g, pr);
  return pr->n - before;
}

double trn_gemm_tflops(const trn_gpu_t *g, double flops) {
  int32_t n = g->n_curve;
  if (n == 0) return g->peak_tflops;
  if (flops <= g->curve_flops[0]) return g->curve_tflops[0];
  if (flops >= g->curve_flops[n - 1]) return g->curve_tflops[n - 1];
  int32_t i = 0;
  while (g->curve_flops[i + 1] <= flops)
    i++;
  double t =
      (log(flops) - log(g->curve_flops[i])) / (log(g->curve_flops[i + 1]) - log(g->curve_flops[i]));
  return g->curve_tflops[i] + t * (g->curve_tflops[i + 1] - g->curve_tflops[i]);
}

int64_t trn_op_time_ps(const trn_gpu_t *g, double flops, double bytes, int gemm) {
  /* FLOPs / (TFLOP/s) is ps, as bytes / (TB/s) is. */
  double compute = gemm && flops > 0 ? flops / trn_gemm_tflops(g, flops) : 0;
  double memory = bytes > 0 ? bytes / g->hbm_TBps_achieved : 0;
  return llround(fmax(compute, memory));
}

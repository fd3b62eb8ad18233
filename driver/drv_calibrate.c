/* `multiverse calibrate`: fits the intra-server model to nccl-tests logs and
 * writes a model file that `--calibration FILE.json` loads. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h"
#include "driver/drv.h"

#define CAL_MAX_LOGS 1024

static const char cal_usage[] =
    "usage: multiverse calibrate NCCL_TESTS_LOG... -o FILE.json [--gpu NAME]\n"
    "                            [--collective NAME] [--out-of-place]\n"
    "  NCCL_TESTS_LOG  stdout of an nccl-tests binary (all_reduce_perf, all_gather_perf,\n"
    "                  reduce_scatter_perf, alltoall_perf, broadcast_perf, reduce_perf,\n"
    "                  sendrecv_perf) run on the GPUs of one server\n"
    "  --gpu         GPU type of the curves (default: from the device name, \"NVIDIA H200\"\n"
    "                -> h200); use the cluster preset's name\n"
    "  --collective  for logs that neither print \"# Collective test starting\" nor have\n"
    "                the program in their file name\n"
    "  --out-of-place  fit the out-of-place times (default: in-place)\n"
    "Logs of the same GPU type, collective and GPU count are fitted together; one curve\n"
    "per such group, t = alpha + bytes / beta per size range (docs/collectives.md).\n";

/* One (gpu, collective, ranks) group of logs. */
typedef struct cal_group_t {
  char gpu[COLL_NAME_LEN];
  int32_t kind, ranks;
  int32_t n;
  coll_point_t *p;
  json_t *sources; /* array of "FILE (version)" */
} cal_group_t;

static int cal_add(cal_group_t **gs, int *ng, const coll_log_t *log, const char *gpu,
                   const char *path) {
  int i = 0;
  while (i < *ng && !(strcmp((*gs)[i].gpu, gpu) == 0 && (*gs)[i].kind == log->kind &&
                      (*gs)[i].ranks == log->ranks))
    i++;
  if (i == *ng) {
    cal_group_t *g = realloc(*gs, ((size_t)*ng + 1) * sizeof *g);
    if (!g) return -1;
    *gs = g;
    memset(&g[i], 0, sizeof g[i]);
    snprintf(g[i].gpu, sizeof g[i].gpu, "%s", gpu);
    g[i].kind = log->kind;
    g[i].ranks = log->ranks;
    if (!(g[i].sources = json_array())) return -1;
    (*ng)++;
  }
  cal_group_t *g = &(*gs)[i];
  coll_point_t *p = realloc(g->p, ((size_t)g->n + (size_t)log->n) * sizeof *p);
  if (!p) return -1;
  g->p = p;
  memcpy(g->p + g->n, log->p, (size_t)log->n * sizeof *p);
  g->n += log->n;
  char src[1200];
  snprintf(src, sizeof src, "%s: %s, %d ranks%s%s", path, log->device, log->ranks,
           log->version[0] ? ", " : "", log->version);
  return json_array_append_new(g->sources, json_string(src));
}

/* The group's model-file entry: the fit, its sources and points. */
static json_t *cal_entry(const cal_group_t *g, const coll_fit_t *f) {
  json_t *o = coll_fit_to_json(f), *pts = json_array();
  if (!o || !pts) {
    json_decref(o);
    json_decref(pts);
    return NULL;
  }
  for (int32_t i = 0; i < g->n; i++) {
    json_t *x = json_object();
    if (json_array_append_new(pts, x) ||
        json_object_set_new(x, "bytes", json_integer((json_int_t)g->p[i].bytes)) ||
        json_object_set_new(x, "time_us", json_real(g->p[i].time_us)))
      break;
  }
  if (json_object_set(o, "source", g->sources) || json_object_set_new(o, "points", pts)) {
    json_decref(o);
    return NULL;
  }
  return o;
}

static int cal_run(const char *const *logs, int n_logs, const char *out, const char *gpu_opt,
                   int kind, int oop) {
  cal_group_t *gs = NULL;
  int ng = 0, rc = 2;
  char err[1024];
  json_t *root = json_pack("{s:s, s:s, s:[]}", "description",
                           "Intra-server NCCL model fitted by `multiverse calibrate` from "
                           "nccl-tests logs (docs/collectives.md)",
                           "fit",
                           "coll_fit: the fewest size ranges (at most 6, two points or more "
                           "each) whose weighted least-squares lines t = alpha + bytes / beta "
                           "(weights 1/t^2, alpha >= 0, beta <= 10 TB/s) keep every point within "
                           "the tightest of 2..10, 15, 20, 30, 50 % from 1 MiB on, then the "
                           "tightest below",
                           "models");
  if (!root) return drv_fail(2, "multiverse calibrate: out of memory\n");
  for (int i = 0; i < n_logs; i++) {
    coll_log_t log;
    char gpu[COLL_NAME_LEN];
    if (coll_log_read(logs[i], kind, oop, &log, err, sizeof err)) {
      drv_fail(2, "multiverse calibrate: %s\n", err);
      goto done;
    }
    if (log.nodes > 1) {
      drv_fail(2,
               "multiverse calibrate: %s: ranks on %d hosts: the intra-server model needs "
               "a run inside one server\n",
               logs[i], log.nodes);
      coll_log_free(&log);
      goto done;
    }
    if (gpu_opt)
      snprintf(gpu, sizeof gpu, "%s", gpu_opt);
    else
      coll_gpu_name(log.device, gpu, sizeof gpu);
    int bad = cal_add(&gs, &ng, &log, gpu, logs[i]);
    coll_log_free(&log);
    if (bad) {
      drv_fail(2, "multiverse calibrate: out of memory\n");
      goto done;
    }
  }
  json_t *models = json_object_get(root, "models");
  for (int i = 0; i < ng; i++) {
    coll_fit_t f;
    /* distinct sizes > 0: a line needs two (one gave alpha 0 and a slope from one time) */
    uint64_t first = 0;
    int sizes = 0;
    for (int32_t k = 0; k < gs[i].n && sizes < 2; k++) {
      uint64_t b = gs[i].p[k].bytes;
      if (b > 0 && sizes == 0) first = b, sizes = 1;
      if (b > 0 && b != first) sizes = 2;
    }
    if (sizes < 2) {
      drv_fail(2,
               "multiverse calibrate: %s %s %d GPUs: only %llu bytes measured: a model needs "
               "two sizes or more (nccl-tests -b and -e)\n",
               gs[i].gpu, coll_name(gs[i].kind), gs[i].ranks, (unsigned long long)first);
      goto done;
    }
    if (coll_fit(gs[i].p, gs[i].n, &f, err, sizeof err)) {
      drv_fail(2, "multiverse calibrate: %s %s %d GPUs: %s\n", gs[i].gpu, coll_name(gs[i].kind),
               gs[i].ranks, err);
      goto done;
    }
    snprintf(f.gpu, sizeof f.gpu, "%s", gs[i].gpu);
    f.kind = gs[i].kind;
    f.gpus = gs[i].ranks;
    json_t *e = cal_entry(&gs[i], &f);
    if (!e || json_array_append_new(models, e)) {
      drv_fail(2, "multiverse calibrate: out of memory\n");
      goto done;
    }
    printf("%s %s %d GPUs: %d points, %d ranges, max error %.2f%%\n", f.gpu, coll_name(f.kind),
           f.gpus, gs[i].n, f.n_ranges, 100 * f.max_err);
  }
  drv_out_t o; /* the output rule: written whole, read back, then renamed */
  if (drv_out_open(&o, out, err, sizeof err)) {
    drv_fail(2, "multiverse calibrate: %s\n", err);
    goto done;
  }
  if (json_dumpf(root, o.f, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) || fflush(o.f)) {
    drv_fail(2, "multiverse calibrate: cannot write %s: %s\n", out, strerror(errno));
    drv_out_abort(&o);
    goto done;
  }
  coll_model_t check = {0}; /* what --calibration will read */
  if (coll_model_load(&check, o.tmp, err, sizeof err)) {
    rc = drv_fail(2, "multiverse calibrate: %s\n", err);
    drv_out_abort(&o);
  } else {
    rc = drv_out_commit(&o, err, sizeof err) ? drv_fail(2, "multiverse calibrate: %s\n", err) : 0;
  }
  coll_model_free(&check);
done:
  for (int i = 0; i < ng; i++) {
    free(gs[i].p);
    json_decref(gs[i].sources);
  }
  free(gs);
  json_decref(root);
  return rc;
}

int drv_calibrate(int argc, char **argv) {
  const char *logs[CAL_MAX_LOGS], *out = NULL, *gpu = NULL;
  int n_logs = 0, kind = -1, oop = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(cal_usage, stdout);
      return 0;
    } else if (strcmp(a, "--out-of-place") == 0) {
      oop = 1;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--gpu") == 0 || strcmp(a, "--collective") == 0) {
      if (i + 1 == argc) return drv_fail(2, "multiverse calibrate: %s needs a value\n", a);
      const char *v = argv[++i];
      if (a[1] == 'o')
        out = v;
      else if (strcmp(a, "--gpu") == 0)
        gpu = v;
      else if ((kind = coll_kind_parse(v)) < 0)
        return drv_fail(2, "multiverse calibrate: --collective %s: unknown collective\n", v);
    } else if (a[0] == '-') {
      return drv_fail(2, "multiverse calibrate: unknown option %s\n%s", a, cal_usage);
    } else if (n_logs == CAL_MAX_LOGS) {
      return drv_fail(2, "multiverse calibrate: more than %d logs\n", CAL_MAX_LOGS);
    } else {
      logs[n_logs++] = a;
    }
  }
  if (!n_logs || !out)
    return drv_fail(2, "multiverse calibrate: needs logs and -o FILE.json\n%s", cal_usage);
  if (gpu && (!*gpu || strlen(gpu) >= COLL_NAME_LEN))
    return drv_fail(2, "multiverse calibrate: --gpu: a name of 1 to %d characters\n",
                    COLL_NAME_LEN - 1);
  if (drv_out_check("calibrate", "-o", out, logs, n_logs)) return 2;
  return cal_run(logs, n_logs, out, gpu, kind, oop);
}

/* `multiverse train`: the training experiments of a job file (base and sweep),
 * built by the training kind (engine/train/trn_exp.h) and run in batches on this
 * process; a line (or a JSON object) per experiment, and optionally a Chrome trace of
 * one of them. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"
#include "driver/drv_jobs.h"
#include "jobs/job_sweep.h"
#include "jobs/job_train.h"

static const char train_usage[] =
    "usage: multiverse train JOB.json [--experiment N] [--trace FILE.json] [--json]\n"
    "                        [--backend cpu|cuda] [--threads N] [--batch-gb GB]\n"
    "                        [--calibration FILE.json]\n"
    "  JOB.json  a job file: base (model, training, cluster, network, or workload) and sweep\n"
    "  --experiment N  run experiment N only (0-based, in the sweep's order)\n"
    "  --trace FILE.json  Chrome/Perfetto trace of experiment N (default 0): a track per\n"
    "            GPU and stream; open it in ui.perfetto.dev\n"
    "  --json    one JSON object per experiment instead of a line\n"
    "  --batch-gb GB  experiments run together while their worlds fit in GB (default 8)\n"
    "  --calibration FILE.json  intra-server collective curves over the presets'\n"
    "prints one line per experiment: status (ok, oom, invalid, failed), iteration time and\n"
    "its split on the GPU that finishes last, memory, throughput, MFU\n";

typedef struct train_args_t {
  const char *job, *trace, *calibration;
  long long only;
  int json, threads;
  double batch_gb;
  eng_backend_t backend;
} train_args_t;

/* 0; 2 after an error; -1 after the help. */
static int train_parse(int argc, char **argv, train_args_t *a) {
  a->only = -1;
  a->batch_gb = 8;
  for (int i = 0; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
      fputs(train_usage, stdout);
      return -1;
    }
    if (strcmp(o, "--json") == 0) {
      a->json = 1;
      continue;
    }
    if (o[0] != '-') {
      if (a->job) return drv_fail(2, "multiverse train: one job file, got %s and %s\n", a->job, o);
      a->job = o;
      continue;
    }
    if (!v) return drv_fail(2, "multiverse train: %s needs a value (multiverse train --help)\n", o);
    long long n = 0;
    i++;
    if (strcmp(o, "--experiment") == 0) {
      if (drv_opt_int("train", o, v, 0, JOB_SWEEP_MAX - 1, &n)) return 2;
      a->only = n;
    } else if (strcmp(o, "--trace") == 0) {
      a->trace = v;
    } else if (strcmp(o, "--calibration") == 0) {
      a->calibration = v;
    } else if (strcmp(o, "--threads") == 0) {
      if (drv_opt_int("train", o, v, 1, 1024, &n)) return 2;
      a->threads = (int)n;
    } else if (strcmp(o, "--batch-gb") == 0) {
      if (drv_opt_real("train", o, v, 0.001, 1e6, "GB", &a->batch_gb)) return 2;
    } else if (strcmp(o, "--backend") == 0) {
      int be;
      if (drv_opt_backend("train", v, 0, &be)) return 2;
      a->backend = (eng_backend_t)be;
    } else {
      return drv_fail(2, "multiverse train: unknown option %s (multiverse train --help)\n", o);
    }
  }
  if (!a->job) return drv_fail(2, "%s", train_usage);
  return 0;
}

/* The folder of a path ("." when it has none), into buf. */
static const char *dir_of(const char *path, char *buf, size_t len) {
  const char *slash = strrchr(path, '/');
  if (!slash) return snprintf(buf, len, "."), buf;
  snprintf(buf, len, "%.*s", (int)(slash - path), path);
  return buf;
}

typedef struct run_t {
  const train_args_t *a;
  const job_sweep_t *sw;
  trn_exp_t *x;   /* (n) */
  uint64_t *ids;  /* (n) */
  int64_t *index; /* (n) experiment number */
  int64_t n;
  int worst;
  double wall;
} run_t;

static void print_json(const run_t *r, int64_t k, const trn_result_t *res, const eng_batch_t *b,
                       int32_t e) {
  json_t *o = json_object(), *sweep = json_object();
  char id[17];
  snprintf(id, sizeof id, "%016llx", (unsigned long long)r->ids[k]);
  json_object_set_new(o, "experiment", json_integer(r->index[k]));
  json_object_set_new(o, "experiment_id", json_string(id));
  json_object_set_new(o, "status", json_string(trn_res_status_name(res->status)));
  if (res->status != TRN_RES_OK)
    json_object_set_new(o, "message", json_string(res->message ? res->message : ""));
  for (int i = 0; i < TRN_RESULT_COUNT; i++) /* what is not known: null */
    json_object_set_new(o, trn_result_name(i),
                        isnan(res->v[i]) ? json_null() : json_real(res->v[i]));
  json_object_set_new(o, "last_gpu", json_integer(res->last_gpu));
  if (b) { /* engine counters for speed studies */
    eng_result_t er;
    eng_exp_result(b, e, &er);
    json_object_set_new(o, "windows", json_integer(er.windows));
  }
  for (int i = 0; i < job_sweep_n_axes(r->sw); i++) {
    json_t *v = job_sweep_value(r->sw, r->index[k], i);
    if (v) json_object_set(sweep, job_sweep_axis(r->sw, i), v);
  }
  json_object_set_new(o, "sweep", sweep);
  json_object_set_new(o, "wall_s", json_real(r->wall));
  char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
  if (s) puts(s);
  free(s);
  json_decref(o);
}

static void print_line(const run_t *r, int64_t k, const trn_result_t *res) {
  const double *v = res->v;
  printf("exp %lld: %s", (long long)r->index[k], trn_res_status_name(res->status));
  if (res->status == TRN_RES_OK) {
    printf(" iteration=%.6gs compute=%.6gs tp=%.4gs pp=%.4gs dp=%.4gs ep=%.4gs bubble=%.4gs",
           v[TRN_R_iteration_time_s], v[TRN_R_compute_s], v[TRN_R_exposed_tp_s],
           v[TRN_R_exposed_pp_s], v[TRN_R_exposed_dp_s], v[TRN_R_exposed_ep_s], v[TRN_R_bubble_s]);
    if (!r->x[k].imported) /* an imported workload has no model: no memory, no MFU */
      printf(" mem=%.2fGB tokens/s=%.6g mfu=%.1f%%", v[TRN_R_peak_memory_bytes] / 1e9,
             v[TRN_R_tokens_per_s], 100 * v[TRN_R_mfu]);
    printf(" gpus=%.0f tasks=%.0f flows=%.0f hops=%.0f wall=%.3fs", v[TRN_R_gpus], v[TRN_R_tasks],
           v[TRN_R_flows], v[TRN_R_packet_hops], r->wall);
  } else if (res->status == TRN_RES_OOM)
    printf(" mem=%.2fGB: %s", v[TRN_R_peak_memory_bytes] / 1e9, res->message);
  if (res->status == TRN_RES_INVALID || res->status == TRN_RES_FAILED) {
    fputs(": ", stdout); /* one problem per line, the later ones indented */
    for (const char *m = res->message ? res->message : ""; *m; m++)
      if (*m == '\n')
        fputs("\n    ", stdout);
      else
        putchar(*m);
  }
  putchar('\n');
}

static void report(run_t *r, int64_t k, const eng_batch_t *b, int32_t e) {
  trn_result_t res;
  trn_exp_results(&r->x[k], b, e, &res);
  if (res.status == TRN_RES_INVALID || res.status == TRN_RES_FAILED) r->worst = 1;
  if (r->a->json)
    print_json(r, k, &res, b, e);
  else
    print_line(r, k, &res);
  fflush(stdout);
}

/* Runs experiments [lo, hi) of the list (the runnable ones in one batch). */
static int run_batch(run_t *r, int64_t lo, int64_t hi) {
  eng_exp_desc_t *d = malloc((size_t)(hi - lo + 1) * sizeof *d);
  int32_t *slot = malloc((size_t)(hi - lo + 1) * sizeof *slot);
  eng_batch_t *b = NULL;
  char err[1024];
  int n = 0, rc = 0;
  if (!d || !slot) {
    free(d);
    free(slot);
    return drv_fail(2, "multiverse train: out of memory\n");
  }
  for (int64_t k = lo; k < hi; k++) {
    slot[k - lo] = -1;
    if (r->x[k].status == TRN_EXP_RUN) {
      slot[k - lo] = n;
      d[n++] = trn_exp_desc(&r->x[k]);
    }
  }
  if (n > 0) {
    eng_batch_desc_t bd = {.n_exps = n, .exps = d};
    eng_run_desc_t rd = {.backend = r->a->backend, .threads = r->a->threads};
    double t0 = omp_get_wtime();
    if (eng_batch_create(&bd, &b, err, sizeof err) || eng_batch_run(b, &rd, err, sizeof err)) {
      eng_batch_destroy(b);
      free(d);
      free(slot);
      return drv_fail(2, "multiverse train: %s\n", err);
    }
    r->wall = omp_get_wtime() - t0;
  }
  for (int64_t k = lo; k < hi; k++) {
    report(r, k, slot[k - lo] >= 0 ? b : NULL, slot[k - lo]);
    if (r->a->trace && slot[k - lo] >= 0 && (r->a->only < 0 ? r->index[k] == 0 : 1) &&
        trn_exp_trace(&r->x[k], b, slot[k - lo], r->a->trace, err, sizeof err))
      rc = drv_fail(2, "multiverse train: %s\n", err);
  }
  eng_batch_destroy(b);
  free(d);
  free(slot);
  return rc;
}

/* The experiment's id, as `multiverse run` gives it (job_train_ident). */
static uint64_t exp_id(const job_train_env_t *env, const json_t *exp, const char *base_dir) {
  char *canon = NULL, err[512];
  uint64_t id = 0;
  job_train_ident(env, exp, base_dir, NULL, &canon, &id, err, sizeof err);
  free(canon);
  return id;
}

static int train_run(const train_args_t *a, job_sweep_t *sw) {
  trn_presets_t tp;
  coll_model_t cm = {0};
  job_presets_t ps;
  eng_params_t defaults;
  char err[1024], dir[4096];
  int rc = 2;
  if (trn_presets_load(&tp, NULL, err, sizeof err))
    return drv_fail(2, "multiverse train: %s\n", err);
  if (coll_model_load_default(&cm, NULL, a->calibration, err, sizeof err)) {
    trn_presets_free(&tp);
    return drv_fail(2, "multiverse train: %s\n", err);
  }
  if (drv_load_params(NULL, NULL, 0, &ps, &defaults)) goto out_models;
  trn_exp_env_t env = {
      .coll = &cm, .base_dir = dir_of(a->job, dir, sizeof dir), .max_tasks = drv_graph_max_tasks()};
  job_train_env_t jenv = {.presets = &tp, .network = &ps, .base_dir = env.base_dir};
  int64_t count = job_sweep_count(sw), lo = a->only >= 0 ? a->only : 0;
  int64_t hi = a->only >= 0 ? a->only + 1 : count;
  if (a->only >= count) {
    rc = drv_fail(2, "multiverse train: %s: --experiment %lld: the job has %lld experiments\n",
                  a->job, a->only, (long long)count);
    goto out_models;
  }
  run_t r = {.a = a, .sw = sw, .n = hi - lo};
  r.x = calloc((size_t)r.n, sizeof *r.x);
  r.ids = malloc((size_t)r.n * sizeof *r.ids);
  r.index = malloc((size_t)r.n * sizeof *r.index);
  if (!r.x || !r.ids || !r.index) {
    rc = drv_fail(2, "multiverse train: out of memory\n");
    goto out;
  }
  int64_t budget = (int64_t)(a->batch_gb * 1e9), first = 0, used = 0;
  rc = 0;
  for (int64_t k = 0; k < r.n && rc == 0; k++) {
    int64_t i = lo + k;
    json_t *exp = job_sweep_experiment(sw, i);
    char where[600];
    r.index[k] = i;
    if (job_sweep_kind(exp) != JOB_SWEEP_TRAINING) {
      json_decref(exp);
      rc = drv_fail(2,
                    "multiverse train: %s: experiment %lld is a network experiment (multiverse "
                    "net runs those)\n",
                    a->job, (long long)i);
      break;
    }
    snprintf(where, sizeof where, "%s: experiments[%lld]", a->job, (long long)i);
    r.ids[k] = exp_id(&jenv, exp, env.base_dir);
    if (job_train_build(&jenv, &env, exp, where, r.ids[k], &r.x[k])) {
      json_decref(exp);
      rc = drv_fail(2, "multiverse train: out of memory building experiment %lld\n", (long long)i);
      break;
    }
    json_decref(exp);
    int64_t mem = 0;
    if (r.x[k].status == TRN_EXP_RUN) {
      eng_exp_desc_t d = trn_exp_desc(&r.x[k]);
      mem = eng_exp_memory(&d);
    }
    if (k > first && used + mem > budget) { /* run what is gathered, then free it */
      rc = run_batch(&r, first, k);
      for (int64_t j = first; j < k; j++)
        trn_exp_free(&r.x[j]);
      first = k;
      used = 0;
    }
    used += mem;
  }
  if (rc == 0 && first < r.n) rc = run_batch(&r, first, r.n);
  if (rc == 0) rc = r.worst;
out:
  for (int64_t k = 0; r.x && k < r.n; k++)
    trn_exp_free(&r.x[k]);
  free(r.x);
  free(r.ids);
  free(r.index);
out_models:
  coll_model_free(&cm);
  trn_presets_free(&tp);
  return rc;
}

int drv_train(int argc, char **argv) {
  train_args_t a = {0};
  int rc = train_parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  job_sweep_t *sw = NULL;
  job_sweep_errs_t errs = {0};
  if (job_sweep_load(a.job, &sw, &errs)) {
    fputs(errs.text ? errs.text : "multiverse train: cannot read the job file\n", stderr);
    job_sweep_errs_free(&errs);
    return 2;
  }
  rc = train_run(&a, sw);
  job_sweep_free(sw);
  return rc;
}

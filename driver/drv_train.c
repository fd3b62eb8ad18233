/* `multiverse train`: the training experiments of a job file (base and sweep),
 * built by the training kind (engine/train/trn_exp.h) and run in batches on this
 * process; a line (or a JSON object) per experiment, and optionally a Chrome trace of
 * one of them. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base_units.h"
#include "driver/drv.h"
#include "driver/drv_jobs.h"
#include "driver/drv_run.h"
#include "jobs/job_sweep.h"
#include "jobs/job_train.h"

static const char train_usage[] =
    "usage: multiverse train JOB.json [--experiment N] [--trace FILE.json] [--json]\n"
    "                        [--backend cpu|cuda] [--threads N] [--batch-gb GB]\n"
    "                        [--calibration FILE.json] [--results FILE.nc] [--run-dir DIR]\n"
    "  JOB.json  a job file: base (model, training, cluster, network, or workload) and sweep\n"
    "  --experiment N  run experiment N only (0-based, in the sweep's order)\n"
    "  --trace FILE.json  Chrome/Perfetto trace of experiment N (default 0): a track per\n"
    "            GPU and stream; open it in ui.perfetto.dev\n"
    "  --json    one JSON object per experiment instead of a line\n"
    "  --batch-gb GB  experiments run together while their worlds fit in GB (default 8)\n"
    "  --calibration FILE.json  intra-server collective curves over the presets'\n"
    "  --results FILE.nc  every experiment's row in a NetCDF file; its run folder (FILE.run,\n"
    "            or --run-dir DIR) keeps the finished batches: rerunning continues there\n"
    "prints one line per experiment: status (ok, oom, invalid, failed), iteration time and\n"
    "its split on the GPU that finishes last, memory, throughput, MFU\n";

typedef struct train_args_t {
  drv_pipe_t *pipe; /* its options: --run-dir, --results, --memory, --max-batch, --grace */
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
      int used = drv_pipe_opt(a->pipe, o, v);
      if (used == 2) return 2;
      if (!used)
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

typedef struct train_t {
  train_args_t a;
  job_sweep_t *sw;
  int64_t trace_exp; /* the experiment the trace follows; -1: none */
} train_t;

/* Per experiment id: ID.json, its results (and ID.trace.json, the trace). */
static int train_write(void *ctx, const drv_sink_exp_t *ev, char *err, size_t errlen) {
  train_t *t = ctx;
  const trn_exp_t *x = ev->x->own;
  trn_result_t res;
  if (x) {
    trn_exp_results(x, ev->b, ev->e, &res);
  } else { /* not built */
    memset(&res, 0, sizeof res);
    res.status = BASE_FAILED;
    res.last_gpu = -1;
  }
  if (!ev->b && ev->status == ANA_FAILED) { /* its batch could not be made or run */
    res.status = BASE_FAILED;
    res.message = ev->message;
  }
  json_t *o = json_pack("{s:s,s:s,s:i,s:b}", "status", ana_status_name(res.status), "message",
                        res.message ? res.message : "", "last_gpu", res.last_gpu, "imported",
                        x && x->imported);
  json_t *v = json_array();
  for (int i = 0; v && i < TRN_RESULT_COUNT; i++)
    json_array_append_new(v, isnan(res.v[i]) ? json_null() : json_real(res.v[i])); /* unknown */
  if (!o || !v) {
    json_decref(o);
    json_decref(v);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  json_object_set_new(o, "values", v);
  if (ev->b) {
    eng_result_t er;
    eng_exp_result(ev->b, ev->e, &er);
    json_object_set_new(o, "windows", json_integer(er.windows));
  }
  json_object_set_new(o, "wall_s", json_real(ev->wall_s));
  char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
  json_decref(o);
  int rc = text ? drv_sink_text(ev, "json", text, err, errlen) : -1;
  free(text);
  if (rc == 0 && ev->b && x && ev->status == ANA_OK && ev->index == t->trace_exp) {
    drv_out_t f; /* the output rule: whole, then renamed */
    if (drv_sink_open(&f, ev->out_dir, ev->id, "trace.json", err, errlen)) return -1;
    if (trn_exp_trace(x, ev->b, ev->e, f.f)) {
      snprintf(err, errlen, "%s: cannot write: %s", f.path, strerror(errno));
      drv_out_abort(&f);
      return -1;
    }
    rc = drv_out_commit(&f, err, errlen);
  }
  return rc;
}

static void print_json(const train_t *t, int64_t i, uint64_t id, const json_t *s) {
  json_t *o = json_object(), *sweep = json_object();
  char hex[17];
  const char *status = json_string_value(json_object_get(s, "status"));
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)id);
  json_object_set_new(o, "experiment", json_integer(i));
  json_object_set_new(o, "experiment_id", json_string(hex));
  json_object_set(o, "status", json_object_get(s, "status"));
  if (status && strcmp(status, "ok") != 0) json_object_set(o, "message", json_object_get(s, "message"));
  for (int k = 0; k < TRN_RESULT_COUNT; k++)
    json_object_set(o, trn_result_name(k), json_array_get(json_object_get(s, "values"), (size_t)k));
  json_object_set(o, "last_gpu", json_object_get(s, "last_gpu"));
  if (json_object_get(s, "windows")) json_object_set(o, "windows", json_object_get(s, "windows"));
  for (int a = 0; a < job_sweep_n_axes(t->sw); a++) {
    json_t *v = job_sweep_value(t->sw, i, a);
    if (v) json_object_set(sweep, job_sweep_axis(t->sw, a), v);
  }
  json_object_set_new(o, "sweep", sweep);
  json_object_set(o, "wall_s", json_object_get(s, "wall_s"));
  char *line = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
  if (line) puts(line);
  free(line);
  json_decref(o);
}

static void print_line(int64_t i, const json_t *s) {
  const char *status = json_string_value(json_object_get(s, "status"));
  const char *message = json_string_value(json_object_get(s, "message"));
  const json_t *vals = json_object_get(s, "values");
  double v[TRN_RESULT_COUNT], wall = json_number_value(json_object_get(s, "wall_s"));
  for (int k = 0; k < TRN_RESULT_COUNT; k++) { /* null: not known */
    const json_t *x = json_array_get(vals, (size_t)k);
    v[k] = json_is_number(x) ? json_number_value(x) : NAN;
  }
  printf("exp %lld: %s", (long long)i, status);
  if (strcmp(status, "ok") == 0) {
    printf(" iteration=%.6gs compute=%.6gs tp=%.4gs pp=%.4gs dp=%.4gs ep=%.4gs bubble=%.4gs",
           v[TRN_R_iteration_time_s], v[TRN_R_compute_s], v[TRN_R_exposed_tp_s],
           v[TRN_R_exposed_pp_s], v[TRN_R_exposed_dp_s], v[TRN_R_exposed_ep_s], v[TRN_R_bubble_s]);
    if (!json_is_true(json_object_get(s, "imported"))) /* no model: no memory, no MFU */
      printf(" mem=%.2fGB tokens/s=%.6g mfu=%.1f%%", v[TRN_R_peak_memory_bytes] / BASE_BYTES_PER_GB,
             v[TRN_R_tokens_per_s], 100 * v[TRN_R_mfu]);
    printf(" gpus=%.0f tasks=%.0f flows=%.0f hops=%.0f wall=%.3fs", v[TRN_R_gpus], v[TRN_R_tasks],
           v[TRN_R_flows], v[TRN_R_packet_hops], wall);
  } else if (strcmp(status, "oom") == 0) {
    printf(" mem=%.2fGB: %s", v[TRN_R_peak_memory_bytes] / BASE_BYTES_PER_GB, message);
  } else {
    fputs(": ", stdout); /* one problem per line, the later ones indented */
    for (const char *m = message ? message : ""; *m; m++)
      if (*m == '\n')
        fputs("\n    ", stdout);
      else
        putchar(*m);
  }
  putchar('\n');
}

/* Rank 0 at the end: a line (or JSON object) per experiment, in the job's
 * order; the trace. */
static int train_finish(void *ctx, const drv_end_t *end) {
  train_t *t = ctx;
  const drv_job_t *j = end->job;
  char out[4300], path[4300];
  int rc = 0;
  int64_t shown = 0, asked = 0;
  if (end->stopped >= DRV_STOP_ERROR) return end->status;
  snprintf(out, sizeof out, "%s/out", end->run_dir);
  for (int64_t i = 0; i < j->count && rc < 2; i++) {
    if (t->a.only >= 0 && i != t->a.only) continue;
    asked++;
    drv_sink_path(path, sizeof path, out, j->id[i], "json");
    if (end->stopped && access(path, R_OK) != 0) continue; /* it did not finish */
    shown++;
    json_t *s = json_load_file(path, 0, NULL);
    if (!s) {
      rc = drv_fail(2, "multiverse train: cannot read %s\n", path);
      break;
    }
    if (t->a.json)
      print_json(t, i, j->id[i], s);
    else
      print_line(i, s);
    json_decref(s);
  }
  fflush(stdout);
  if (end->stopped) { /* SIGINT, SIGTERM: said (the exit status alone said nothing) */
    drv_fail(0,
             "multiverse train: stopped by %s: %lld of %lld experiments finished (printed "
             "above)%s%s%s\n",
             end->stopped == SIGTERM ? "SIGTERM" : end->stopped == SIGINT ? "SIGINT" : "a signal",
             (long long)shown, (long long)asked,
             t->a.pipe->temp_run_dir ? "" : "; rerun the same command to continue in ",
             t->a.pipe->temp_run_dir ? "" : end->run_dir, "");
    return end->status;
  }
  if (rc < 2 && t->a.trace && t->trace_exp >= 0) {
    drv_sink_path(path, sizeof path, out, j->id[t->trace_exp], "trace.json");
    if (access(path, R_OK) == 0) {
      if (drv_sink_copy("train", out, j->id[t->trace_exp], "trace.json", t->a.trace)) rc = 2;
    } else { /* oom, invalid, failed: no schedule (nothing said so before) */
      json_t *s = json_load_file((drv_sink_path(path, sizeof path, out, j->id[t->trace_exp], "json"),
                                  path), 0, NULL);
      const char *st = json_string_value(json_object_get(s, "status"));
      drv_fail(0, "multiverse train: --trace %s: experiment %lld is %s: no schedule to trace, "
                  "nothing written\n",
               t->a.trace, (long long)t->trace_exp, st ? st : "not run");
      json_decref(s);
      if (rc < 1) rc = 1;
    }
  }
  return rc > end->status ? rc : end->status;
}

/* --trace by the output rule, before anything runs: never a device, folder or
 * pipe, never the job file, the calibration or a file the traced experiment
 * reads. 0 or 2. */
static int trace_check(const train_args_t *a, const job_sweep_t *sw) {
  enum { MAX_INPUTS = 256 };
  char *in[MAX_INPUTS], dir[4096];
  int n = 0;
  int64_t count = job_sweep_count(sw);
  in[n++] = strdup(a->job);
  if (a->calibration) in[n++] = strdup(a->calibration);
  json_t *exp = job_sweep_experiment(sw, a->only >= 0 && a->only < count ? a->only : 0);
  drv_out_json_inputs(exp, dir_of(a->job, dir, sizeof dir), in, &n, MAX_INPUTS);
  json_decref(exp);
  int rc = drv_out_check("train", "--trace", a->trace, (const char *const *)in, n);
  for (int i = 0; i < n; i++)
    free(in[i]);
  return rc;
}

int drv_train(int argc, char **argv) {
  static train_t t;
  static drv_pipe_t p = {.cmd = "train"};
  char dir[4096];
  train_args_t *a = &t.a;
  a->pipe = &p;
  drv_quiet = drv_launcher_rank() > 0; /* one copy of each message under mpirun */
  int rc = train_parse(argc, argv, a);
  if (rc) return rc < 0 ? 0 : rc;
  job_sweep_errs_t errs = {0};
  if (job_sweep_load(a->job, &t.sw, &errs)) {
    fputs(errs.text ? errs.text : "multiverse train: cannot read the job file\n", stderr);
    job_sweep_errs_free(&errs);
    return 2;
  }
  int64_t count = job_sweep_count(t.sw);
  if (a->only >= count) {
    rc = drv_fail(2, "multiverse train: %s: --experiment %lld: the job has %lld experiments\n",
                  a->job, a->only, (long long)count);
    goto done;
  }
  for (int64_t i = 0; i < count; i++) {
    json_t *exp = job_sweep_experiment(t.sw, i);
    int net = exp && strcmp(job_sweep_kind_name(exp), "training") != 0;
    json_decref(exp);
    if (net) {
      rc = drv_fail(2,
                    "multiverse train: %s: experiment %lld is a network experiment (multiverse "
                    "net runs those)\n",
                    a->job, (long long)i);
      goto done;
    }
  }
  if (a->trace && trace_check(a, t.sw)) {
    rc = 2;
    goto done;
  }
  t.trace_exp = a->trace ? (a->only >= 0 ? a->only : 0) : -1;
  p.o.job = a->job;
  p.o.backend = a->backend;
  p.o.threads = a->threads;
  p.o.calibration = a->calibration;
  p.o.memory_gb = a->batch_gb / 1.073741824; /* GB to GiB */
  p.o.has_only = a->only >= 0;
  p.o.only = a->only;
  p.job_dir = dir_of(a->job, dir, sizeof dir);
  if ((rc = drv_pipe_front(&p))) goto done;
  p.sink = (drv_sink_t){.ctx = &t, .write = train_write};
  p.finish = train_finish;
  p.finish_ctx = &t;
  drv_quiet = 0;
  rc = drv_pipe_run(&p, argc, argv);
done:
  job_sweep_free(t.sw);
  return rc;
}

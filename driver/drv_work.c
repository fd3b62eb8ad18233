/* driver: one batch of a run: its experiments built through their kind, run
 * by the engine as one batch (halved while the device runs out of memory),
 * their rows, and what the command's sink writes of each; on a thread of its own, so that the
 * rank's main thread keeps serving MPI, progress and signals meanwhile. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "driver/drv_run.h"
#include "sim/eng_num.h"

/* What the command's sink writes of experiment k (b NULL: it did not run); 0,
 * or -1 with a message. Safe on several threads at once, each its own k. */
static int work_sink(const drv_work_t *w, drv_exp_t *xs, int32_t k, ana_status_t st,
                     const char *msg, const ana_value_t *values, const eng_batch_t *b, int32_t e,
                     double wall, char *err, size_t errlen) {
  if (!w->sink || !w->sink->write) return 0;
  drv_sink_exp_t ev = {.index = w->index[k],
                       .id = w->id[k],
                       .x = &xs[k],
                       .b = b,
                       .e = e,
                       .status = st,
                       .message = msg,
                       .values = values,
                       .wall_s = wall,
                       .batch = w->batch,
                       .backend = w->run.backend,
                       .out_dir = w->out_dir};
  return w->sink->write(w->sink->ctx, &ev, err, errlen);
}

/* The row of experiment k (values NULL: none); with sink_done 0, the
 * command's sink's view of it too (b NULL: it did not run). */
static void work_row(drv_work_t *w, drv_exp_t *xs, int32_t k, ana_status_t st, const char *msg,
                     const ana_value_t *values, const eng_batch_t *b, int32_t e, double wall,
                     int sink_done) {
  char id[17];
  drv_id_text(w->id[k], id);
  ana_value_t *miss = NULL;
  if (!values) {
    miss = calloc((size_t)w->kind->n_cols + 1, sizeof *miss);
    if (!miss) abort();
    drv_missing_values(w->kind, miss);
  }
  ana_table_append(w->rows, &(ana_row_t){.index = w->index[k],
                                         .id = id,
                                         .status = st,
                                         .message = msg,
                                         .config = w->canon[k],
                                         .values = values ? values : miss});
  w->not_ok += st != ANA_OK;
  char err[1024];
  if (!sink_done && !w->sink_error[0] &&
      work_sink(w, xs, k, st, msg, values ? values : miss, b, e, wall, err, sizeof err))
    snprintf(w->sink_error, sizeof w->sink_error, "%s", err);
  free(miss);
}

static ana_status_t work_status(const eng_result_t *r, const char **msg) {
  *msg = eng_result_reason(r);
  return r->status == ENG_OK          ? ANA_OK
         : r->status == ENG_TIMED_OUT ? ANA_TIMED_OUT
         : r->status == ENG_INVALID   ? ANA_INVALID
                                      : ANA_FAILED;
}

/* The results of a batch that ran, experiments which[0..n) of xs as places
 * 0..n-1 of b: each one's values and the sink's files on the worker's host
 * threads (2,048 small experiments: 0.77 s on one thread, 0.18 s on 16),
 * then the rows in order. The sink's first error in that order is the one
 * kept, as when they were written one after the other. */
static void work_results(drv_work_t *w, drv_exp_t *xs, const int32_t *which, int32_t n,
                         const eng_batch_t *b, double wall) {
  const int32_t nc = w->kind->n_cols;
  ana_value_t *vals = calloc((size_t)n * (size_t)nc + 1, sizeof *vals);
  ana_status_t *st = malloc(((size_t)n + 1) * sizeof *st);
  const char **msg = malloc(((size_t)n + 1) * sizeof *msg);
  char(*err)[1024] = calloc((size_t)n + 1, sizeof *err);
  int *bad = calloc((size_t)n + 1, sizeof *bad);
  if (!vals || !st || !msg || !err || !bad) abort();
  int threads = w->host_threads > 0 ? w->host_threads : 1;
  if (threads > n) threads = n;
  struct rusage u0, u1;
  getrusage(RUSAGE_SELF, &u0);
  const double t0 = omp_get_wtime();
  double t_vals = 0, t_sink = 0; /* thread-seconds */
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads) reduction(+ : t_vals, t_sink)
  for (int32_t e = 0; e < n; e++) {
    const int32_t k = which[e];
    const double q0 = omp_get_wtime();
    eng_result_t r;
    eng_exp_result(b, e, &r);
    st[e] = work_status(&r, &msg[e]);
    ana_value_t *v = &vals[(size_t)e * (size_t)nc];
    if (st[e] != ANA_INVALID)
      w->kind->results(w->k, &xs[k], b, e, v);
    else
      drv_missing_values(w->kind, v);
    const double q1 = omp_get_wtime();
    bad[e] = work_sink(w, xs, k, st[e], msg[e], v, b, e, wall, err[e], sizeof err[e]);
    t_vals += q1 - q0;
    t_sink += omp_get_wtime() - q1;
  }
  getrusage(RUSAGE_SELF, &u1);
  if (eng_env_flag("MULTIVERSE_VERBOSE")) /* the benchmarks read it */
    fprintf(stderr,
            "results: %d experiments on %d threads in %.3f s (thread-seconds: values %.3f, "
            "sink %.3f); the process's page faults meanwhile %ld\n",
            n, threads, omp_get_wtime() - t0, t_vals, t_sink, u1.ru_minflt - u0.ru_minflt);
  for (int32_t e = 0; e < n; e++) {
    work_row(w, xs, which[e], st[e], msg[e], st[e] != ANA_INVALID ? &vals[(size_t)e * nc] : NULL, b,
             e, wall, 1);
    if (bad[e] && !w->sink_error[0]) snprintf(w->sink_error, sizeof w->sink_error, "%s", err[e]);
  }
  free(vals);
  free(st);
  free(msg);
  free(err);
  free(bad);
}

/* Runs experiments which[0..n) of xs as one engine batch; halves it while the
 * device has too little memory. */
static void work_group(drv_work_t *w, drv_exp_t *xs, const int32_t *which, int32_t n) {
  char err[1024];
  eng_exp_desc_t *d = malloc(((size_t)n + 1) * sizeof *d);
  if (!d) abort();
  for (int32_t e = 0; e < n; e++)
    d[e] = xs[which[e]].desc;
  eng_batch_t *b = NULL;
  double t0 = 0, wall = 0; /* s: the batch's run */
  const double tc = omp_get_wtime();
  int rc = eng_batch_create(&(eng_batch_desc_t){n, d, w->host_threads}, &b, err, sizeof err);
  const int verbose = eng_env_flag("MULTIVERSE_VERBOSE"); /* the benchmarks read it */
  if (!rc && verbose)
    fprintf(stderr, "world: %lld bytes, %.0f per experiment, built in %.3f s\n",
            (long long)eng_batch_bytes(b), (double)eng_batch_bytes(b) / n, omp_get_wtime() - tc);
  if (!rc) {
    t0 = omp_get_wtime();
    rc = eng_batch_run(b, &w->run, err, sizeof err);
    wall = omp_get_wtime() - t0;
  }
  if (b && eng_batch_threads(b) > w->threads) w->threads = eng_batch_threads(b);
  free(d);
  if ((rc == ENG_E_NOMEM || rc == ENG_E_TOO_BIG) && n > 1) {
    eng_batch_destroy(b);
    w->splits++;
    work_group(w, xs, which, n / 2);
    work_group(w, xs, which + n / 2, n - n / 2);
    return;
  }
  if (rc) {
    for (int32_t e = 0; e < n; e++)
      work_row(w, xs, which[e], ANA_FAILED, err, NULL, NULL, -1, wall, 0);
  } else {
    work_results(w, xs, which, n, b, wall);
  }
  const double td = omp_get_wtime();
  eng_batch_destroy(b);
  if (!rc && verbose)
    fprintf(stderr,
            "batch: %d experiments ran in %.3f s; their results took %.3f s, freeing "
            "the world %.3f s\n",
            n, wall, td - t0 - wall, omp_get_wtime() - td);
}

void drv_work_run(drv_work_t *w) {
  double t0 = omp_get_wtime();
  drv_exp_t *xs = calloc((size_t)w->n + 1, sizeof *xs);
  int32_t *which = malloc(((size_t)w->n + 1) * sizeof *which), m = 0;
  if (!xs || !which) abort();
  w->not_ok = 0;
  w->sink_error[0] = '\0';
  for (int32_t k = 0; k < w->n; k++) {
    char where[4200];
    drv_exp_where(where, sizeof where, w->job_path, w->job_count, w->index[k]);
    drv_exp_build(w->kind, w->k, w->canon[k], w->id[k], where, &xs[k], NULL);
    if (xs[k].status == ANA_OK) {
      if (w->sink && w->sink->prepare) w->sink->prepare(w->sink->ctx, w->index[k], &xs[k]);
      which[m++] = k;
    } else {
      work_row(w, xs, k, xs[k].status, xs[k].message, NULL, NULL, -1, 0, 0);
    }
  }
  if (eng_env_flag("MULTIVERSE_VERBOSE"))
    fprintf(stderr, "batch: %d experiments described in %.3f s\n", w->n, omp_get_wtime() - t0);
  if (m) work_group(w, xs, which, m);
  for (int32_t k = 0; k < w->n; k++)
    drv_exp_release(w->kind, w->k, &xs[k]);
  free(xs);
  free(which);
  w->wall_s = omp_get_wtime() - t0;
}

static void *work_thread(void *arg) {
  drv_work_t *w = arg;
  drv_work_run(w);
  atomic_store(&w->finished, 1);
  if (w->wake) drv_wake_signal(w->wake);
  return NULL;
}

int drv_work_start(drv_work_t *w) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGUSR1);
  sigaddset(&block, SIGINT);
  atomic_store(&w->finished, 0);
  /* The signals go to the main thread: the worker starts with them blocked. */
  pthread_sigmask(SIG_BLOCK, &block, &old);
  int rc = pthread_create(&w->thread, NULL, work_thread, w);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc ? -1 : 0;
}

int drv_work_finished(drv_work_t *w) {
  return atomic_load(&w->finished);
}

void drv_work_join(drv_work_t *w) {
  pthread_join(w->thread, NULL);
}

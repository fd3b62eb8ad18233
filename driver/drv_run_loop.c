/* driver: each rank's part of `multiverse run`: batches taken from the shared
 * counter (largest first) and run on a worker thread while the main thread
 * serves MPI, progress (rank 0) and signals; each finished batch's rows go to
 * the rank's shard at once. A stop (a signal to any rank, or an error) ends
 * every rank's loop; the batch in hand finishes within --grace or is
 * abandoned. Then rank 0 merges. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver/drv.h"
#include "driver/drv_run.h"

#define POLL_S 0.02      /* s between looks at the worker */
#define STOP_EVERY_S 0.2 /* s between looks at the stop counter */

typedef struct loop_t {
  drv_run_t *r;
  char out_dir[4200]; /* RUNDIR/out, the sinks' */
  drv_win_t win;
  drv_shard_t shard;
  drv_progress_t pg;
  FILE *log;
  int64_t stop;       /* the stop counter as last seen */
  double last_stop_s; /* when it was read */
} loop_t;

static void nap(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL); /* a signal ends it early: fine */
}

static void say(loop_t *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line in this rank's log, with the time since the run started. */
static void say(loop_t *l, const char *fmt, ...) {
  if (!l->log) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(l->log, "%9.3f ", omp_get_wtime() - l->pg.t0);
  vfprintf(l->log, fmt, ap);
  va_end(ap);
  fflush(l->log);
}

/* Asks every rank to stop (an error wins over a signal). */
static void ask_stop(loop_t *l, int64_t why) {
  drv_win_raise(&l->win, DRV_SLOT_STOP, why);
  if (why > l->stop) l->stop = why;
}

/* Serves signals, the stop counter and rank 0's progress; returns the stop. */
static int64_t serve(loop_t *l, int force) {
  double now = omp_get_wtime();
  if (drv_stop_signal && !l->stop) {
    say(l, "signal %d: stopping\n", (int)drv_stop_signal);
    ask_stop(l, drv_stop_signal);
  }
  if (force || now - l->last_stop_s >= STOP_EVERY_S) {
    int64_t s = drv_win_add(&l->win, DRV_SLOT_STOP, 0);
    if (s > l->stop) l->stop = s;
    l->last_stop_s = now;
    if (l->r->rank == 0)
      drv_progress_show(&l->pg, drv_win_add(&l->win, DRV_SLOT_DONE, 0),
                        drv_win_add(&l->win, DRV_SLOT_NOT_OK, 0), "running", 0);
    /* the rank's log and progress.json keep going; the terminal only for `run` */
  }
  return l->stop;
}

/* Adds a finished batch's rows to the shard and writes it; counts them. */
static void keep_rows(loop_t *l, ana_table_t *rows, int64_t not_ok) {
  char err[1024];
  const char *cmd = l->r->pipe->cmd;
  int64_t n = ana_table_n_rows(rows);
  for (int64_t k = 0; k < n; k++) {
    ana_row_t row = ana_table_row(rows, k);
    ana_value_t *v = calloc((size_t)l->r->kind->n_cols + 1, sizeof *v);
    if (!v) DRV_ABORT("out of memory");
    for (int c = 0; c < l->r->kind->n_cols; c++)
      v[c] = ana_table_value(rows, k, c);
    row.values = v;
    drv_shard_add(&l->shard, &row);
    free(v);
  }
  if (drv_shard_flush(&l->shard, err, sizeof err)) {
    fprintf(stderr, "multiverse %s: rank %d: %s\n", cmd, l->r->rank, err);
    say(l, "cannot write the shard: %s\n", err);
    ask_stop(l, DRV_STOP_ERROR);
    return;
  }
  drv_win_add(&l->win, DRV_SLOT_DONE, n);
  drv_win_add(&l->win, DRV_SLOT_NOT_OK, not_ok);
}

/* Starts batch k on a worker thread. */
static drv_work_t *start_batch(loop_t *l, int32_t k) {
  drv_run_t *r = l->r;
  int32_t n = r->batch_n[k], *pos = &r->members[r->batch_first[k]];
  int64_t *index = malloc(((size_t)n + 1) * sizeof *index);
  uint64_t *id = malloc(((size_t)n + 1) * sizeof *id);
  char **canon = malloc(((size_t)n + 1) * sizeof *canon);
  drv_work_t *w = calloc(1, sizeof *w);
  char err[1024];
  if (!index || !id || !canon || !w) DRV_ABORT("out of memory");
  for (int32_t m = 0; m < n; m++) {
    index[m] = r->index[pos[m]];
    id[m] = r->id[pos[m]];
    canon[m] = r->canon[pos[m]];
  }
  *w = (drv_work_t){.kind = r->kind,
                    .k = r->k,
                    .batch = k,
                    .n = n,
                    .index = index,
                    .id = id,
                    .canon = canon,
                    /* threads as the batch merits, at most the rank's cores (a
                     * one-experiment batch on 2 threads spun 10-90x slower on a
                     * loaded box); --threads: exactly */
                    .run = {r->m.backend, r->o.threads, r->m.threads},
                    .job_path = r->job_path,
                    .job_count = r->total,
                    .sink = &r->pipe->sink,
                    .out_dir = l->out_dir,
                    .rows = ana_table_create(r->kind->cols, r->kind->n_cols, err, sizeof err)};
  if (!w->rows || drv_work_start(w)) DRV_ABORT("cannot start a batch's thread");
  say(l, "batch %d: %d experiments\n", k, n);
  return w;
}

/* Waits for a batch, serving meanwhile; 1 if it was abandoned after a stop
 * (its thread runs on until the process ends), else 0 (joined). */
static int wait_batch(loop_t *l, drv_work_t *w) {
  double stopped_at = -1;
  while (!drv_work_finished(w)) {
    nap(POLL_S);
    if (serve(l, 0) && stopped_at < 0) stopped_at = omp_get_wtime();
    if (stopped_at >= 0 && omp_get_wtime() - stopped_at >= l->r->o.grace_s) {
      say(l, "batch %d abandoned (stop %lld)\n", w->batch, (long long)l->stop);
      return 1;
    }
  }
  drv_work_join(w);
  return 0;
}

/* Keeps a finished batch's rows and frees it. */
static void end_batch(loop_t *l, drv_work_t *w) {
  keep_rows(l, w->rows, w->not_ok);
  if (w->sink_error[0]) {
    fprintf(stderr, "multiverse %s: rank %d: %s\n", l->r->pipe->cmd, l->r->rank, w->sink_error);
    say(l, "cannot write the outputs: %s\n", w->sink_error);
    ask_stop(l, DRV_STOP_ERROR);
  }
  say(l,
      "batch %d: done in %.3f s, %d experiments (%lld not ok), %.3g packet-hops (estimate), %d "
      "CPU threads%s\n",
      w->batch, w->wall_s, w->n, (long long)w->not_ok, w->hops, w->threads,
      w->splits ? ", halved for device memory" : "");
  ana_table_free(w->rows);
  free((void *)w->index);
  free((void *)w->id);
  free((void *)w->canon);
  free(w);
}

/* The next batch from the shared counter, unless stopping; NULL when none. */
static drv_work_t *next_batch(loop_t *l) {
  if (serve(l, 1)) return NULL;
  int64_t k = drv_win_add(&l->win, DRV_SLOT_NEXT, 1);
  return k < l->r->n_batches ? start_batch(l, (int32_t)k) : NULL;
}

/* Batches until none are left or a stop; the next one starts before the
 * last one's rows are written, so writing overlaps computing. 1 if a batch
 * was abandoned. */
static int work(loop_t *l) {
  drv_work_t *w = next_batch(l);
  while (w) {
    if (wait_batch(l, w)) return 1;
    drv_work_t *next = next_batch(l);
    end_batch(l, w);
    w = next;
  }
  return 0;
}

/* Rank 0's rows of experiments that cannot run, written before the work. */
static void plan_rows(loop_t *l) {
  drv_run_t *r = l->r;
  const drv_plan_t *p = &r->plan;
  const drv_sink_t *sink = &r->pipe->sink;
  ana_table_t *t = ana_table_create(r->kind->cols, r->kind->n_cols, NULL, 0);
  ana_value_t *v = calloc((size_t)r->kind->n_cols + 1, sizeof *v);
  if (!t || !v) DRV_ABORT("out of memory");
  drv_missing_values(r->kind, v);
  for (int64_t k = 0; k < p->n_rows; k++) {
    char id[17], where[4200], err[1024];
    int64_t i = p->row_index[k];
    drv_id_text(r->job.id[i], id);
    if (sink->write) { /* the command's outputs of a row without a batch: built for them */
      drv_exp_t x;
      drv_exp_where(where, sizeof where, r->job_path, r->total, i);
      drv_exp_build(r->kind, r->k, r->job.canon[i], r->job.id[i], where, &x, NULL);
      drv_sink_exp_t ev = {.index = i,
                           .id = r->job.id[i],
                           .x = &x,
                           .e = -1,
                           .status = p->row_status[k],
                           .message = p->row_message[k],
                           .values = v,
                           .batch = -1,
                           .backend = r->m.backend,
                           .out_dir = l->out_dir};
      if (sink->write(sink->ctx, &ev, err, sizeof err)) {
        fprintf(stderr, "multiverse %s: %s\n", r->pipe->cmd, err);
        ask_stop(l, DRV_STOP_ERROR);
      }
      r->kind->release(r->k, &x);
    }
    ana_table_append(t, &(ana_row_t){.index = i,
                                     .id = id,
                                     .status = p->row_status[k],
                                     .message = p->row_message[k],
                                     .config = r->job.canon[i],
                                     .values = v});
  }
  if (p->n_rows) keep_rows(l, t, p->n_rows);
  ana_table_free(t);
  free(v);
}

static void loop_begin(loop_t *l) {
  drv_run_t *r = l->r;
  char err[1024], path[4200];
  drv_win_open(&l->win);
  snprintf(l->out_dir, sizeof l->out_dir, "%s/out", r->run_dir);
  l->pg = (drv_progress_t){.job = r->job_path,
                           .run_dir = r->run_dir,
                           .ranks = r->size,
                           .total = r->total,
                           .distinct = r->distinct,
                           .skipped = r->skipped,
                           .to_run = r->to_run,
                           .every_s = r->o.every_s,
                           .quiet = r->pipe->quiet};
  drv_progress_begin(&l->pg);
  snprintf(path, sizeof path, "%s/logs/a%04d-r%06d.log", r->run_dir, r->attempt, r->rank);
  l->log = fopen(path, "w");
  ana_prov_t prov = {.title = r->name,
                     .job_file = r->job_path,
                     .backend = drv_backend_name(r->m.backend),
                     .gpu = r->m.gpu};
  if (drv_shard_open(&l->shard, r->run_dir, r->attempt, r->rank, r->kind, &prov, err, sizeof err))
    DRV_ABORT(err);
  say(l, "rank %d of %d (local %d of %d): %s, %s%d threads, %.3g GiB per batch%s%s\n", r->rank,
      r->size, r->local_rank, r->local_size, drv_backend_name(r->m.backend),
      r->o.threads ? "" : "up to ", r->m.threads ? r->m.threads : omp_get_max_threads(),
      (double)r->m.mem_budget / 1073741824.0, r->m.gpu[0] ? ", " : "", r->m.gpu);
  say(l, "before the batches: %.3f s of MPI and machine set-up, %.3f s of plan\n", r->setup_s,
      r->plan_s);
  if (r->rank == 0) plan_rows(l);
}

int drv_run_loop(drv_run_t *r, int *merged, int *abandoned) {
  loop_t l = {.r = r};
  loop_begin(&l);
  *abandoned = work(&l);
  drv_ibarrier_t all;
  drv_ibarrier_start(&all);
  while (!drv_ibarrier_done(&all)) {
    serve(&l, 0);
    nap(POLL_S);
  }
  serve(&l, 1);
  int64_t stop = l.stop, n_done = drv_win_add(&l.win, DRV_SLOT_DONE, 0);
  int64_t not_ok = drv_win_add(&l.win, DRV_SLOT_NOT_OK, 0);
  drv_all_barrier(); /* every rank has read the counters */
  drv_win_close(&l.win);
  drv_shard_close(&l.shard);
  say(&l, "leaving: stop %lld, %lld experiments done by every rank\n", (long long)stop,
      (long long)n_done);
  int rc = 0;
  if (r->rank == 0) {
    drv_progress_show(&l.pg, n_done, not_ok, stop ? "stopped" : "done", 1);
    const char *results = r->pipe->results;
    if (!stop && !(results && !*results)) {
      double t = omp_get_wtime();
      rc = drv_merge_dir(r->run_dir, results, r->o.has_only, r->pipe->quiet ? NULL : stdout);
      say(&l, "merged the shards in %.3f s\n", omp_get_wtime() - t);
    }
    fflush(stdout);
  }
  if (l.log) fclose(l.log);
  drv_bcast_int(&rc);
  *merged = rc;
  r->n_done = n_done;
  return (int)stop;
}

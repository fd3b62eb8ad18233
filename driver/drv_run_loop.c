/* driver: each rank's part of the pipeline (`run`, and `net`, `train`,
 * `collective` through it). The rank's workers (its GPU,
 * its share of the node's cores, or both) each run one batch at a time on a
 * thread of its own while the main thread serves MPI, progress (rank 0) and
 * signals. When a worker is free the main thread looks at the plan of the
 * work left (shd_sched: every rank's workers with what they hold, the cost
 * model refitted from every batch measured so far), takes from the flags on
 * rank 0 the batch the plan gives that worker, and starts it; a finished
 * batch's rows go to the rank's shard at once, its measured seconds to every
 * rank's cost model. A stop (a signal to any rank, or an error) ends every
 * rank's loop; the batches in hand finish within --grace or are abandoned.
 * Then rank 0 merges and writes the costs file. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/base_units.h"
#include "driver/drv.h"
#include "driver/drv_run.h"

#define POLL_S 0.02      /* s between looks at MPI and progress (a batch's end wakes it) */
#define STOP_EVERY_S 0.2 /* s between looks at the stop counter */
#define LOOK_S 0.5       /* s between looks at the plan while a worker waits */
#define ETA_S 1.0        /* s between rank 0's plans of the rest (progress) */
#define REC_CAP 8192     /* records a rank publishes (later ones stay its own) */

/* A measured batch as ranks exchange it. */
typedef struct rec_t {
  int32_t name, key;
  shd_rec_t r;
} rec_t;

/* One of this rank's workers. */
typedef struct local_t {
  int32_t g;     /* its index among every rank's workers */
  drv_work_t *w; /* the batch in hand, or NULL */
  int done;      /* every experiment is taken: nothing more for it */
  double start;  /* s: when its batch began */
  int32_t ended; /* experiments of it ended, as published */
  double *ends;  /* (n) a CPU batch's members' ends by the model, ascending
                  * (shd_member_ends); NULL: a GPU's */
} local_t;

typedef struct loop_t {
  drv_run_t *r;
  char out_dir[4200]; /* RUNDIR/out, the sinks' */
  drv_win_t win;
  drv_shard_t shard;
  drv_progress_t pg;
  FILE *log;
  int64_t stop;       /* the stop counter as last seen */
  double last_stop_s; /* when it was read */
  double t0;          /* omp_get_wtime() when every rank began (after a barrier) */
  double last_look, last_eta;
  int look; /* something changed: look at the plan again now */
  int n_local;
  local_t local[DRV_MAX_WORKERS];
  int64_t n_counters;
  int64_t *counters;
  int32_t *flags, *pick, *old;
  uint8_t *taken;
  int64_t *seen;     /* (ranks) records read of each rank */
  int64_t published; /* records this rank published */
  int64_t partial;   /* what this rank added to DRV_SLOT_PARTIAL */
  int64_t batches;   /* rank 0: DRV_SLOT_BATCHES at the last estimate line */
  int64_t step;      /* rank 0: twentieths of the experiments done at that line */
  drv_wake_t *wake;  /* the workers' batches signal their ends (on the heap:
                      * a batch abandoned at a stop signals it after the
                      * loop has returned, during MPI_Finalize) */
} loop_t;

static void nap(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL); /* a signal ends it early: fine */
}

static double now_s(const loop_t *l) {
  return omp_get_wtime() - l->t0;
}

static void say(loop_t *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line in this rank's log, with the time since the run started. */
static void say(loop_t *l, const char *fmt, ...) {
  if (!l->log) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(l->log, "%9.3f ", now_s(l));
  vfprintf(l->log, fmt, ap);
  va_end(ap);
  fflush(l->log);
}

/* Counters of worker g: its batch's start (us), estimate (us; 0: idle),
 * experiments, those ended so far, and 1 when the estimate is the batch's
 * own (its ended members against the model's ends for them). */
#define WORKER_SLOTS 5
static int64_t worker_slot(int32_t g) {
  return DRV_SLOTS + WORKER_SLOTS * (int64_t)g;
}

static int64_t count_slot(const loop_t *l, int rank) {
  return DRV_SLOTS + WORKER_SLOTS * (int64_t)l->r->sched.n_workers + rank;
}

/* Asks every rank to stop (an error wins over a signal). */
static void ask_stop(loop_t *l, int64_t why) {
  drv_win_raise(&l->win, DRV_SLOT_STOP, why);
  if (why > l->stop) l->stop = why;
}

/* s a worker still needs after `ran` s of a batch estimated at est s, of
 * which a fraction f of the experiments ended: the estimate less what it
 * ran (once past it, a quarter of what it ran: it overran), moved towards
 * what the rate so far gives as more experiments end. */
static double left_of(double ran, double est, double f) {
  double left = est - ran;
  if (left <= 0) left = 0.25 * ran;
  if (f <= 0) return left;
  if (f > 1) f = 1;
  return (1 - f) * left + f * ran * (1 - f) / f;
}

/* The model of worker g's hardware for cost key k. */
static int32_t model_of(const drv_sched_t *s, int32_t g, int32_t k) {
  return s->cls_name[s->workers[g].cls] * s->n_keys + k;
}

static const double *coef_of(const drv_sched_t *s, int32_t g, int32_t k) {
  return s->coef + (size_t)model_of(s, g, k) * SHD_C_N;
}

/* A batch of experiments pos[0..n) on worker g as the cost model reads it:
 * the sum of their features and the two costliest by its coefficients. */
static shd_rec_t batch_rec(const drv_sched_t *s, int32_t g, const int32_t *pos, int32_t n) {
  shd_rec_t rec = {.n = n, .weight = 1};
  int32_t key = n ? s->key[pos[0]] : 0, slots = s->cls[s->workers[g].cls].slots;
  const double *coef = coef_of(s, g, key);
  double best[2] = {-1, -1};
  for (int32_t m = 0; m < n; m++) {
    const shd_feat_t *f = &s->feat[pos[m]];
    for (int k = 0; k < SHD_F_N; k++)
      rec.sum.x[k] += f->x[k];
    double c = shd_cost_parallel(coef, f);
    if (c > best[0]) {
      best[1] = best[0];
      rec.top[1] = rec.top[0];
      best[0] = c;
      rec.top[0] = *f;
    } else if (c > best[1]) {
      best[1] = c;
      rec.top[1] = *f;
    }
  }
  /* A CPU batch uses a thread per experiment up to its threads (the engine
   * sizes them by the work). */
  if (s->worker_backend[g] == ENG_BACKEND_CPU) slots = n < slots ? n : slots;
  rec.slots = slots > 0 ? slots : 1;
  return rec;
}

/* A measured batch into model m; refits it and says how it moved. */
static void learn(loop_t *l, int32_t m, const shd_rec_t *rec) {
  drv_sched_t *s = &l->r->sched;
  if (drv_model_add(&s->models[m], rec, s->run)) DRV_ABORT("out of memory");
  drv_sched_fit(s, m);
  const shd_fit_t *f = &s->fit[m];
  say(l,
      "model %s: %d batches, %.3gx the preset, median error %.1f%% (the preset's %.1f%%)%s, "
      "x%.3g to their total, contention %.3g\n",
      s->models[m].name, f->used, f->scale, 100 * (exp(f->err_fit) - 1),
      100 * (exp(f->err_prior) - 1), f->rejected ? ", some left out" : "", f->sum_ratio,
      s->coef[(size_t)m * SHD_C_N + SHD_C_CONTENTION]);
}

/* What every rank published since the last look: workers' batches in hand,
 * records (into the cost model), flags (taken experiments). */
static void refresh(loop_t *l) {
  drv_run_t *r = l->r;
  drv_sched_t *s = &r->sched;
  drv_win_read(&l->win, 0, l->n_counters, l->counters);
  double now = now_s(l);
  for (int32_t g = 0; g < s->n_workers; g++) {
    const int64_t *c = &l->counters[worker_slot(g)];
    double start = (double)c[0] * 1e-6, est = (double)c[1] * 1e-6;
    double f = c[2] > 0 && !c[4] ? (double)c[3] / (double)c[2] : 0;
    s->workers[g].free_at = est > 0 ? left_of(now - start, est, f) : 0;
  }
  for (int k = 0; k < r->size; k++) {
    int64_t have = l->counters[count_slot(l, k)];
    if (have > REC_CAP) have = REC_CAP;
    if (k == r->rank || have <= l->seen[k]) continue;
    int64_t n = have - l->seen[k];
    rec_t *recs = malloc((size_t)n * sizeof *recs);
    if (!recs) DRV_ABORT("out of memory");
    drv_win_records(&l->win, k, l->seen[k], n, recs);
    for (int64_t i = 0; i < n; i++) {
      int32_t m = recs[i].name * s->n_keys + recs[i].key;
      if (recs[i].name < 0 || recs[i].name >= s->n_names || recs[i].key < 0 ||
          recs[i].key >= s->n_keys)
        DRV_ABORT("a record names a model no rank has");
      learn(l, m, &recs[i].r);
    }
    free(recs);
    l->seen[k] = have;
  }
  drv_win_flags(&l->win, l->flags);
  for (int32_t i = 0; i < s->n_exps; i++)
    l->taken[i] = l->flags[i] != 0;
  l->last_look = now;
}

/* Publishes this rank's experiments ended in batches still running, in
 * all and per worker, and a CPU batch's estimate from its ended members. */
static void publish_partial(loop_t *l) {
  int64_t sum = 0;
  for (int i = 0; i < l->n_local; i++)
    if (l->local[i].w) {
      local_t *lw = &l->local[i];
      int32_t e = __atomic_load_n(&lw->w->ended, __ATOMIC_RELAXED);
      e = e < lw->w->n ? e : lw->w->n;
      if (e != lw->ended) {
        drv_win_set(&l->win, worker_slot(lw->g) + 3, e);
        /* A CPU batch's threads step whole experiments whose times the
         * model's features carry, so its first ends tell the scale of the
         * rest; a GPU's first ends do not tell its last (the 144 training
         * experiments on an H200: 88 had ended at 26 s, the last at 98 s). */
        if (lw->ends && e > 0 && e < lw->w->n) {
          double est = shd_own_estimate(lw->w->est_s, lw->ends, lw->w->n, e, now_s(l) - lw->start);
          drv_win_set(&l->win, worker_slot(lw->g) + 1, (int64_t)(est * 1e6) + 1);
          drv_win_set(&l->win, worker_slot(lw->g) + 4, 1);
        }
      }
      lw->ended = e;
      sum += e;
    }
  if (sum != l->partial) drv_win_add(&l->win, DRV_SLOT_PARTIAL, sum - l->partial);
  l->partial = sum;
}

/* Rank 0: the cost model's plan of what is left, for the ETA and the log. */
static void estimate(loop_t *l, int force) {
  double now = now_s(l);
  if (!force && now - l->last_eta < ETA_S) return;
  l->last_eta = now;
  refresh(l);
  double left = drv_plan_outlook(&l->r->sched, l->taken, NULL);
  l->pg.eta_model = left;
  /* A line after each batch, and at each twentieth of the experiments. */
  int64_t b = l->counters[DRV_SLOT_BATCHES];
  int64_t done = l->counters[DRV_SLOT_DONE] + l->counters[DRV_SLOT_PARTIAL];
  int64_t step = l->r->to_run > 0 ? done * 20 / l->r->to_run : 0;
  if ((b != l->batches || step != l->step) && left >= 0) {
    l->batches = b;
    l->step = step;
    say(l,
        "estimate: %lld batches done, %lld of %lld experiments, %.3f s elapsed, %.3f s left: "
        "makespan %.3f s\n",
        (long long)b, (long long)done, (long long)l->r->to_run, now, left, now + left);
  }
}

/* Serves signals, the stop counter, in-batch progress and rank 0's progress;
 * returns the stop. */
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
    publish_partial(l);
    if (l->r->rank == 0) {
      int64_t c[DRV_SLOTS];
      if (!l->stop) estimate(l, 0);
      drv_win_read(&l->win, 0, DRV_SLOTS, c);
      drv_progress_show(&l->pg, c[DRV_SLOT_DONE] + c[DRV_SLOT_PARTIAL], c[DRV_SLOT_PARTIAL],
                        c[DRV_SLOT_NOT_OK], "running", 0);
    }
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

static const char *worker_name(const loop_t *l, int32_t g) {
  const drv_sched_t *s = &l->r->sched;
  return s->worker_backend[g] == ENG_BACKEND_CUDA ? "cuda" : "cpu";
}

/* Starts local worker i on experiments pos[0..n) (places among those to run). */
static void start_batch(loop_t *l, int i, const int32_t *pos, int32_t n, double est) {
  drv_run_t *r = l->r;
  const drv_sched_t *s = &r->sched;
  int32_t g = l->local[i].g;
  int64_t *index = malloc(((size_t)n + 1) * sizeof *index);
  uint64_t *id = malloc(((size_t)n + 1) * sizeof *id);
  char **canon = malloc(((size_t)n + 1) * sizeof *canon);
  int32_t *mine = malloc(((size_t)n + 1) * sizeof *mine);
  drv_work_t *w = calloc(1, sizeof *w);
  char err[1024];
  if (!index || !id || !canon || !mine || !w) DRV_ABORT("out of memory");
  for (int32_t m = 0; m < n; m++) {
    mine[m] = pos[m];
    index[m] = r->index[pos[m]];
    id[m] = r->id[pos[m]];
    canon[m] = r->canon[pos[m]];
  }
  *w = (drv_work_t){.kind = r->kind,
                    .k = r->k,
                    .batch = (int32_t)index[0],
                    .n = n,
                    .index = index,
                    .id = id,
                    .canon = canon,
                    .job_path = r->job_path,
                    .job_count = r->total,
                    .sink = &r->pipe->sink,
                    .out_dir = strdup(l->out_dir), /* an abandoned batch outlives l */
                    .pos = mine,
                    .worker = i,
                    .est_s = est,
                    .wake = l->wake,
                    .host_threads = r->m.w[i].host_threads,
                    .rows = ana_table_create(r->kind->cols, r->kind->n_cols, err, sizeof err)};
  /* A CPU batch's threads as it merits, at most the worker's; --threads: exactly. */
  w->run = (eng_run_desc_t){.backend = (eng_backend_t)s->worker_backend[g],
                            .threads = r->o.threads ? s->worker_threads[g] : 0,
                            .max_threads = s->worker_threads[g],
                            .finished = &w->ended};
  l->local[i].w = w;
  l->local[i].start = now_s(l);
  l->local[i].ended = 0;
  l->local[i].ends = NULL;
  if (s->worker_backend[g] == ENG_BACKEND_CPU) { /* built first, then run on its threads */
    const double *coef = coef_of(s, g, s->key[pos[0]]);
    double serial = 0, *ends = malloc(((size_t)n + 1) * sizeof *ends);
    if (!ends) DRV_ABORT("out of memory");
    for (int32_t m = 0; m < n; m++) {
      ends[m] = shd_cost_parallel(coef, &s->feat[pos[m]]);
      serial += shd_cost_serial(coef, &s->feat[pos[m]]);
    }
    shd_member_ends(ends, n, s->worker_threads[g], ends);
    for (int32_t m = 0; m < n; m++)
      ends[m] += serial;
    l->local[i].ends = ends;
  }
  drv_win_set(&l->win, worker_slot(g), (int64_t)(l->local[i].start * 1e6));
  drv_win_set(&l->win, worker_slot(g) + 2, n);
  drv_win_set(&l->win, worker_slot(g) + 3, 0);
  drv_win_set(&l->win, worker_slot(g) + 4, 0);
  drv_win_set(&l->win, worker_slot(g) + 1, (int64_t)(est * 1e6) + 1);
  r->sched.workers[g].free_at = est;
  if (!w->out_dir) DRV_ABORT("out of memory");
  if (!w->rows || drv_work_start(w)) DRV_ABORT("cannot start a batch's thread");
  say(l, "worker %d (%s): %d experiments from experiment %lld, estimated %.3f s\n", g,
      worker_name(l, g), n, (long long)index[0], est);
}

/* Keeps a finished batch's rows, learns its time, frees it. */
static void end_batch(loop_t *l, int i) {
  drv_sched_t *s = &l->r->sched;
  drv_work_t *w = l->local[i].w;
  int32_t g = l->local[i].g;
  l->local[i].w = NULL;
  free(l->local[i].ends);
  l->local[i].ends = NULL;
  publish_partial(l);
  keep_rows(l, w->rows, w->not_ok);
  if (w->sink_error[0]) {
    fprintf(stderr, "multiverse %s: rank %d: %s\n", l->r->pipe->cmd, l->r->rank, w->sink_error);
    say(l, "cannot write the outputs: %s\n", w->sink_error);
    ask_stop(l, DRV_STOP_ERROR);
  }
  drv_win_set(&l->win, worker_slot(g) + 1, 0);
  s->workers[g].free_at = 0;
  /* What the model learns and the plan counts: the worker's time from its
   * batch's start to its rows kept, the main thread's share included (the
   * shard's write; its look at the workers, every POLL_S until a batch's end
   * woke it: some 20-40 ms a batch here, a quarter of a sweep of 0.1 s
   * batches). */
  double busy = now_s(l) - l->local[i].start;
  shd_rec_t rec = batch_rec(s, g, w->pos, w->n);
  rec.seconds = busy;
  double err = w->est_s > 0 ? busy / w->est_s - 1 : 0;
  say(l,
      "worker %d (%s): %d experiments (%lld not ok) in %.3f s, estimated %.3f s (error "
      "%+.1f%%)%s, %.3f s on its thread, %d CPU threads\n",
      g, worker_name(l, g), w->n, (long long)w->not_ok, busy, w->est_s, 100 * err,
      w->splits ? ", halved for device memory" : "", w->wall_s, w->threads);
  int32_t key = s->key[w->pos[0]];
  learn(l, model_of(s, g, key), &rec);
  if (l->published < REC_CAP) {
    rec_t out = {.name = s->cls_name[s->workers[g].cls], .key = key, .r = rec};
    drv_win_publish(&l->win, l->published, &out, count_slot(l, l->r->rank));
    l->published++;
  }
  drv_win_add(&l->win, DRV_SLOT_BATCHES, 1);
  ana_table_free(w->rows);
  free((void *)w->index);
  free((void *)w->id);
  free((void *)w->canon);
  free((void *)w->out_dir);
  free(w->pos);
  free(w);
  l->look = 1;
}

/* Gives each free worker the batch the plan has for it, if any. */
static void assign(loop_t *l) {
  drv_sched_t *s = &l->r->sched;
  int idle = 0;
  for (int i = 0; i < l->n_local; i++)
    idle += !l->local[i].w && !l->local[i].done;
  if (!idle || (!l->look && now_s(l) - l->last_look < LOOK_S)) return;
  l->look = 0;
  refresh(l);
  int32_t left = 0;
  for (int32_t e = 0; e < s->n_exps; e++)
    left += !l->taken[e];
  for (int i = 0; i < l->n_local; i++) {
    local_t *lw = &l->local[i];
    if (lw->w || lw->done) continue;
    if (left == 0) {
      lw->done = 1;
      say(l, "worker %d (%s): every experiment is taken\n", lw->g, worker_name(l, lw->g));
      continue;
    }
    shd_sched_t v = drv_sched_view(s, l->taken);
    shd_pick_t p = {.members = l->pick};
    if (shd_sched(&v, lw->g, &p, NULL)) DRV_ABORT("out of memory planning");
    if (p.n == 0) continue; /* its kind has no share now: look again later */
    drv_win_claim(&l->win, p.members, p.n, l->old);
    int32_t kept = 0;
    for (int32_t m = 0; m < p.n; m++) {
      if (l->old[m] == 0) l->pick[kept++] = p.members[m];
      if (!l->taken[p.members[m]]) left--;
      l->taken[p.members[m]] = 1;
    }
    if (kept == 0) { /* others took them meanwhile */
      l->look = 1;
      continue;
    }
    double est = p.cost;
    if (kept < p.n) {
      shd_rec_t rec = batch_rec(s, lw->g, l->pick, kept);
      est = shd_cost_batch(coef_of(s, lw->g, s->key[l->pick[0]]), &rec);
    }
    start_batch(l, i, l->pick, kept, est);
  }
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
      drv_exp_release(r->kind, r->k, &x);
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
  drv_sched_t *s = &r->sched;
  char err[1024], path[4200], what[256];
  l->n_counters = DRV_SLOTS + WORKER_SLOTS * (int64_t)s->n_workers + r->size;
  l->counters = calloc((size_t)l->n_counters, sizeof *l->counters);
  l->flags = calloc((size_t)s->n_exps + 1, sizeof *l->flags);
  l->taken = calloc((size_t)s->n_exps + 1, sizeof *l->taken);
  l->pick = calloc((size_t)s->n_exps + 1, sizeof *l->pick);
  l->old = calloc((size_t)s->n_exps + 1, sizeof *l->old);
  l->seen = calloc((size_t)r->size, sizeof *l->seen);
  if (!l->counters || !l->flags || !l->taken || !l->pick || !l->old || !l->seen)
    DRV_ABORT("out of memory");
  drv_win_open(&l->win, l->n_counters, s->n_exps, sizeof(rec_t), REC_CAP);
  snprintf(l->out_dir, sizeof l->out_dir, "%s/out", r->run_dir);
  l->t0 = omp_get_wtime();
  l->pg = (drv_progress_t){.job = r->job_path,
                           .run_dir = r->run_dir,
                           .ranks = r->size,
                           .workers = s->n_workers,
                           .total = r->total,
                           .distinct = r->distinct,
                           .skipped = r->skipped,
                           .to_run = r->to_run,
                           .every_s = r->o.every_s,
                           .quiet = r->pipe->quiet,
                           .eta_model = -1};
  drv_progress_begin(&l->pg);
  l->pg.eta_model = r->makespan;
  l->last_eta = -ETA_S;
  snprintf(path, sizeof path, "%s/logs/a%04d-r%06d.log", r->run_dir, r->attempt, r->rank);
  l->log = fopen(path, "w");
  drv_machine_text(&r->m, what, sizeof what);
  ana_prov_t prov = {.title = r->name,
                     .job_file = r->job_path,
                     .backend = r->m.n_workers > 1 ? "cuda+cpu" : drv_backend_name(r->m.backend),
                     .gpu = r->m.gpu};
  if (r->m.n_workers > 1 && r->m.w[0].backend == r->m.w[1].backend) prov.backend = "cpu";
  if (drv_shard_open(&l->shard, r->run_dir, r->attempt, r->rank, r->kind, &prov, err, sizeof err))
    DRV_ABORT(err);
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  const char *slurm = getenv("SLURMD_NODENAME");
  say(l, "rank %d of %d (node %d of %d, local %d of %d): %s, %.3g GiB per batch%s%s; host %s%s%s\n",
      r->rank, r->size, r->node, r->n_nodes, r->local_rank, r->local_size, what,
      (double)r->m.mem_budget / BASE_BYTES_PER_GIB, r->m.gpu[0] ? ", " : "", r->m.gpu, host,
      slurm ? ", Slurm node " : "", slurm ? slurm : "");
  say(l, "before the batches: %.3f s of MPI and machine set-up, %.3f s of plan\n", r->setup_s,
      r->plan_s);
  for (int32_t c = 0; c < s->n_classes; c++)
    say(l, "kind of worker %d: %s, %d slots, %.3g GiB per batch, at most %d per batch\n", c,
        s->names[s->cls_name[c]], s->cls[c].slots,
        (double)s->cls[c].mem_budget / BASE_BYTES_PER_GIB, s->cls[c].max_batch);
  l->n_local = 0;
  for (int32_t g = 0; g < s->n_workers; g++)
    if (s->worker_rank[g] == r->rank && l->n_local < DRV_MAX_WORKERS)
      l->local[l->n_local++] = (local_t){.g = g};
  l->look = 1;
  if (r->rank == 0) {
    say(l,
        "estimate: 0 batches done, 0 of %lld experiments, 0.000 s elapsed, %.3f s left: "
        "makespan %.3f s\n",
        (long long)r->to_run, r->makespan, r->makespan);
    plan_rows(l);
  }
}

/* Batches until every experiment is taken and the last ends, or a stop; 1
 * if a batch was abandoned. */
static int work(loop_t *l) {
  double stopped_at = -1;
  for (;;) {
    int running = 0, active = 0;
    if (serve(l, 0) && stopped_at < 0) stopped_at = now_s(l);
    for (int i = 0; i < l->n_local; i++)
      if (l->local[i].w && drv_work_finished(l->local[i].w)) {
        drv_work_join(l->local[i].w);
        end_batch(l, i);
      }
    if (!l->stop) assign(l);
    for (int i = 0; i < l->n_local; i++) {
      running += l->local[i].w != NULL;
      active += l->local[i].w != NULL || !l->local[i].done;
    }
    if (l->stop ? !running : !active) return 0;
    if (l->stop && now_s(l) - stopped_at >= l->r->o.grace_s) {
      for (int i = 0; i < l->n_local; i++)
        if (l->local[i].w)
          say(l, "worker %d: batch from experiment %lld abandoned (stop %lld)\n", l->local[i].g,
              (long long)l->local[i].w->index[0], (long long)l->stop);
      return 1;
    }
    drv_wake_wait(l->wake, POLL_S); /* a batch's end wakes it at once */
  }
}

/* Rank 0: this run's measured batches into the costs file. */
static void save_costs(loop_t *l) {
  drv_run_t *r = l->r;
  drv_sched_t *s = &r->sched;
  char err[1300];
  int32_t n = s->n_names * s->n_keys;
  for (int32_t m = 0; m < n; m++)
    if (s->fit[m].used)
      say(l, "model %s: %d batches, %.3gx the preset, median error %.1f%%\n", s->models[m].name,
          s->fit[m].used, s->fit[m].scale, 100 * (exp(s->fit[m].err_fit) - 1));
  if (drv_costs_save(&r->costs, s->models, s->coef, n, err, sizeof err)) {
    fprintf(stderr, "multiverse %s: the costs file: %s\n", r->pipe->cmd, err);
    say(l, "the costs file: %s\n", err);
  } else if (r->costs.path[0] && r->costs.readable) {
    say(l, "costs: %s\n", r->costs.path);
  }
}

int drv_run_loop(drv_run_t *r, int *merged, int *abandoned) {
  loop_t l = {.r = r};
  l.wake = malloc(sizeof *l.wake);
  if (!l.wake || drv_wake_init(l.wake)) DRV_ABORT("cannot make the workers' condition variable");
  loop_begin(&l);
  *abandoned = work(&l);
  drv_ibarrier_t all;
  drv_ibarrier_start(&all);
  while (!drv_ibarrier_done(&all)) {
    serve(&l, 0);
    nap(POLL_S);
  }
  serve(&l, 1);
  int64_t c[DRV_SLOTS];
  drv_win_read(&l.win, 0, DRV_SLOTS, c);
  int64_t stop = l.stop, n_done = c[DRV_SLOT_DONE], not_ok = c[DRV_SLOT_NOT_OK];
  if (r->rank == 0) refresh(&l); /* every rank's records */
  drv_all_barrier();             /* every rank has read the counters */
  drv_win_close(&l.win);
  drv_shard_close(&l.shard);
  say(&l, "leaving: stop %lld, %lld experiments done by every rank\n", (long long)stop,
      (long long)n_done);
  int rc = 0;
  if (r->rank == 0) {
    l.pg.eta_model = 0;
    drv_progress_show(&l.pg, n_done, 0, not_ok, stop ? "stopped" : "done", 1);
    save_costs(&l);
    const char *results = r->pipe->results;
    if (!stop && !(results && !*results)) {
      double t = omp_get_wtime();
      rc = drv_merge_dir(r->run_dir, results, r->o.has_only, r->pipe->quiet ? NULL : stdout);
      say(&l, "merged the shards in %.3f s\n", omp_get_wtime() - t);
    }
    fflush(stdout);
  }
  if (l.log) fclose(l.log);
  for (int i = 0; i < l.n_local; i++) /* a batch abandoned at a stop */
    free(l.local[i].ends);
  if (!*abandoned) { /* else a batch still running will signal it: left to the exit */
    drv_wake_free(l.wake);
    free(l.wake);
  }
  free(l.counters), free(l.flags), free(l.taken), free(l.pick), free(l.old), free(l.seen);
  drv_bcast_int(&rc);
  *merged = rc;
  r->n_done = n_done;
  return (int)stop;
}

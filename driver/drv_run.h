/* driver: the parts of `multiverse run`: one batch on a worker thread
 * (drv_work.c), progress on rank 0 (drv_progress.c), rank 0's plan and its
 * broadcast (drv_run_plan.c), and each rank's loop over the shared counter
 * (drv_run_loop.c). */
#ifndef DRV_RUN_H
#define DRV_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "driver/drv_mpi.h"
#include "driver/drv_jobs.h"

/* ---- one batch (drv_work.c) ---- */

typedef struct drv_work_t {
  const drv_kind_t *kind;
  void *k;
  int32_t batch;        /* its number in the plan */
  int32_t n;            /* experiments */
  const int64_t *index; /* (n) each one's first index in the job */
  const uint64_t *id;   /* (n) */
  char *const *canon;   /* (n) */
  eng_run_desc_t run;
  ana_table_t *rows; /* its rows are appended here (the kind's columns) */
  int64_t not_ok;    /* rows not ok */
  int splits;        /* times the engine's batch was halved */
  double wall_s;     /* s */
  double hops;       /* estimated packet-hops */
  pthread_t thread;
  atomic_int finished;
} drv_work_t;

/* Runs the batch on this thread. */
void drv_work_run(drv_work_t *w);
/* Runs it on a new thread (SIGTERM, SIGUSR1, SIGINT blocked there); 0 or -1. */
int drv_work_start(drv_work_t *w);
int drv_work_finished(drv_work_t *w);
void drv_work_join(drv_work_t *w);

/* ---- progress on rank 0 (drv_progress.c) ---- */

typedef struct drv_progress_t {
  char json[4200]; /* RUNDIR/progress.json */
  const char *job, *run_dir;
  int ranks, tty;
  int64_t total, distinct, skipped, to_run; /* experiments */
  int64_t done, not_ok;                     /* of to_run, so far */
  double t0, last_line, last_json, every_s; /* s */
  int line_open;                            /* a terminal line is being rewritten */
} drv_progress_t;

void drv_progress_begin(drv_progress_t *p);
/* Shows done/to_run, the rate, the ETA and failures: rewritten in place on a
 * terminal, else a line every every_s; progress.json rewritten (atomically)
 * at most every second, or now when `final`. state: running, done, stopped. */
void drv_progress_show(drv_progress_t *p, int64_t done, int64_t not_ok, const char *state,
                       int final);

/* ---- the run (drv_run_plan.c, drv_run_loop.c) ---- */

/* What every rank knows of the run: rank 0's plan, broadcast. */
typedef struct drv_run_t {
  int rank, size, local_rank, local_size;
  drv_opts_t o;
  drv_machine_t m;
  int code;    /* rank 0's verdict before running: 0 go, else the exit status */
  int attempt; /* of this run in its folder */
  char *run_dir, *job_path, *job_dir, *kind_name, *name;
  int64_t total, distinct, skipped, n_rows; /* n_rows: rows rank 0 writes at once */
  int64_t to_run; /* experiments of this run: n_rows and those in batches */
  int64_t n_todo;
  int64_t *index; /* (n_todo) */
  uint64_t *id;
  char **canon;
  int32_t n_batches;
  int32_t *batch_first, *batch_n; /* (n_batches) into members */
  int32_t *members;               /* positions in index/id/canon */
  double makespan, bound;         /* s, the plan's estimate */
  /* s: the process's start (omp_get_wtime), then MPI and the machine, the plan */
  double t_begin, setup_s, plan_s;
  const drv_kind_t *kind;
  void *k;
  drv_job_t job;   /* rank 0 */
  drv_plan_t plan; /* rank 0 */
  int lock_fd;     /* rank 0: the run folder's lock */
} drv_run_t;

/* Rank 0 plans (job, run folder, resume, batches) and broadcasts; every rank
 * then holds the plan and its kind's state. */
void drv_run_plan(drv_run_t *r);
/* Takes batches from the shared counter until none are left or a stop;
 * returns the exit status every rank agrees on. *abandoned: a batch was left
 * running on its thread. */
int drv_run_loop(drv_run_t *r, int *abandoned);
void drv_run_free(drv_run_t *r);

/* The signal that asked to stop (SIGTERM, SIGUSR1, SIGINT), or 0. */
extern volatile sig_atomic_t drv_stop_signal;

#endif

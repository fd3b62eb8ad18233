/* driver: the pipeline every command that runs experiments goes through (`run`
 * for a job file; `net`, `train` and `collective` for the job they make from
 * their options): rank 0's plan and its broadcast (drv_run_plan.c), each rank's
 * loop over the shared counter (drv_run_loop.c), one batch on a worker thread
 * (drv_work.c) whose rows go to the rank's shard and to the command's sink,
 * progress on rank 0 (drv_progress.c), the merge and the exit status
 * (drv_run.c). */
#ifndef DRV_RUN_H
#define DRV_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>

#include "driver/drv_mpi.h"
#include "driver/drv_wake.h"
#include "driver/drv_jobs.h"

/* ---- what a command adds to the pipeline: its sink ---- */

/* One experiment of a batch, once its row is made, as a command's sink sees it. */
typedef struct drv_sink_exp_t {
  int64_t index;             /* its first index in the job */
  uint64_t id;
  drv_exp_t *x;              /* as built (status ANA_OK), or why it was not */
  const eng_batch_t *b;      /* NULL: it did not run */
  int32_t e;                 /* its place in b */
  ana_status_t status;       /* its row's */
  const char *message;       /* its row's */
  const ana_value_t *values; /* its row's, one per column of its kind */
  double wall_s;             /* the run of its batch, s */
  int32_t batch;             /* its batch's name (drv_work_t.batch); -1: none */
  eng_backend_t backend;
  const char *out_dir; /* RUNDIR/out: where a sink writes (a file per experiment id) */
} drv_sink_exp_t;

/* The sink's files (drv_sink.c): OUT/ID.EXT, by the output rule (drv_out.h:
 * drv_sink_open, then drv_out_commit or drv_out_abort). */
void drv_sink_path(char *buf, size_t len, const char *dir, uint64_t id, const char *ext);
int drv_sink_open(drv_out_t *o, const char *dir, uint64_t id, const char *ext, char *err,
                  size_t errlen);
/* ev's ID.EXT holding `text` and a newline. 0 or -1 with a message. */
int drv_sink_text(const drv_sink_exp_t *ev, const char *ext, const char *text, char *err,
                  size_t errlen);
/* Copies DIR/ID.EXT to `to` by the output rule; 0, or 2 with a message. */
int drv_sink_copy(const char *cmd, const char *dir, uint64_t id, const char *ext, const char *to);
/* The same, or with may_link (the run folder is removed when the command
 * ends: nothing else sees its files) a hard link to it where `to` does not
 * exist yet and the file system allows; its message goes to `msg`. */
int drv_sink_place(const char *cmd, const char *dir, uint64_t id, const char *ext, const char *to,
                   int may_link, FILE *msg);

/* What a command writes besides the results file (net's FCT files and
 * summaries, train's lines and trace, collective's table): each experiment's,
 * written by the worker of whichever rank runs it into RUNDIR/out, and
 * gathered by the command's finish on rank 0. Every member may be NULL. */
typedef struct drv_sink_t {
  void *ctx;
  /* Before a batch is made: what an experiment's run needs besides its spec
   * (a trace selection); one that changes x->desc clears x->desc.validated. */
  void (*prepare)(void *ctx, int64_t index, drv_exp_t *x);
  /* 0, or -1 with a message: the run stops as when a shard cannot be written.
   * Called on several threads at once, each for its own experiment. */
  int (*write)(void *ctx, const drv_sink_exp_t *ev, char *err, size_t errlen);
} drv_sink_t;

/* ---- one batch (drv_work.c) ---- */

typedef struct drv_work_t {
  const drv_kind_t *kind;
  void *k;
  int32_t batch;        /* its name: its first experiment's index in the job */
  int32_t n;            /* experiments */
  const int64_t *index; /* (n) each one's first index in the job */
  const uint64_t *id;   /* (n) */
  char *const *canon;   /* (n) */
  eng_run_desc_t run;
  const char *job_path;   /* the job as given: experiments are named after it */
  int64_t job_count;      /* its experiments (drv_exp_where) */
  const drv_sink_t *sink; /* the command's (NULL: none) */
  const char *out_dir;    /* RUNDIR/out */
  char sink_error[1024];  /* a sink's failure ("" none) */
  ana_table_t *rows;      /* its rows are appended here (the kind's columns) */
  int64_t not_ok;    /* rows not ok */
  int splits;        /* times the engine's batch was halved */
  int threads;       /* the most CPU threads an engine batch ran with */
  int host_threads;  /* threads for its results (drv_worker_desc_t); 0: one */
  double wall_s;     /* s */
  int32_t *pos;      /* (n) the members' places among the experiments to run */
  int32_t worker;    /* the rank's worker that runs it */
  double est_s;      /* s, the cost model's estimate when it was taken */
  int32_t ended;     /* experiments ended so far (the engine raises it) */
  pthread_t thread;
  atomic_int finished;
  drv_wake_t *wake; /* signalled when it has finished (NULL: none) */
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
  int ranks, workers, tty;
  int quiet; /* progress.json only, no lines on the terminal */
  int64_t total, distinct, skipped, to_run; /* experiments */
  int64_t done, not_ok;                     /* of to_run, so far (done: in batches too) */
  int64_t running;                          /* of done, in batches not yet written */
  double t0, last_line, last_json, every_s; /* s */
  double eta_model;                         /* s left by the cost model, -1: unknown */
  int line_open;                            /* a terminal line is being rewritten */
} drv_progress_t;

void drv_progress_begin(drv_progress_t *p);
/* Shows done/to_run (`running` of them ended in batches still running), the
 * rate, the ETA (the cost model's plan of the rest when eta_model >= 0,
 * else from the rate) and failures: rewritten in place on a terminal, else
 * a line every every_s; progress.json rewritten (atomically) at most every
 * second, or now when `final`. state: running, done, stopped. */
void drv_progress_show(drv_progress_t *p, int64_t done, int64_t running, int64_t not_ok,
                       const char *state, int final);

/* ---- the pipeline (drv_run.c) ---- */

/* How a run ended, as rank 0 tells the command's finish. */
typedef struct drv_end_t {
  const char *run_dir;
  const drv_job_t *job; /* rank 0's: every experiment's index, id and canonical form */
  const drv_done_t *done; /* every id's best status in the run folder */
  int stopped;          /* the signal that stopped the run, DRV_STOP_ERROR, or 0 */
  int status;           /* the exit status by drv.h's rule */
  int threads;          /* the rank's cores, its workers done: the finish's threads */
} drv_end_t;

/* What a command hands the pipeline. */
typedef struct drv_pipe_t {
  const char *cmd; /* "run", "net", "train", "collective": in messages */
  drv_opts_t o;    /* the job (a file, or job_text's name), run folder, machine, batches */
  const char *job_text; /* a job a command made from its options; NULL: the file o.job */
  const char *job_dir;  /* job_text's folder: its relative paths start there */
  /* The results file: NULL, the job's `output` in the run folder; "": none
   * (no merge: the command's sink writes what it reports). */
  const char *results;
  /* The files the command reads besides the job file (topology, flows): the
   * results file, by the output rule (drv_out.h), may not be one. */
  const char *const *inputs;
  int n_inputs;
  int quiet;        /* no plan line, progress lines or merge line on the terminal */
  int temp_run_dir; /* the run folder is made for this run and removed at its end */
  char folder[4200]; /* a front-end's run folder (drv_pipe_front) */
  drv_sink_t sink;
  /* Rank 0, after the run (also after a stop): the command's outputs; returns
   * the exit status (end->status, or 2 when they cannot be written). NULL:
   * end->status. */
  int (*finish)(void *ctx, const drv_end_t *end);
  void *finish_ctx;
} drv_pipe_t;

/* Runs the job on every rank (MPI when a launcher started the process, else
 * one rank): plan, batches, shards, sinks, merge, finish. Returns the exit
 * status every rank agrees on (drv.h). */
int drv_pipe_run(drv_pipe_t *p, int argc, char **argv);
/* The options every command that runs experiments takes besides its own:
 * --run-dir DIR, --results FILE.nc, --memory GB, --max-batch N, --grace S.
 * 1 if `opt` is one (its value v read), 0 if not, 2 after an error. */
int drv_pipe_opt(drv_pipe_t *p, const char *opt, const char *v);
/* What every front-end (net, collective, train) asks of the pipeline: its
 * terminal quiet (the command prints its own outputs), no results file unless
 * --results, one batch while memory allows when it runs as one rank (as it
 * did before), and its run folder: --run-dir, else FILE.run for --results
 * FILE.nc (FILE less its .nc), else a new temporary folder (one rank only:
 * several need a folder every rank sees). 0, or 2 with a message. */
int drv_pipe_front(drv_pipe_t *p);

/* ---- the run (drv_run_plan.c, drv_run_loop.c) ---- */

/* What every rank knows of the run: rank 0's plan, broadcast. */
typedef struct drv_run_t {
  int rank, size, local_rank, local_size, node, n_nodes;
  const drv_pipe_t *pipe;
  drv_opts_t o;
  drv_machine_t m;
  int32_t n_slots; /* every rank's workers, rank order */
  drv_slot_desc_t *slots;
  int32_t first_worker; /* this rank's first among them */
  int code;             /* rank 0's verdict before running: 0 go, else the exit status */
  int attempt;          /* of this run in its folder (of its current stage's shards) */
  int n_stages;         /* the job's refine stages */
  char *run_dir, *job_path, *job_dir, *kind_name, *name;
  int64_t total, distinct, skipped, n_rows; /* n_rows: rows rank 0 writes at once */
  int64_t to_run; /* experiments of this run: n_rows and those in batches */
  int64_t n_done; /* of to_run, finished by every rank (after the loop) */
  int64_t n_todo;
  int64_t *index; /* (n_todo) */
  uint64_t *id;
  char **canon;
  drv_sched_t sched; /* the workers, the cost model, the experiments' features */
  int32_t n_batches; /* in the plan at the start */
  double makespan;   /* s, the plan's estimate at the start */
  /* s: the process's start (omp_get_wtime), then MPI and the machine, the plan */
  double t_begin, setup_s, plan_s;
  const drv_kind_t *kind;
  void *k;
  drv_job_t job;     /* rank 0 */
  drv_plan_t plan;   /* rank 0 */
  drv_costs_t costs; /* rank 0: the costs file, written at the end */
  int lock_fd;       /* rank 0: the run folder's lock */
} drv_run_t;

/* Rank 0 plans (job, run folder, resume, batches) and broadcasts; every rank
 * then holds the plan and its kind's state. */
void drv_run_plan(drv_run_t *r);
/* Each worker takes the batches the cost model plans for it (claimed from
 * the flags on rank 0) until none are left or a stop; then rank 0 merges
 * (unless the pipe wants no results file). Returns the stop every rank
 * agrees on (0, a signal number or DRV_STOP_ERROR); *merged the merge's code
 * (drv_merge_dir; 0 when none was wanted). *abandoned: a batch was left
 * running on its thread. */
int drv_run_loop(drv_run_t *r, int *merged, int *abandoned);
/* Refine stage s (after the stage before has merged): rank 0 picks its
 * experiments, rewrites the manifest and plans them; every rank holds the
 * new plan (r->code says whether to go on). */
void drv_run_stage(drv_run_t *r, int s);
void drv_run_free(drv_run_t *r);

/* The signal that asked to stop (SIGTERM, SIGUSR1, SIGINT), or 0. */
extern volatile sig_atomic_t drv_stop_signal;

#endif

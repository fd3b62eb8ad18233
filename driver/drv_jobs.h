/* driver: what the sweep commands (run, plan, merge, report) share: the
 * expanded job with every experiment's canonical text and id, the run folder
 * (manifest, shards, progress), the cost model and the plan of batches. */
#ifndef DRV_JOBS_H
#define DRV_JOBS_H

#include <stdint.h>
#include <stdio.h>

#include "driver/drv_kind.h"
#include "driver/drv_out.h"
#include "jobs/job_sweep.h"
#include "shd_cost.h"

/* ---- a map from strings to pointers (drv_map.c) ---- */

typedef struct drv_map_t drv_map_t;
drv_map_t *drv_map_new(void);
void *drv_map_get(const drv_map_t *m, const char *key);      /* NULL if absent */
int drv_map_put(drv_map_t *m, const char *key, void *value); /* 0, or -1 out of memory */
/* Frees the map, calling release (if not NULL) on every value. */
void drv_map_free(drv_map_t *m, void (*release)(void *));

/* ---- a kind's topologies (drv_topos.c) ---- */

/* A topology, or why it cannot be read (error not NULL, t empty). */
typedef struct drv_topo_t {
  topo_t t;
  char *error;
} drv_topo_t;
/* The topology of a file (relative to base_dir unless absolute) or, file NULL,
 * of a spec, from `cache` (a drv_map_t whose values drv_topo_release frees):
 * built once per key (the path, or the spec's canonical text). NULL when out
 * of memory. */
drv_topo_t *drv_topo_cached(drv_map_t *cache, const char *file, const topo_spec_t *spec,
                            const char *base_dir);
void drv_topo_release(void *p);

/* ---- the expanded job (drv_job.c) ---- */

/* What the plan reads of an experiment (drv_exp_describe's), where its kind
 * described it as it identified it (drv_kind_t.canon_describe). */
typedef struct drv_described_t {
  shd_feat_t feat;
  int64_t mem;
  const char *model;
  char *message; /* status not ANA_OK: why (malloc'd) */
  ana_status_t status;
} drv_described_t;

typedef struct drv_job_t {
  char *path; /* as given */
  char *dir;  /* the job file's folder, absolute */
  job_sweep_t *sw;
  const drv_kind_t *kind;
  void *k;          /* the kind's state */
  int64_t count;    /* experiments */
  uint64_t *id;     /* (count) experiment ids */
  char **canon;     /* (count) canonical JSON; NULL where it repeats an earlier one */
  int64_t *first;   /* (count) the first experiment with the same id */
  char **broken;    /* (count) why a file it names cannot be read (a failed row), or NULL */
  int64_t distinct; /* experiments that are the first of their id */
  /* (count) where opened with drv_kind_opts_t.describe and the plan takes its
   * kind's canon_describe (drv_kind_canon_describes); else NULL. Set where
   * canon is, and broken is not. */
  drv_described_t *described;
} drv_job_t;

/* Reads, validates and expands the job file, and identifies every experiment
 * through its kind. Every problem goes to errs, one line each (problems that
 * many experiments share are one line naming them); returns 0 or -1. */
int drv_job_load(const char *path, const char *presets, drv_job_t *j, job_sweep_errs_t *errs);
/* The same for a job a command made (its text; `path` names it in messages);
 * text NULL: the file. ko: what its kind reads (base_dir, the folder its
 * relative paths start from; NULL: the job file's, absolute) and whether the
 * job is to be planned (describe). */
int drv_job_open(const char *path, const char *text, const drv_kind_opts_t *ko, drv_job_t *j,
                 job_sweep_errs_t *errs);
void drv_job_free(drv_job_t *j);
/* Identifies the experiments appended to the job since (refined ones:
 * job_sweep_refine_add); 0 or -1 with their problems in errs. */
int drv_job_grow(drv_job_t *j, job_sweep_errs_t *errs);

/* ---- refinement (drv_refine.c) ---- */

/* The job's refine stages against its kind: each metric a numeric result,
 * each stage's keys valid on the sweep's first experiment. 0 or -1 with the
 * problems in errs. */
int drv_refine_check(drv_job_t *j, job_sweep_errs_t *errs);
/* Appends and identifies stage s's experiments: the best of stage s - 1 by
 * the run folder's results file (ok rows with the metric; ties: the lower
 * index), each with the stage's keys set. Prints what it kept to msg. 0, or
 * -1 with a message. */
int drv_refine_stage(drv_job_t *j, const char *run_dir, int s, FILE *msg, char *err, size_t errlen);
/* The experiment id as results files write it: 16 hex digits. */
void drv_id_text(uint64_t id, char buf[17]);

/* ---- options of run and plan (drv_opts.c) ---- */

typedef struct drv_opts_t {
  const char *job;
  const char *run_dir; /* NULL: runs/<job name> */
  const char *presets;
  const char *calibration; /* intra-server curves over the presets' (train) */
  int backend;             /* -1: cuda where a GPU is, else cpu; else eng_backend_t */
  int threads;         /* the CPU worker's threads (at most); 0: its share of the node's cores */
  const char *workers; /* --workers: "cuda,cpu:12"; NULL: from --backend and the machine */
  const char *costs;   /* --costs FILE, "none"; NULL: $MULTIVERSE_COSTS, else the user's cache */
  int ranks_per_node;  /* run: ranks grouped into nodes by rank number; 0: the MPI split */
  double memory_gb;    /* memory one batch may use (GiB); 0: from the device */
  int max_batch;       /* experiments per batch; 0: the cost model's */
  int force;           /* recompute everything */
  int only_failed;     /* run only experiments whose result is `failed` */
  double grace_s;      /* on a signal: wait this long for the batch in hand */
  double every_s;      /* progress lines when not on a terminal */
  int ranks;           /* plan: ranks to plan for */
  int has_only;        /* run experiment `only` alone (train --experiment) */
  int one_batch;       /* every experiment in one batch while memory allows (a command by hand) */
  int64_t only;
  int list_batches; /* plan: print every batch */
  int list_exps;    /* plan: print what the cost model reads of every experiment */
} drv_opts_t;

/* Parses the options of `multiverse CMD` (run or plan). 0; -1 after printing
 * the help; 2 after printing an error. */
int drv_opts_parse(const char *cmd, int argc, char **argv, drv_opts_t *o);
/* The run folder: o->run_dir, else runs/<job name>. */
void drv_run_dir(const drv_opts_t *o, const drv_job_t *j, char *buf, size_t len);

/* ---- where a rank runs (drv_machine.c) ---- */

#define DRV_MAX_WORKERS 4

/* One worker of a rank: a thread that runs batches on one backend. */
typedef struct drv_worker_desc_t {
  eng_backend_t backend;
  int threads;        /* CPU: its threads (at most: a batch uses what it merits); CUDA: 1 */
  int host_threads;   /* threads of its batches' host side (their results): CPU, its
                       * threads; CUDA, the rank's cores no CPU worker has */
  int64_t mem_budget; /* bytes one batch may use */
  char name[160]; /* its hardware, the cost model's key: "cuda:NVIDIA H200", "cpu:AMD EPYC 9454" */
} drv_worker_desc_t;

typedef struct drv_machine_t {
  eng_backend_t backend; /* the first worker's (CUDA where a GPU works) */
  int threads;           /* the CPU workers' threads, 0 without one */
  int64_t mem_budget;    /* the first worker's */
  char gpu[128];         /* GPU model, "" without */
  int n_workers;
  drv_worker_desc_t w[DRV_MAX_WORKERS];
} drv_machine_t;

/* One GPU per rank: the local_rank-th (modulo) of the GPUs visible becomes
 * the only one visible (CUDA_VISIBLE_DEVICES), before CUDA starts; nothing
 * when one is visible already (Slurm's --gpus-per-task=1) or none is. */
void drv_gpu_pick(int local_rank);
/* The rank on its node as the launcher tells it (Open MPI, Slurm, MPICH), or
 * -1: lets the GPU be picked before MPI_Init starts anything. */
int drv_env_local_rank(void);

/* The most tasks one generated task graph may have here: what half of the
 * host's available memory holds (trn_exp_env_t.max_tasks); 0: unknown. */
int32_t drv_graph_max_tasks(void);
/* Bytes of memory this process may still use: the host's MemAvailable, at
 * most its address-space limit (ulimit -v); 0 if unknown. */
int64_t drv_host_memory(void);

/* Picks this rank's GPU (local_rank among local_size ranks of its node) and
 * its workers: --workers, else by --backend: cuda (a GPU), cpu (the rank's
 * share of the node's cores), auto: both where a GPU works, the cores less
 * one that drives the GPU. 0, or 2 with a message. */
int drv_machine(const drv_opts_t *o, int local_rank, int local_size, drv_machine_t *m, char *err,
                size_t errlen);
const char *drv_backend_name(eng_backend_t b);
/* --workers' value into backends and threads (0: the share); 0 or -1. */
int drv_workers_parse(const char *spec, int *backend, int *threads, int *n);
/* The CPU workers' hardware name from the text of /proc/cpuinfo (NULL: none):
 * "cpu:MODEL NAME, family F model M" (drv_cpu.c says why), else "cpu". */
void drv_cpu_name(const char *cpuinfo, char *buf, size_t len);
/* "cuda + cpu (15 threads)", "cpu (2 threads)": the workers of a machine. */
void drv_machine_text(const drv_machine_t *m, char *buf, size_t len);

/* ---- the cost model's store (drv_cost.c; jobs/presets/batching.json, costs file) ---- */

/* Measured batches of one kind of worker on one cost key. */
typedef struct drv_model_t {
  char *name;     /* "WORKER|KEY": "cpu:AMD EPYC 9454|network/packet" */
  int32_t n, cap; /* records */
  shd_rec_t *rec;
  int32_t *run; /* (n) the run that measured each */
} drv_model_t;

typedef struct drv_costs_t {
  json_t *presets; /* batching.json: the shipped coefficients */
  char presets_path[4096];
  char path[4096]; /* the costs file; "" : none (--costs none) */
  int readable;    /* the file was absent or read whole: it may be written */
  int32_t run;     /* this run's number: the file's runs + 1 */
  int32_t n_models;
  drv_model_t *models;
} drv_costs_t;

/* The shipped coefficients and the costs file: `path`, else $MULTIVERSE_COSTS,
 * else $XDG_CACHE_HOME/multiverse/costs.json (~/.cache/...); "none": no
 * file. A costs file that does not read is named on `warn` and neither used
 * nor written. 0, or -1 with a message (the shipped file). */
int drv_costs_load(drv_costs_t *c, const char *path, FILE *warn, char *err, size_t errlen);
void drv_costs_free(drv_costs_t *c);
/* The shipped coefficients of a worker (name "cuda:NVIDIA H200") for a cost
 * key ("network/packet"): the most specific of "NAME/KEY", "NAME",
 * "BACKEND/KEY", "BACKEND" (BACKEND: the name up to ':'); *slots (CUDA: the
 * preset's; CPU: 0, the worker's threads) and *max_batch. 0 or -1 with a
 * message naming the file and key. */
int drv_costs_prior(const drv_costs_t *c, const char *name, const char *key, double coef[SHD_C_N],
                    int32_t *slots, int32_t *max_batch, char *err, size_t errlen);
/* The model "NAME|KEY" of the file, or NULL. */
const drv_model_t *drv_costs_find(const drv_costs_t *c, const char *name, const char *key);
/* Appends a measured batch of run `run`; 0 or -1 out of memory. */
int drv_model_add(drv_model_t *m, const shd_rec_t *r, int32_t run);
void drv_model_free(drv_model_t *m);
/* Coefficients fitted to a model's records (those of older runs weigh
 * 0.5 per run of age, at least 0.05) from `prior`. */
int drv_model_fit(const drv_model_t *m, int32_t run_now, const double prior[SHD_C_N],
                  double coef[SHD_C_N], shd_fit_t *fi);
/* Writes the records of run c->run in `models` (n of them) into the costs
 * file (locked; merged with what others wrote meanwhile; the newest
 * DRV_COST_KEEP records of each model kept; written whole, then renamed), with
 * each model's fitted coefficients for people to read. 0, or -1 with a
 * message. */
#define DRV_COST_KEEP 256
int drv_costs_save(const drv_costs_t *c, const drv_model_t *models, const double *coef, int32_t n,
                   char *err, size_t errlen);

/* ---- results already in the run folder (drv_shard.c) ---- */

/* The shard files of a run folder, sorted (NULL-ended, malloc'd). */
char **drv_shard_paths(const char *run_dir);
void drv_paths_free(char **paths);
/* The next attempt number (1 + the largest a####- prefix of a shard or log). */
int drv_next_attempt(const char *run_dir);

/* Best status per experiment id, over every readable shard. */
typedef struct drv_done_t {
  int64_t n;
  uint64_t *id;    /* sorted */
  uint8_t *status; /* ana_status_t of its best row */
} drv_done_t;

/* Reads every shard that reads; unreadable ones are named on `warn`. */
int drv_done_read(const char *run_dir, drv_done_t *d, FILE *warn);
/* ana_status_t of id's best row, or -1. */
int drv_done_status(const drv_done_t *d, uint64_t id);
void drv_done_free(drv_done_t *d);

/* One rank's shard files: rows gathered as batches finish and written (under
 * a temporary name, then renamed) after each; a part holds at most
 * DRV_PART_ROWS rows, then the next part starts. */
#define DRV_PART_ROWS 2048

typedef struct drv_shard_t {
  char dir[4096];
  int attempt, rank, part;
  ana_table_t *t;
  const drv_kind_t *kind;
  ana_prov_t prov;
} drv_shard_t;

int drv_shard_open(drv_shard_t *s, const char *run_dir, int attempt, int rank,
                   const drv_kind_t *kind, const ana_prov_t *prov, char *err, size_t errlen);
void drv_shard_add(drv_shard_t *s, const ana_row_t *row);
int drv_shard_flush(drv_shard_t *s, char *err, size_t errlen);
void drv_shard_close(drv_shard_t *s);
/* The values of a row without results: NaN and ANA_FILL_INT64. */
void drv_missing_values(const drv_kind_t *kind, ana_value_t *v);

/* ---- the manifest and the merge (drv_manifest.c, drv_merge.c) ---- */

/* Writes RUNDIR/manifest.jsonl: a header line (job, name, kind, output, count,
 * swept keys and their types), then per experiment its index, id, swept
 * values and canonical JSON. 0 or -1. */
int drv_manifest_write(const char *run_dir, const drv_job_t *j, char *err, size_t errlen);
/* The job's name and file (as the run was given it) in RUNDIR/manifest.jsonl's
 * header; -1 if there is none that reads. */
int drv_manifest_header(const char *run_dir, char *name, size_t name_len, char *job,
                        size_t job_len);
/* The experiments the manifest lists as a results table without results
 * (ana_collect's `want`), the kind and the output file name. NULL with a
 * message. */
ana_table_t *drv_manifest_read(const char *run_dir, const drv_kind_t **kind, char *output,
                               size_t output_len, char *err, size_t errlen);

/* Merges a run folder's shards into RUNDIR/<output> (or `out`): 0 written;
 * 1 experiments without results (nothing written unless partial); 2 error.
 * Prints a line saying what it wrote (with the count of each status) to `msg`. */
int drv_merge_dir(const char *run_dir, const char *out, int partial, FILE *msg);

/* ---- planning (drv_plan.c, drv_sched.c) ---- */

/* The kinds of workers of a run and the cost model they plan with: every
 * rank holds the same one (rank 0's, broadcast) and refits it from the
 * batches every rank measures. */
typedef struct drv_sched_t {
  int32_t n_names; /* hardware names of the workers */
  char **names;
  int32_t n_keys; /* cost keys of the experiments: "network/packet" */
  char **keys;
  double *prior;       /* (n_names * n_keys * SHD_C_N) shipped coefficients */
  double *coef;        /* (the same) fitted to the records */
  shd_fit_t *fit;      /* (n_names * n_keys) how */
  drv_model_t *models; /* (n_names * n_keys) records: the costs file's, then this run's */
  int32_t *max_batch;  /* (n_names) the preset's, or --max-batch */
  int32_t *slots;      /* (n_names) CUDA: the preset's; CPU: 0 (its threads) */
  int32_t run;         /* this run's number in the costs file */
  int32_t n_classes;
  shd_class_t *cls;  /* kinds of workers: a name with its slots, batch limit, memory */
  int32_t *cls_name; /* (n_classes) */
  int32_t n_workers; /* every rank's, in rank order */
  shd_worker_t *workers;
  int32_t *worker_rank; /* (n_workers) */
  int32_t *worker_backend;
  int32_t *worker_threads;
  int32_t n_exps; /* experiments to run (the plan's todo) */
  shd_feat_t *feat;
  int64_t *mem;
  int32_t *key;
} drv_sched_t;

/* One worker as every rank sees it. */
typedef struct drv_slot_desc_t {
  int32_t rank, backend, threads;
  int64_t mem_budget;
  char name[160];
} drv_slot_desc_t;

/* The kinds of workers from every rank's workers (n of them, rank order),
 * and the cost keys: names, classes (name, slots, batch limit; the smallest
 * memory of their workers), each name's prior coefficients for each key and
 * the costs file's records of them; then a fit. max_batch > 0 overrides the
 * presets'. 0 or -1 with a message. */
int drv_sched_init(drv_sched_t *s, const drv_slot_desc_t *w, int32_t n, char *const *keys,
                   int32_t n_keys, const drv_costs_t *c, int max_batch, char *err, size_t errlen);
/* Refits the coefficients of model m (name * n_keys + key) from its records. */
void drv_sched_fit(drv_sched_t *s, int32_t m);
/* The plan's view of it: experiments `taken` (NULL: none) and its workers
 * (free_at as they are set). */
shd_sched_t drv_sched_view(const drv_sched_t *s, const uint8_t *taken);
void drv_sched_free(drv_sched_t *s);

typedef struct drv_plan_t {
  int64_t skipped;    /* distinct experiments with results already */
  int64_t n_rows;     /* distinct experiments that cannot run: rows to write now */
  int64_t *row_index; /* their first index */
  ana_status_t *row_status;
  char **row_message;
  int64_t n_todo; /* distinct experiments to run */
  int64_t *todo;  /* their first index */
  char **keys;    /* cost keys of the experiments to run */
  int32_t n_keys;
  shd_feat_t *feat; /* (n_todo) */
  int64_t *mem;     /* (n_todo) */
  int32_t *key;     /* (n_todo) */
  double hops;      /* estimated packet-hops of the experiments to run */
} drv_plan_t;

/* Builds every experiment that is to run (validation, memory, features)
 * and decides what runs given the results in `done` and the options; the
 * experiments that do not fit `mem_budget` bytes (the largest batch any
 * worker may run) become oom rows. 0, or -1 with a message. */
int drv_plan_make(const drv_job_t *j, const drv_done_t *done, const drv_opts_t *o,
                  int64_t mem_budget, drv_plan_t *p, char *err, size_t errlen);
void drv_plan_free(drv_plan_t *p);

/* The plan from now of sched's experiments not `taken`: *batches in it and
 * its makespan (s; -1 out of memory). */
double drv_plan_outlook(const drv_sched_t *s, const uint8_t *taken, int32_t *batches);

/* The commands. */
int drv_run(int argc, char **argv);
int drv_plan(int argc, char **argv);
int drv_merge(int argc, char **argv);
int drv_report(int argc, char **argv);
int drv_fidelity(int argc, char **argv);

#endif

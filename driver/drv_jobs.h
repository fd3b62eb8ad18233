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
#include "shd.h"

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
} drv_job_t;

/* Reads, validates and expands the job file, and identifies every experiment
 * through its kind. Every problem goes to errs, one line each (problems that
 * many experiments share are one line naming them); returns 0 or -1. */
int drv_job_load(const char *path, const char *presets, drv_job_t *j, job_sweep_errs_t *errs);
/* The same for a job a command made (its text; `path` names it in messages);
 * text NULL: the file. ko: what its kind reads (base_dir, the folder its
 * relative paths start from; NULL: the job file's, absolute). */
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
  int backend;      /* -1: cuda where a GPU is, else cpu; else eng_backend_t */
  int threads;      /* CPU threads per rank; 0: the node's cores over its ranks */
  double memory_gb; /* memory one batch may use (GiB); 0: from the device */
  int max_batch;    /* experiments per batch; 0: the cost model's */
  int force;        /* recompute everything */
  int only_failed;  /* run only experiments whose result is `failed` */
  double grace_s;   /* on a signal: wait this long for the batch in hand */
  double every_s;   /* progress lines when not on a terminal */
  int ranks;        /* plan: ranks to plan for */
  int has_only;     /* run experiment `only` alone (train --experiment) */
  int one_batch;    /* every experiment in one batch while memory allows (a command by hand) */
  int64_t only;
  int list_batches; /* plan: print every batch */
} drv_opts_t;

/* Parses the options of `multiverse CMD` (run or plan). 0; -1 after printing
 * the help; 2 after printing an error. */
int drv_opts_parse(const char *cmd, int argc, char **argv, drv_opts_t *o);
/* The run folder: o->run_dir, else runs/<job name>. */
void drv_run_dir(const drv_opts_t *o, const drv_job_t *j, char *buf, size_t len);

/* ---- where a rank runs (drv_machine.c) ---- */

typedef struct drv_machine_t {
  eng_backend_t backend;
  int threads;        /* CPU threads per rank */
  int64_t mem_budget; /* bytes one batch may use */
  char gpu[128];      /* GPU model, "" without */
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

/* Picks this rank's GPU (local_rank among local_size ranks of its node), its
 * backend, threads and memory budget. 0, or 2 with a message. */
int drv_machine(const drv_opts_t *o, int local_rank, int local_size, drv_machine_t *m, char *err,
                size_t errlen);
const char *drv_backend_name(eng_backend_t b);

/* ---- the cost model (drv_cost.c; jobs/presets/batching.json) ---- */

/* shd_desc_t for a machine's backend, threads and memory, and `ranks` ranks
 * ($MULTIVERSE_PRESETS/batching.json, else the source tree's); *hops_per_s:
 * the rate one experiment alone reaches (its cost = its packet-hops over it).
 * max_batch > 0 overrides the file's. 0 or -1 with a message. */
int drv_cost_desc(const drv_machine_t *m, int ranks, int max_batch, shd_desc_t *d,
                  double *hops_per_s, char *err, size_t errlen);

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

/* ---- planning (drv_plan.c) ---- */

typedef struct drv_plan_t {
  int64_t skipped;    /* distinct experiments with results already */
  int64_t n_rows;     /* distinct experiments that cannot run: rows to write now */
  int64_t *row_index; /* their first index */
  ana_status_t *row_status;
  char **row_message;
  int64_t n_todo;  /* distinct experiments to run */
  int64_t *todo;   /* their first index */
  double *hops;    /* (n_todo) estimates */
  shd_exp_t *cost; /* (n_todo) */
  shd_desc_t desc;
  shd_plan_t plan;                    /* batches of todo positions */
  double hops_per_s, makespan, bound; /* s */
} drv_plan_t;

/* Builds every experiment that is to run (validation, memory, work),
 * decides what runs given the results in `done` and the options, and packs
 * batches for `ranks` ranks of machine m. 0, or -1 with a message. */
int drv_plan_make(const drv_job_t *j, const drv_done_t *done, const drv_opts_t *o,
                  const drv_machine_t *m, int ranks, drv_plan_t *p, char *err, size_t errlen);
void drv_plan_free(drv_plan_t *p);

/* The commands. */
int drv_run(int argc, char **argv);
int drv_plan(int argc, char **argv);
int drv_merge(int argc, char **argv);
int drv_report(int argc, char **argv);
int drv_fidelity(int argc, char **argv);

#endif

/* Job files (JSON, one per sweep): parsing, validation and expansion of `base` +
 * `sweep` (grid, zip, samples, include, exclude) into the list of experiments. */
#ifndef JOB_SWEEP_H
#define JOB_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* At most this many experiments in one job (grid x zip x samples, before filters). */
#define JOB_SWEEP_MAX 10000000LL
/* `name` (the run folder's name) and `output` (a file in it): bytes at most,
 * within any file system's 255. */
#define JOB_NAME_MAX 200
#define JOB_NAME_MAX_TEXT "200"

/* Every problem found in a job file, one line each: "FILE: JSON.PATH: what"
 * (or "FILE:LINE:COLUMN: what" when the file is not JSON). Zero-initialise. */
typedef struct job_sweep_errs_t {
  int n;      /* problems found */
  char *text; /* the lines, each ending in '\n'; NULL while n == 0 */
  size_t len, cap;
} job_sweep_errs_t;

void job_sweep_errs_add(job_sweep_errs_t *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void job_sweep_errs_free(job_sweep_errs_t *e);

typedef enum job_sweep_kind_t { JOB_SWEEP_NETWORK = 0, JOB_SWEEP_TRAINING = 1 } job_sweep_kind_t;

/* What values a swept key takes, for a results column. */
typedef enum job_sweep_type_t {
  JOB_SWEEP_INT = 0,    /* every value a JSON integer */
  JOB_SWEEP_REAL = 1,   /* numbers, at least one real */
  JOB_SWEEP_BOOL = 2,   /* true/false */
  JOB_SWEEP_STRING = 3, /* strings */
  JOB_SWEEP_JSON = 4    /* anything else (objects, arrays, mixed types): compact JSON text */
} job_sweep_type_t;

/* An expanded job. Experiments are numbered 0 .. count-1: the grid axes in file
 * order (the first varies slowest), then each zip group, then the sample points,
 * less excluded points; then the include entries in file order. */
typedef struct job_sweep_t job_sweep_t;

/* Reads, validates and expands the job file `path`. On success returns 0 and
 * *out; otherwise returns -1 with *out NULL and every problem found (not just
 * the first) added to errs. */
int job_sweep_load(const char *path, job_sweep_t **out, job_sweep_errs_t *errs);

/* The same from JSON text; `file` names it in messages. */
int job_sweep_parse(const char *file, const char *text, job_sweep_t **out, job_sweep_errs_t *errs);

void job_sweep_free(job_sweep_t *sw);

const char *job_sweep_name(const job_sweep_t *sw);   /* `name`, default the file's stem */
const char *job_sweep_output(const job_sweep_t *sw); /* `output`, default "results.nc" */
const char *job_sweep_file(const job_sweep_t *sw);   /* the file it came from */
int64_t job_sweep_count(const job_sweep_t *sw);      /* experiments */
/* Points the sample draws dropped as repeats, and include entries dropped
 * because they equal an experiment already in the list. */
int64_t job_sweep_dropped(const job_sweep_t *sw);

/* Experiment i: a deep copy of `base` with its overrides applied (new reference). */
json_t *job_sweep_experiment(const job_sweep_t *sw, int64_t i);

/* network or training: `kind` of the experiment if present, else training when
 * it has `model`, `training` or `workload`, else network. */
/* The experiment kinds jobs/ reads (job_exp_parse, job_train_parse,
 * job_coll_parse), NULL-terminated: the values of a job's base.kind. */
extern const char *const job_kinds[];
/* The experiment's kind: its "kind", else "training" when it has a model,
 * training or workload object, else "network". */
const char *job_sweep_kind_name(const json_t *experiment);
job_sweep_kind_t job_sweep_kind(const json_t *experiment);

/* Swept keys: grid axes, zip lists, sample axes in file order, then keys that
 * only include entries set. Dotted paths such as "network.cc". */
int job_sweep_n_axes(const job_sweep_t *sw);
const char *job_sweep_axis(const job_sweep_t *sw, int a);
job_sweep_type_t job_sweep_axis_type(const job_sweep_t *sw, int a);
/* The value of axis a in experiment i (borrowed; NULL where neither the
 * experiment nor `base` sets it). */
json_t *job_sweep_value(const job_sweep_t *sw, int64_t i, int a);

/* ---- refinement (job_refine.c) ----
 * `refine`: a stage or a list of stages. Stage s (1..n) keeps the best `keep`
 * experiments of stage s - 1 (stage 0: the sweep's) with a result by
 * `metric` and runs them again with `set` applied. Its keys are axes (after
 * the include-only ones). The driver appends the kept experiments, so
 * job_sweep_count grows; those from the sweep's count on are refined ones. */
typedef struct job_refine_t {
  const char *metric; /* a result column of the job's kind */
  int maximize;       /* order "max"; default "min": the smallest is best */
  int64_t keep;       /* experiments kept; 0 with keep_pct */
  double keep_pct;    /* percent of the stage's candidates, rounded up */
  const json_t *set;  /* {"dotted.key": value, ...} (borrowed from the file) */
  char where[64];     /* its JSON path: "refine" or "refine[k]" */
} job_refine_t;

int job_sweep_n_stages(const job_sweep_t *sw);
const job_refine_t *job_sweep_stage(const job_sweep_t *sw, int s); /* s = 1..n; else NULL */
/* A copy of experiment `exp` with the dotted keys of `set` set to its values
 * (objects made on the way), as the sweep sets its keys. */
json_t *job_sweep_with(const json_t *exp, const json_t *set);
/* A copy of experiment `exp` with stage s's keys set (NULL: no such stage). */
json_t *job_refine_apply(const job_sweep_t *sw, const json_t *exp, int s);
/* How many of n candidates stage r keeps (at least 1, at most n). */
int64_t job_refine_keep(const job_refine_t *r, int64_t n);
/* Appends experiment `from` with stage s's keys set: a stage-s experiment;
 * returns its index, -1 if s or from does not exist. */
int64_t job_sweep_refine_add(job_sweep_t *sw, int64_t from, int s);
/* The stage of experiment i (0: the sweep's), and the one it refines (-1). */
int job_sweep_exp_stage(const job_sweep_t *sw, int64_t i);
int64_t job_sweep_exp_refines(const job_sweep_t *sw, int64_t i);

/* Looks up a dotted path in a JSON object (borrowed; NULL if absent). */
json_t *job_sweep_get(const json_t *obj, const char *path);
/* 1 if a and b are the same value: json_equal, except that numbers compare by
 * value (1000 and 1000.0 are one experiment: their canonical forms and ids are
 * equal), in arrays and objects too. */
int job_same(const json_t *a, const json_t *b);

#endif

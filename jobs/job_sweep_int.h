/* Internals of the job-file expansion, shared by jobs/job_sweep*.c only. */
#ifndef JOB_SWEEP_INT_H
#define JOB_SWEEP_INT_H

#include "job_sweep.h"

/* How a sample axis draws its values. */
typedef enum job_dist_t {
  JOB_DIST_NONE = 0, /* not a sample axis */
  JOB_DIST_UNIFORM,  /* real in [lo, hi] */
  JOB_DIST_LOG,      /* real in [lo, hi], uniform in log */
  JOB_DIST_INT,      /* integer in [ilo, ihi] */
  JOB_DIST_CHOICE    /* one of `values` */
} job_dist_t;

typedef enum job_src_t { JOB_SRC_GRID, JOB_SRC_ZIP, JOB_SRC_SAMPLE, JOB_SRC_INCLUDE } job_src_t;

typedef struct job_axis_t {
  char *path;     /* dotted key */
  char *where;    /* JSON path of its definition, for messages */
  job_src_t src;  /* grid, zip, samples, or only include entries */
  int factor;     /* its factor in job_sweep_t.factors; -1 for include-only keys */
  int column;     /* zip: its list in the group; samples: its place in a point */
  json_t *values; /* grid/zip lists, choice lists (borrowed from the file) */
  job_dist_t dist;
  double lo, hi;    /* uniform, log */
  int64_t ilo, ihi; /* int */
  job_sweep_type_t type;
} job_axis_t;

/* A factor of the Cartesian product: one grid axis, one zip group, or the samples. */
typedef struct job_factor_t {
  int64_t size; /* values, rows or points */
} job_factor_t;

#define JOB_FACTORS_MAX 64

/* One exclude entry: per factor, which of its indices match (NULL: any). */
typedef struct job_excl_t {
  unsigned char *match[JOB_FACTORS_MAX];
} job_excl_t;

struct job_sweep_t {
  char *file, *name, *output;
  json_t *root; /* the whole file */
  json_t *base; /* borrowed from root */
  int n_axes, cap_axes;
  job_axis_t *axes;
  int n_factors;
  job_factor_t factors[JOB_FACTORS_MAX];
  int sample_factor; /* -1: no samples */
  int n_sample_axes;
  int64_t n_samples; /* points asked for */
  uint64_t seed;
  json_t *points; /* array of points, each an array of values (one per sample axis) */
  int n_excl;
  job_excl_t *excl;
  json_t *incl_in; /* sweep.include, sweep.exclude (borrowed; NULL if absent) */
  json_t *excl_in;
  json_t *incl;     /* configs of the include entries kept */
  int64_t n_combos; /* product of factor sizes */
  int64_t n_exp;
  int64_t *order; /* per experiment: combo index, or -1 - k for include entry k */
  int64_t dropped;
  /* refine stages (job_refine.c); experiments from n_sweep on are refined
   * ones, appended as include entries: the stage and the experiment each
   * refines */
  int n_stages;
  job_refine_t *stages;
  int64_t n_sweep;
  int *ref_stage;
  int64_t *ref_from;
};

/* Adds "FILE: WHERE: message" to errs. */
void job_err(job_sweep_errs_t *errs, const char *file, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Checks a dotted path's syntax and that `base` can take it (every prefix that
 * exists is an object); adds an error and returns -1 otherwise. */
int job_path_check(const job_sweep_t *sw, const char *where, const char *path,
                   job_sweep_errs_t *errs);
/* Sets a dotted path in obj to a new reference to v, creating objects on the way. */
void job_path_set(json_t *obj, const char *path, json_t *v);

/* Adds an axis; returns its index. */
int job_axis_add(job_sweep_t *sw, const char *path, const char *where, job_src_t src);
/* The axis with this path, or -1. */
int job_axis_find(const job_sweep_t *sw, const char *path);

/* Section parsers: each adds every problem it finds and returns how many. */
int job_parse_grid(job_sweep_t *sw, json_t *grid, job_sweep_errs_t *errs);
int job_parse_zip(job_sweep_t *sw, json_t *zip, job_sweep_errs_t *errs);
int job_parse_samples(job_sweep_t *sw, json_t *samples, job_sweep_errs_t *errs);
int job_parse_filters(job_sweep_t *sw, json_t *include, json_t *exclude, job_sweep_errs_t *errs);

/* `refine` (job_refine.c): its stages, and their keys as axes. */
int job_parse_refine(job_sweep_t *sw, json_t *refine, job_sweep_errs_t *errs);
/* After expansion: the refined keys' types take the values stages set. */
void job_refine_types(job_sweep_t *sw);
/* The type of a column that holds the values seen so far (type t; *any: some
 * were) and v. */
job_sweep_type_t job_type_add(job_sweep_type_t t, int *any, const json_t *v);

/* Draws the sample points (after job_parse_samples succeeded). */
int job_draw_samples(job_sweep_t *sw, job_sweep_errs_t *errs);
/* Lists the experiments (after every section parsed without a problem). */
int job_expand(job_sweep_t *sw, job_sweep_errs_t *errs);
/* Indices of combo c per factor. */
void job_combo_split(const job_sweep_t *sw, int64_t c, int64_t *idx);
/* Value of axis a at factor index idx (borrowed). */
json_t *job_axis_at(const job_sweep_t *sw, int a, int64_t idx);

#endif

/* Results: a table of experiments (swept parameters, results, status, id,
 * config) kept in memory, written to and read from CF-1.11 NetCDF-4 files;
 * shard merge; the text report. */
#ifndef ANA_H
#define ANA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/base_status.h"

/* What became of an experiment (variable `status`, flag_values 0..4): engine/base's
 * one list (base_status.h), ANA_OK... with the values of BASE_OK... */
typedef enum ana_status_t {
#define ANA_STATUS_ENUM(e, name) ANA_##e = BASE_##e,
  BASE_STATUSES(ANA_STATUS_ENUM)
#undef ANA_STATUS_ENUM
      ANA_STATUS_N
} ana_status_t;

/* CF's flag_meanings: the names, space-separated. */
#define ANA_STATUS_WORD(e, name) " " #name
#define ANA_STATUS_MEANINGS (&(BASE_STATUSES(ANA_STATUS_WORD))[1])

/* "ok", "oom", ...; "?" outside the list. */
const char *ana_status_name(int s);

/* Missing values: NaN for doubles, this for int64 (netCDF's NC_FILL_INT64), NULL
 * or "" for strings. */
#define ANA_FILL_INT64 ((int64_t)-9223372036854775806LL)

typedef enum ana_type_t { ANA_DOUBLE = 0, ANA_INT64 = 1, ANA_STRING = 2 } ana_type_t;

/* A column: a swept parameter (key set) or a result (key NULL). */
typedef struct ana_col_t {
  const char *name; /* variable name: a letter, then letters, digits, '_' */
  ana_type_t type;
  const char *units;     /* CF units ("s", "1" for counts); NULL: none */
  const char *long_name; /* NULL: the key, else the name */
  const char *key;       /* the swept key, e.g. "network.cc"; NULL for a result */
} ana_col_t;

/* One cell; the field of the column's type is used. */
typedef struct ana_value_t {
  double d;
  int64_t i;
  const char *s;
} ana_value_t;

/* One experiment. */
typedef struct ana_row_t {
  int64_t index;  /* its place in the job's expansion */
  const char *id; /* experiment_id */
  ana_status_t status;
  const char *message;       /* why it is not ok; NULL: "" */
  const char *config;        /* its configuration, canonical JSON */
  const ana_value_t *values; /* one per column */
} ana_row_t;

typedef struct ana_table_t ana_table_t;

/* A table with these columns (copied). Returns NULL with a message for a bad
 * or repeated name. */
ana_table_t *ana_table_create(const ana_col_t *cols, int n_cols, char *err, size_t errlen);
void ana_table_free(ana_table_t *t);
void ana_table_append(ana_table_t *t, const ana_row_t *row);
/* Sets a global attribute (text); a later value replaces an earlier one. */
void ana_table_set_attr(ana_table_t *t, const char *name, const char *value);

int ana_table_n_cols(const ana_table_t *t);
const ana_col_t *ana_table_col(const ana_table_t *t, int c);
/* The column with this name or swept key, or -1. */
int ana_table_find(const ana_table_t *t, const char *name_or_key);
int64_t ana_table_n_rows(const ana_table_t *t);
/* Row r (pointers valid until the table changes). */
ana_row_t ana_table_row(const ana_table_t *t, int64_t r);
/* Cell (r, c); its string stays valid until the table changes. */
ana_value_t ana_table_value(const ana_table_t *t, int64_t r, int c);
const char *ana_table_attr(const ana_table_t *t, const char *name); /* NULL if absent */
int ana_table_n_attrs(const ana_table_t *t);
const char *ana_table_attr_name(const ana_table_t *t, int k);

/* A variable name for a swept key: '.' and other characters become '_'. */
void ana_var_name(const char *key, char *buf, size_t len);

/* Where a results file came from. */
typedef struct ana_prov_t {
  const char *title;    /* e.g. the job's name */
  const char *job_file; /* the job file's name */
  const char *backend;  /* "cpu" or "cuda" */
  const char *gpu;      /* GPU model; NULL: none */
} ana_prov_t;

/* Sets the provenance attributes: title, job_file, backend, gpu, and from this
 * build and machine multiverse_version, git_revision, hostname, slurm_job_id
 * ($SLURM_JOB_ID, else ""), date_created (UTC, ISO 8601; $SOURCE_DATE_EPOCH if
 * set). */
void ana_provenance(ana_table_t *t, const ana_prov_t *p);
/* The current time as date_created writes it. */
void ana_now(char *buf, size_t len);

/* Writes the table as CF-1.11 NetCDF-4 (record dimension `experiment`) to
 * PATH, created or replaced (removed again on an error). The program writes
 * through the driver's output rule (drv_out_table: a temporary copy renamed
 * over PATH). Returns 0 or -1 with a message naming the file. */
int ana_write(const ana_table_t *t, const char *path, char *err, size_t errlen);

/* Reads a file ana_write wrote. Returns NULL with a message naming the file
 * (and the variable) otherwise. */
ana_table_t *ana_read(const char *path, char *err, size_t errlen);

/* Merges shard files into one results file at `out`: rows ordered by index;
 * each experiment_id once: of its rows the one with the lowest status wins (ok
 * over oom over invalid over failed over timed_out), then the one of the shard
 * whose path sorts first, then the earlier row. Two experiments with one index,
 * or columns that differ between shards, are errors; so is, when expected > 0,
 * an index outside 0 .. expected-1 or a missing one. Global attributes: a value
 * every shard agrees on is kept, different ones are listed (sorted, ", ");
 * date_created is the merge's and `shards` the count. */
int ana_merge(const char *out, const char *const *shards, int n_shards, int64_t expected, char *err,
              size_t errlen);

/* A job's results from its shards, by experiment id. `want` has one row per
 * experiment of the job (index, id, config and swept values; its status,
 * message and result cells are ignored) and the output's columns. Each row
 * takes, of the shard rows with its experiment_id, the one with the lowest
 * status, then of the earliest shard in `shards` (the caller's priority
 * order, e.g. paths sorted), then the earlier row: its status, message and
 * result columns (want's columns without a key, found in the shard by name
 * and type). So experiments that repeat one configuration share its row, and
 * shard rows whose id the job no longer has are ignored. An experiment
 * without a row is left out and counted in *missing (*first_missing: the
 * first index, else -1); unless allow_missing that is an error. Global
 * attributes: want's, then the shards' as ana_merge sets them. `names` name
 * the shards in messages. Returns the table, or NULL with a message. */
ana_table_t *ana_collect(const ana_table_t *want, ana_table_t *const *shards,
                         const char *const *names, int n, int allow_missing, int64_t *missing,
                         int64_t *first_missing, char *err, size_t errlen);

/* Spearman's rank correlation of a[k] and b[k] (ties: average ranks); NaN
 * when either is constant. */
double ana_spearman(const double *a, const double *b, int64_t n);

/* What `multiverse report` shows. Zero is a valid default for every field. */
typedef struct ana_report_desc_t {
  const char *metric;   /* column to rank by; NULL: the first double result */
  int higher_is_better; /* 0: lower is better */
  const char *by;       /* swept parameter to break down by; NULL: every one */
  int top;              /* best experiments listed; 0: 10 */
} ana_report_desc_t;

/* Prints to out: a header (experiments by status, the metric), the `top` best
 * ok experiments with their swept parameters and ids, then for each value of
 * each swept parameter (or `by`) the count of ok experiments, the best and the
 * median metric, and how many were not ok. `name` heads the report (the file).
 * A refined search's results (refine.stage, refine.of): the best of its last
 * stage, then each stage's experiments with their rank and metric at the
 * stage before and the two stages' rank correlation, then the effects over
 * the sweep's (stage 0) experiments.
 * Returns 0, or -1 with a message for an unknown metric or parameter. */
int ana_report(FILE *out, const char *name, const ana_table_t *t, const ana_report_desc_t *d,
               char *err, size_t errlen);

#endif

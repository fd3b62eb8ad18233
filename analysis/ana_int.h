/* Internals of the results table, shared by analysis/ana_*.c only. */
#ifndef ANA_INT_H
#define ANA_INT_H

#include "ana.h"

/* A column's description (owned strings) and its cells. */
typedef struct ana_column_t {
  ana_col_t col;
  double *d;  /* ANA_DOUBLE */
  int64_t *i; /* ANA_INT64 */
  char **s;   /* ANA_STRING (never NULL cells) */
} ana_column_t;

struct ana_table_t {
  int n_cols;
  ana_column_t *cols;
  int64_t n_rows, cap;
  int64_t *index;
  char **id, **message, **config;
  unsigned char *status;
  int n_attrs;
  char **attr_name, **attr_value;
};

/* Fixed variables every results file has (besides the columns). */
#define ANA_V_INDEX "experiment_index"
#define ANA_V_ID "experiment_id"
#define ANA_V_STATUS "status"
#define ANA_V_MESSAGE "message"
#define ANA_V_CONFIG "config_json"
#define ANA_DIM "experiment"

/* strdup of s, or of "" for NULL; aborts when out of memory. */
char *ana_strdup(const char *s);

/* Global attributes of a merge: for each attribute of the shards `in` that
 * `out` does not set yet, their common value, or their distinct values sorted
 * and joined by ", "; then date_created (now) and shards (n). */
void ana_merge_attrs(ana_table_t *out, ana_table_t *const *in, int n);

#endif

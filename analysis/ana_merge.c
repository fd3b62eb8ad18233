/* Results: merging shard files into one results file, each experiment once, in
 * the order of the job's expansion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ana_int.h"

/* A row of a shard. */
typedef struct ref_t {
  const ana_table_t *t;
  int shard; /* place of its shard in path order */
  int64_t row;
} ref_t;

static int by_path(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int by_string(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* experiment_id, then the winner first: lower status, earlier shard, earlier row. */
static int by_id(const void *pa, const void *pb) {
  const ref_t *a = pa, *b = pb;
  int c = strcmp(a->t->id[a->row], b->t->id[b->row]);
  if (c) return c;
  if (a->t->status[a->row] != b->t->status[b->row])
    return a->t->status[a->row] < b->t->status[b->row] ? -1 : 1;
  if (a->shard != b->shard) return a->shard < b->shard ? -1 : 1;
  return a->row < b->row ? -1 : a->row > b->row;
}

static int by_index(const void *pa, const void *pb) {
  const ref_t *a = pa, *b = pb;
  int64_t x = a->t->index[a->row], y = b->t->index[b->row];
  return x < y ? -1 : x > y;
}

static int same_str(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Do two shards have the same columns? Names the first difference. */
static int same_columns(const ana_table_t *a, const ana_table_t *b, char *what, size_t len) {
  if (a->n_cols != b->n_cols) {
    snprintf(what, len, "%d columns, not %d", b->n_cols, a->n_cols);
    return 0;
  }
  for (int c = 0; c < a->n_cols; c++) {
    const ana_col_t *x = &a->cols[c].col, *y = &b->cols[c].col;
    if (strcmp(x->name, y->name) || x->type != y->type || !same_str(x->units, y->units) ||
        !same_str(x->key, y->key)) {
      snprintf(what, len, "column %d is %s, not %s (or its type, units or key differ)", c, y->name,
               x->name);
      return 0;
    }
  }
  return 1;
}

void ana_merge_attrs(ana_table_t *out, ana_table_t *const *in, int n) {
  for (int s = 0; s < n; s++)
    for (int k = 0; k < in[s]->n_attrs; k++) {
      const char *name = in[s]->attr_name[k];
      if (ana_table_attr(out, name) || !strcmp(name, "date_created") || !strcmp(name, "shards"))
        continue;
      const char **vals = calloc((size_t)n, sizeof *vals);
      if (!vals) abort();
      int nv = 0;
      for (int j = 0; j < n; j++) {
        const char *v = ana_table_attr(in[j], name);
        if (v) vals[nv++] = v;
      }
      qsort(vals, (size_t)nv, sizeof *vals, by_string);
      size_t len = 1;
      for (int j = 0; j < nv; j++)
        len += strlen(vals[j]) + 2;
      char *joined = calloc(len, 1);
      if (!joined) abort();
      for (int j = 0; j < nv; j++)
        if (j == 0 || strcmp(vals[j], vals[j - 1])) {
          if (joined[0]) strcat(joined, ", ");
          strcat(joined, vals[j]);
        }
      ana_table_set_attr(out, name, joined);
      free(joined);
      free(vals);
    }
  char now[64], count[32];
  ana_now(now, sizeof now);
  snprintf(count, sizeof count, "%d", n);
  ana_table_set_attr(out, "date_created", now);
  ana_table_set_attr(out, "shards", count);
}

/* Picks each experiment's row and orders them; returns how many, or -1. */
static int64_t pick(ref_t *refs, int64_t n, int64_t expected, char *err, size_t errlen) {
  qsort(refs, (size_t)n, sizeof *refs, by_id);
  int64_t m = 0;
  for (int64_t k = 0; k < n; k++)
    if (m == 0 || strcmp(refs[m - 1].t->id[refs[m - 1].row], refs[k].t->id[refs[k].row]))
      refs[m++] = refs[k];
  qsort(refs, (size_t)m, sizeof *refs, by_index);
  for (int64_t k = 0; k < m; k++) {
    int64_t idx = refs[k].t->index[refs[k].row];
    if (k && idx == refs[k - 1].t->index[refs[k - 1].row]) {
      snprintf(err, errlen, "experiment index %lld holds two experiments (ids %s and %s)",
               (long long)idx, refs[k - 1].t->id[refs[k - 1].row], refs[k].t->id[refs[k].row]);
      return -1;
    }
    if (expected > 0 && (idx < 0 || idx >= expected)) {
      snprintf(err, errlen, "experiment index %lld outside 0 .. %lld", (long long)idx,
               (long long)expected - 1);
      return -1;
    }
    if (expected > 0 && idx != k) {
      snprintf(err, errlen, "%lld of %lld experiments missing (the first: index %lld)",
               (long long)(expected - m), (long long)expected, (long long)k);
      return -1;
    }
  }
  if (expected > 0 && m != expected) {
    snprintf(err, errlen, "%lld of %lld experiments missing (the first: index %lld)",
             (long long)(expected - m), (long long)expected, (long long)m);
    return -1;
  }
  return m;
}

int ana_merge(const char *out, const char *const *shards, int n, int64_t expected, char *err,
              size_t errlen) {
  if (n < 1) {
    snprintf(err, errlen, "%s: no shard files to merge", out);
    return -1;
  }
  const char **paths = malloc((size_t)n * sizeof *paths);
  ana_table_t **in = calloc((size_t)n, sizeof *in);
  if (!paths || !in) abort();
  memcpy(paths, shards, (size_t)n * sizeof *paths);
  qsort(paths, (size_t)n, sizeof *paths, by_path);
  int rc = -1;
  int64_t rows = 0;
  ref_t *refs = NULL;
  ana_table_t *res = NULL;
  char what[256];
  for (int s = 0; s < n; s++) {
    if (!(in[s] = ana_read(paths[s], err, errlen))) goto done;
    if (s && !same_columns(in[0], in[s], what, sizeof what)) {
      snprintf(err, errlen, "%s: %s in %s", paths[s], what, paths[0]);
      goto done;
    }
    rows += in[s]->n_rows;
  }
  refs = malloc(((size_t)rows + 1) * sizeof *refs);
  if (!refs) abort();
  int64_t k = 0;
  for (int s = 0; s < n; s++)
    for (int64_t r = 0; r < in[s]->n_rows; r++)
      refs[k++] = (ref_t){in[s], s, r};
  char msg[512];
  int64_t m = pick(refs, rows, expected, msg, sizeof msg);
  if (m < 0) {
    snprintf(err, errlen, "%s: %s", out, msg);
    goto done;
  }
  ana_col_t *cols = calloc((size_t)in[0]->n_cols + 1, sizeof *cols);
  ana_value_t *vals = calloc((size_t)in[0]->n_cols + 1, sizeof *vals);
  if (!cols || !vals) abort();
  for (int c = 0; c < in[0]->n_cols; c++)
    cols[c] = in[0]->cols[c].col;
  res = ana_table_create(cols, in[0]->n_cols, err, errlen);
  for (int64_t j = 0; res && j < m; j++) {
    const ana_table_t *t = refs[j].t;
    int64_t r = refs[j].row;
    for (int c = 0; c < t->n_cols; c++)
      vals[c] = ana_table_value(t, r, c);
    ana_row_t row = ana_table_row(t, r);
    row.values = vals;
    ana_table_append(res, &row);
  }
  free(cols);
  free(vals);
  if (res) {
    ana_merge_attrs(res, in, n);
    rc = ana_write(res, out, err, errlen);
  }
done:
  for (int s = 0; s < n; s++)
    ana_table_free(in[s]);
  ana_table_free(res);
  free(in);
  free(paths);
  free(refs);
  return rc;
}

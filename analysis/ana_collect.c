/* Results: a job's results gathered from shard tables by experiment id, one
 * row per experiment of the job (rows of one id shared by every experiment
 * that repeats it; rows of ids the job no longer has ignored). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ana_int.h"

typedef struct pick_t {
  const char *id;
  int status;
  int shard; /* priority: lower first */
  int64_t row;
} pick_t;

static int by_id_then_best(const void *pa, const void *pb) {
  const pick_t *a = pa, *b = pb;
  int c = strcmp(a->id, b->id);
  if (c) return c;
  if (a->status != b->status) return a->status < b->status ? -1 : 1;
  if (a->shard != b->shard) return a->shard < b->shard ? -1 : 1;
  return a->row < b->row ? -1 : a->row > b->row;
}

/* The best row of `id` among the first n picks (sorted, one per id), or NULL. */
static const pick_t *find(const pick_t *p, int64_t n, const char *id) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    int c = strcmp(p[mid].id, id);
    if (c == 0) return &p[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* Column of shard t holding want's column c (same name and type), or -1. */
static int shard_col(const ana_table_t *t, const ana_col_t *c) {
  for (int k = 0; k < t->n_cols; k++)
    if (strcmp(t->cols[k].col.name, c->name) == 0 && t->cols[k].col.type == c->type) return k;
  return -1;
}

ana_table_t *ana_collect(const ana_table_t *want, ana_table_t *const *shards,
                         const char *const *names, int n, int allow_missing, int64_t *missing,
                         int64_t *first_missing, char *err, size_t errlen) {
  int64_t rows = 0, m = 0;
  for (int s = 0; s < n; s++)
    rows += shards[s]->n_rows;
  pick_t *p = malloc(((size_t)rows + 1) * sizeof *p);
  int *map = malloc(((size_t)n * (size_t)want->n_cols + 1) * sizeof *map);
  ana_col_t *cols = calloc((size_t)want->n_cols + 1, sizeof *cols);
  ana_value_t *vals = calloc((size_t)want->n_cols + 1, sizeof *vals);
  if (!p || !map || !cols || !vals) abort();
  for (int s = 0; s < n; s++) {
    for (int64_t r = 0; r < shards[s]->n_rows; r++)
      p[m++] = (pick_t){shards[s]->id[r], shards[s]->status[r], s, r};
    for (int c = 0; c < want->n_cols; c++)
      map[s * want->n_cols + c] = shard_col(shards[s], &want->cols[c].col);
  }
  qsort(p, (size_t)m, sizeof *p, by_id_then_best);
  int64_t u = 0;
  for (int64_t k = 0; k < m; k++)
    if (u == 0 || strcmp(p[u - 1].id, p[k].id) != 0) p[u++] = p[k];
  for (int c = 0; c < want->n_cols; c++)
    cols[c] = want->cols[c].col;
  ana_table_t *out = ana_table_create(cols, want->n_cols, err, errlen);
  *missing = 0;
  *first_missing = -1;
  for (int64_t r = 0; out && r < want->n_rows; r++) {
    const pick_t *k = find(p, u, want->id[r]);
    if (!k) {
      if (!(*missing)++) *first_missing = want->index[r];
      continue;
    }
    const ana_table_t *t = shards[k->shard];
    for (int c = 0; c < want->n_cols; c++) {
      int sc = map[k->shard * want->n_cols + c];
      if (want->cols[c].col.key) {
        vals[c] = ana_table_value(want, r, c);
      } else if (sc >= 0) {
        vals[c] = ana_table_value(t, k->row, sc);
      } else {
        snprintf(err, errlen, "%s: no results column %s (%s) for experiment %s", names[k->shard],
                 want->cols[c].col.name,
                 want->cols[c].col.type == ANA_DOUBLE  ? "double"
                 : want->cols[c].col.type == ANA_INT64 ? "int64"
                                                       : "string",
                 want->id[r]);
        ana_table_free(out);
        out = NULL;
        break;
      }
    }
    if (!out) break;
    ana_row_t row = ana_table_row(want, r);
    row.status = (ana_status_t)t->status[k->row];
    row.message = t->message[k->row];
    row.values = vals;
    ana_table_append(out, &row);
  }
  if (out && *missing && !allow_missing) {
    snprintf(err, errlen, "%lld of %lld experiments have no results (the first: index %lld)",
             (long long)*missing, (long long)want->n_rows, (long long)*first_missing);
    ana_table_free(out);
    out = NULL;
  }
  if (out) {
    for (int k = 0; k < want->n_attrs; k++)
      ana_table_set_attr(out, want->attr_name[k], want->attr_value[k]);
    ana_merge_attrs(out, shards, n);
  }
  free(p);
  free(map);
  free(cols);
  free(vals);
  return out;
}

/* Results: `multiverse report`: the best experiments by a metric, and each swept
 * parameter's effect on it (per value: best and median), as terminal tables;
 * for a refined search (columns refine.stage and refine.of) the best of its
 * last stage, the effects over the whole sweep, and each stage's ranks
 * against the stage before. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ana_int.h"

/* Values of a numeric parameter beyond which it is shown in ANA_BINS bins of
 * equal count (sampled parameters). */
#define ANA_GROUPS_MAX 20
#define ANA_BINS 10


/* A text table: cells row-major, `cols` per row; right[c]: right-aligned. */
typedef struct grid_t {
  int cols, n, cap;
  char **cell;
  const int *right;
} grid_t;

static void put(grid_t *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(grid_t *g, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (g->n == g->cap) {
    g->cap = g->cap ? 2 * g->cap : 64;
    g->cell = realloc(g->cell, (size_t)g->cap * sizeof *g->cell);
    if (!g->cell) abort();
  }
  g->cell[g->n++] = ana_strdup(buf);
}

/* Prints the table, columns two spaces apart, no trailing blanks; frees it. */
static void grid_print(FILE *out, grid_t *g) {
  int *w = calloc((size_t)g->cols, sizeof *w);
  if (!w) abort();
  for (int k = 0; k < g->n; k++) {
    int len = (int)strlen(g->cell[k]);
    if (len > w[k % g->cols]) w[k % g->cols] = len;
  }
  size_t line_len = 1;
  for (int c = 0; c < g->cols; c++)
    line_len += (size_t)w[c] + 2;
  char *line = malloc(line_len);
  if (!line) abort();
  for (int r = 0; r < g->n / g->cols; r++) {
    size_t n = 0;
    for (int c = 0; c < g->cols; c++) {
      const char *s = g->cell[r * g->cols + c];
      n += (size_t)sprintf(line + n, g->right[c] ? "%s%*s" : "%s%-*s", c ? "  " : "", w[c], s);
    }
    while (n > 0 && line[n - 1] == ' ')
      n--;
    line[n] = '\0';
    fprintf(out, "%s\n", line);
  }
  for (int k = 0; k < g->n; k++)
    free(g->cell[k]);
  free(g->cell);
  free(line);
  free(w);
}

static int missing(const ana_table_t *t, int c, int64_t r) {
  ana_value_t v = ana_table_value(t, r, c);
  switch (t->cols[c].col.type) {
  case ANA_DOUBLE:
    return isnan(v.d);
  case ANA_INT64:
    return v.i == ANA_FILL_INT64;
  default:
    return !v.s || !v.s[0];
  }
}

static double number(const ana_table_t *t, int c, int64_t r) {
  if (missing(t, c, r)) return NAN;
  ana_value_t v = ana_table_value(t, r, c);
  return t->cols[c].col.type == ANA_DOUBLE ? v.d : (double)v.i;
}

static void put_cell(grid_t *g, const ana_table_t *t, int c, int64_t r) {
  ana_value_t v = ana_table_value(t, r, c);
  if (missing(t, c, r))
    put(g, "-");
  else if (t->cols[c].col.type == ANA_DOUBLE)
    put(g, "%.6g", v.d);
  else if (t->cols[c].col.type == ANA_INT64)
    put(g, "%lld", (long long)v.i);
  else
    put(g, "%s", v.s);
}

static const char *header(const ana_col_t *col) {
  return col->key ? col->key : col->name;
}

/* A row and its sort key. */
typedef struct item_t {
  double v;
  int64_t index, row;
} item_t;

static int by_value(const void *pa, const void *pb) {
  const item_t *a = pa, *b = pb;
  if (a->v != b->v) return a->v < b->v ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static int by_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return a < b ? -1 : a > b;
}

/* One value (or bin) of a swept parameter and the metric of its experiments. */
typedef struct group_t {
  char label[96];
  double *vals; /* metric of its ok experiments */
  int n, cap, not_ok;
} group_t;

typedef struct ctx_t {
  const ana_table_t *t;
  int metric;
  int higher;    /* 1: higher is better */
  int stage_col; /* refine.stage, -1: none */
  int of_col;    /* refine.of */
  int64_t stage; /* the rows considered: this stage's */
} ctx_t;

/* Whether row r is of the stage considered. */
static int in_stage(const ctx_t *x, int64_t r) {
  return x->stage_col < 0 || ana_table_value(x->t, r, x->stage_col).i == x->stage;
}

/* Columns the report lists: swept keys, not the refinement's bookkeeping. */
static int listed(const ana_col_t *c) {
  return c->key && strncmp(c->key, "refine.", 7) != 0;
}

/* Counts row r into group g. */
static void tally(const ctx_t *x, group_t *g, int64_t r) {
  double m = number(x->t, x->metric, r);
  if (x->t->status[r] != ANA_OK) {
    g->not_ok++;
    return;
  }
  if (isnan(m)) return;
  if (g->n == g->cap) {
    g->cap = g->cap ? 2 * g->cap : 16;
    g->vals = realloc(g->vals, (size_t)g->cap * sizeof *g->vals);
    if (!g->vals) abort();
  }
  g->vals[g->n++] = m;
}

/* Groups of a numeric parameter: one per value, or ANA_BINS bins of equal
 * count ("low - high") when it has more than ANA_GROUPS_MAX values. */
static int numeric_groups(const ctx_t *x, int c, group_t *gs) {
  const ana_table_t *t = x->t;
  item_t *it = malloc(((size_t)t->n_rows + 1) * sizeof *it);
  if (!it) abort();
  int64_t n = 0, distinct = 0;
  for (int64_t r = 0; r < t->n_rows; r++)
    if (!missing(t, c, r) && in_stage(x, r)) it[n++] = (item_t){number(t, c, r), t->index[r], r};
  qsort(it, (size_t)n, sizeof *it, by_value);
  for (int64_t k = 0; k < n; k++)
    distinct += k == 0 || it[k].v != it[k - 1].v;
  int binned = distinct > ANA_GROUPS_MAX, ng = 0;
  double lo = 0;
  for (int64_t k = 0; k < n; k++) {
    int fresh =
        k == 0 || (binned ? k * ANA_BINS / n != (k - 1) * ANA_BINS / n : it[k].v != it[k - 1].v);
    if (fresh) lo = it[k].v;
    group_t *g = &gs[fresh ? ng++ : ng - 1];
    if (binned)
      snprintf(g->label, sizeof g->label, "%.6g - %.6g", lo, it[k].v);
    else if (t->cols[c].col.type == ANA_INT64)
      snprintf(g->label, sizeof g->label, "%lld", (long long)it[k].v);
    else
      snprintf(g->label, sizeof g->label, "%.6g", it[k].v);
    tally(x, g, it[k].row);
  }
  free(it);
  return ng;
}

/* Groups of a text parameter, in order of first appearance. */
static int string_groups(const ctx_t *x, int c, group_t *gs) {
  int ng = 0;
  for (int64_t r = 0; r < x->t->n_rows; r++) {
    if (missing(x->t, c, r) || !in_stage(x, r)) continue;
    const char *s = x->t->cols[c].s[r];
    int g = 0;
    while (g < ng && strcmp(gs[g].label, s))
      g++;
    if (g == ng) snprintf(gs[ng++].label, sizeof gs[0].label, "%s", s);
    tally(x, &gs[g], r);
  }
  return ng;
}

/* The table of one swept parameter: per value, ok count, best, median, not ok. */
static void effect(FILE *out, const ctx_t *x, int c) {
  const ana_table_t *t = x->t;
  group_t *gs = calloc((size_t)t->n_rows + 2, sizeof *gs);
  if (!gs) abort();
  int ng = t->cols[c].col.type == ANA_STRING ? string_groups(x, c, gs) : numeric_groups(x, c, gs);
  snprintf(gs[ng].label, sizeof gs[ng].label, "-");
  for (int64_t r = 0; r < t->n_rows; r++)
    if (missing(t, c, r) && in_stage(x, r)) tally(x, &gs[ng], r);
  if (gs[ng].n + gs[ng].not_ok > 0) ng++;
  static const int right[] = {0, 1, 1, 1, 1};
  grid_t g = {.cols = 5, .right = right};
  put(&g, "%s", header(&t->cols[c].col));
  put(&g, "ok");
  put(&g, "best");
  put(&g, "median");
  put(&g, "not_ok");
  for (int k = 0; k < ng; k++) {
    group_t *gr = &gs[k];
    if (gr->n) qsort(gr->vals, (size_t)gr->n, sizeof *gr->vals, by_double); /* NULL when empty */
    put(&g, "%s", gr->label);
    put(&g, "%d", gr->n);
    if (gr->n == 0) {
      put(&g, "-");
      put(&g, "-");
    } else {
      put(&g, "%.6g", x->higher ? gr->vals[gr->n - 1] : gr->vals[0]);
      int h = gr->n / 2;
      put(&g, "%.6g", gr->n % 2 ? gr->vals[h] : (gr->vals[h - 1] + gr->vals[h]) / 2);
    }
    put(&g, "%d", gr->not_ok);
  }
  fprintf(out, "\nby %s:\n", header(&t->cols[c].col));
  grid_print(out, &g);
  for (int64_t k = 0; k < t->n_rows + 2; k++)
    free(gs[k].vals);
  free(gs);
}

/* The `top` best ok experiments with their swept parameters and ids. */
static void best(FILE *out, const ctx_t *x, int top) {
  const ana_table_t *t = x->t;
  item_t *it = malloc(((size_t)t->n_rows + 1) * sizeof *it);
  int *right = calloc((size_t)t->n_cols + 3, sizeof *right);
  if (!it || !right) abort();
  int64_t n = 0;
  for (int64_t r = 0; r < t->n_rows; r++) {
    double m = number(t, x->metric, r);
    if (t->status[r] == ANA_OK && !isnan(m) && in_stage(x, r))
      it[n++] = (item_t){x->higher ? -m : m, t->index[r], r};
  }
  qsort(it, (size_t)n, sizeof *it, by_value);
  int cols = 3;
  right[0] = right[1] = 1;
  for (int c = 0; c < t->n_cols; c++)
    if (listed(&t->cols[c].col)) {
      right[cols - 1] = t->cols[c].col.type != ANA_STRING; /* before experiment_id */
      cols++;
    }
  grid_t g = {.cols = cols, .right = right};
  put(&g, "rank");
  put(&g, "%s", t->cols[x->metric].col.name);
  for (int c = 0; c < t->n_cols; c++)
    if (listed(&t->cols[c].col)) put(&g, "%s", header(&t->cols[c].col));
  put(&g, "experiment_id");
  int64_t shown = n < top ? n : top;
  for (int64_t k = 0; k < shown; k++) {
    put(&g, "%lld", (long long)k + 1);
    put_cell(&g, t, x->metric, it[k].row);
    for (int c = 0; c < t->n_cols; c++)
      if (listed(&t->cols[c].col)) put_cell(&g, t, c, it[k].row);
    put(&g, "%s", t->id[it[k].row]);
  }
  int64_t not_ok = 0, rows = 0;
  for (int64_t r = 0; r < t->n_rows; r++)
    if (in_stage(x, r)) {
      rows++;
      not_ok += t->status[r] != ANA_OK;
    }
  fprintf(out, "\nbest %lld of %lld ok experiments", (long long)shown, (long long)n);
  if (x->stage_col >= 0) fprintf(out, " of refine stage %lld", (long long)x->stage);
  if (not_ok || n + not_ok < rows) { /* what was left out, and why */
    fprintf(out, " (");
    if (not_ok) fprintf(out, "%lld not ok", (long long)not_ok);
    if (n + not_ok < rows)
      fprintf(out, "%s%lld without a value", not_ok ? ", " : "", (long long)(rows - n - not_ok));
    fprintf(out, ", skipped)");
  }
  fprintf(out, ":\n");
  grid_print(out, &g);
  free(it);
  free(right);
}

/* Ranks (1: the best) of stage s's ok rows with the metric into rank[row]
 * (0 elsewhere); returns how many were ranked. */
static int64_t stage_ranks(const ctx_t *x, int64_t s, int64_t *rank) {
  const ana_table_t *t = x->t;
  item_t *it = malloc(((size_t)t->n_rows + 1) * sizeof *it);
  if (!it) abort();
  int64_t n = 0;
  for (int64_t r = 0; r < t->n_rows; r++) {
    double m = number(t, x->metric, r);
    rank[r] = 0;
    if (ana_table_value(t, r, x->stage_col).i == s && t->status[r] == ANA_OK && !isnan(m))
      it[n++] = (item_t){x->higher ? -m : m, t->index[r], r};
  }
  qsort(it, (size_t)n, sizeof *it, by_value);
  for (int64_t k = 0; k < n; k++)
    rank[it[k].row] = k + 1;
  free(it);
  return n;
}

/* Ranks of v[0..n) (1 = smallest; ties share their average rank). */
static void avg_ranks(const double *v, int64_t n, double *out) {
  item_t *it = malloc(((size_t)n + 1) * sizeof *it);
  if (!it) abort();
  for (int64_t k = 0; k < n; k++)
    it[k] = (item_t){v[k], k, k};
  qsort(it, (size_t)n, sizeof *it, by_value);
  for (int64_t k = 0; k < n;) {
    int64_t e = k;
    while (e + 1 < n && it[e + 1].v == it[k].v)
      e++;
    for (int64_t q = k; q <= e; q++)
      out[it[q].row] = (double)(k + e) / 2 + 1;
    k = e + 1;
  }
  free(it);
}

double ana_spearman(const double *a, const double *b, int64_t n) {
  double *ra = malloc(((size_t)n + 1) * sizeof *ra), *rb = malloc(((size_t)n + 1) * sizeof *rb);
  if (!ra || !rb) abort();
  avg_ranks(a, n, ra);
  avg_ranks(b, n, rb);
  double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
  for (int64_t k = 0; k < n; k++) {
    ma += ra[k] / (double)n;
    mb += rb[k] / (double)n;
  }
  for (int64_t k = 0; k < n; k++) {
    sab += (ra[k] - ma) * (rb[k] - mb);
    saa += (ra[k] - ma) * (ra[k] - ma);
    sbb += (rb[k] - mb) * (rb[k] - mb);
  }
  free(ra);
  free(rb);
  return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
}

/* Each refine stage against the one before: the kept experiments by their
 * rank at this stage, their rank and metric at the stage before, the ratio,
 * and the rank correlation of the two. */
static void refinement(FILE *out, const ctx_t *x, int64_t last) {
  const ana_table_t *t = x->t;
  int64_t n = t->n_rows, top_index = 0;
  for (int64_t r = 0; r < n; r++)
    if (t->index[r] > top_index) top_index = t->index[r];
  int64_t *rank0 = malloc(((size_t)n + 1) * sizeof *rank0);
  int64_t *rank1 = malloc(((size_t)n + 1) * sizeof *rank1);
  int64_t *row_of = malloc(((size_t)top_index + 2) * sizeof *row_of);
  item_t *it = malloc(((size_t)n + 1) * sizeof *it);
  double *a = malloc(((size_t)n + 1) * sizeof *a), *b = malloc(((size_t)n + 1) * sizeof *b);
  int *right = calloc((size_t)t->n_cols + 8, sizeof *right);
  if (!rank0 || !rank1 || !row_of || !it || !a || !b || !right) abort();
  for (int64_t r = 0; r <= top_index; r++)
    row_of[r] = -1;
  for (int64_t r = 0; r < n; r++)
    if (row_of[t->index[r]] < 0) row_of[t->index[r]] = r;
  for (int64_t s = 1; s <= last; s++) {
    int64_t n0 = stage_ranks(x, s - 1, rank0), n1 = stage_ranks(x, s, rank1), m = 0;
    for (int64_t r = 0; r < n; r++) {
      int64_t of = ana_table_value(t, r, x->of_col).i,
              p = of >= 0 && of <= top_index ? row_of[of] : -1;
      if (rank1[r] && p >= 0 && rank0[p]) it[m++] = (item_t){(double)rank1[r], p, r};
    }
    qsort(it, (size_t)m, sizeof *it, by_value);
    int cols = 5;
    right[0] = right[1] = right[2] = right[3] = right[4] = 1;
    for (int c = 0; c < t->n_cols; c++)
      if (listed(&t->cols[c].col)) right[cols++] = t->cols[c].col.type != ANA_STRING;
    right[cols++] = 0;
    grid_t g = {.cols = cols, .right = right};
    char h0[64], h1[64];
    snprintf(h0, sizeof h0, "stage %lld", (long long)(s - 1));
    snprintf(h1, sizeof h1, "stage %lld", (long long)s);
    put(&g, "rank");
    put(&g, "rank at %s", h0);
    put(&g, "%s", h0);
    put(&g, "%s", h1);
    put(&g, "ratio");
    for (int c = 0; c < t->n_cols; c++)
      if (listed(&t->cols[c].col)) put(&g, "%s", header(&t->cols[c].col));
    put(&g, "experiment_id");
    for (int64_t k = 0; k < m; k++) {
      int64_t p = it[k].index, r = it[k].row;
      a[k] = number(t, x->metric, p);
      b[k] = number(t, x->metric, r);
      put(&g, "%lld", (long long)rank1[r]);
      put(&g, "%lld", (long long)rank0[p]);
      put(&g, "%.6g", a[k]);
      put(&g, "%.6g", b[k]);
      put(&g, "%.4f", b[k] / a[k]);
      for (int c = 0; c < t->n_cols; c++)
        if (listed(&t->cols[c].col)) put_cell(&g, t, c, r);
      put(&g, "%s", t->id[r]);
    }
    fprintf(out, "\nrefine stage %lld: %lld of %lld ok experiments of stage %lld again, %lld ok:\n",
            (long long)s, (long long)m, (long long)n0, (long long)(s - 1), (long long)n1);
    grid_print(out, &g);
    if (m > 0) {
      int64_t r0 = rank0[it[0].index];
      fprintf(out,
              "stage %lld's best was stage %lld's rank %lld of %lld (top %.3g %%); rank "
              "correlation (Spearman) of the two stages over these %lld: %.4f\n",
              (long long)s, (long long)(s - 1), (long long)r0, (long long)n0,
              100.0 * (double)r0 / (double)n0, (long long)m, m > 1 ? ana_spearman(a, b, m) : NAN);
    }
  }
  free(rank0);
  free(rank1);
  free(row_of);
  free(it);
  free(a);
  free(b);
  free(right);
}

int ana_report(FILE *out, const char *name, const ana_table_t *t, const ana_report_desc_t *d,
               char *err, size_t errlen) {
  ctx_t x = {.t = t, .metric = -1, .higher = d->higher_is_better != 0};
  x.stage_col = ana_table_find(t, "refine.stage");
  x.of_col = ana_table_find(t, "refine.of");
  if (x.stage_col >= 0 && (x.of_col < 0 || t->cols[x.stage_col].col.type != ANA_INT64 ||
                           t->cols[x.of_col].col.type != ANA_INT64))
    x.stage_col = -1;
  int64_t last = 0;
  for (int64_t r = 0; x.stage_col >= 0 && r < t->n_rows; r++)
    if (ana_table_value(t, r, x.stage_col).i > last) last = ana_table_value(t, r, x.stage_col).i;
  if (d->metric) x.metric = ana_table_find(t, d->metric);
  for (int c = 0; !d->metric && c < t->n_cols && x.metric < 0; c++)
    if (!t->cols[c].col.key && t->cols[c].col.type == ANA_DOUBLE) x.metric = c;
  static const char *const fixed[] = {"experiment_index", "experiment_id", "status", "message",
                                      "config_json"};
  for (size_t k = 0; d->metric && k < sizeof fixed / sizeof *fixed; k++)
    if (strcmp(d->metric, fixed[k]) == 0) {
      snprintf(err, errlen, "%s: %s: not a result to rank by (give a result column)", name,
               d->metric);
      return -1;
    }
  if (x.metric >= 0 && t->cols[x.metric].col.key) {
    snprintf(err, errlen, "%s: %s: a swept parameter, not a result to rank by", name, d->metric);
    return -1;
  }
  if (x.metric < 0 || t->cols[x.metric].col.type == ANA_STRING) {
    snprintf(err, errlen, "%s: %s%s", name, d->metric ? d->metric : "no result column",
             x.metric < 0 ? (d->metric ? ": no such column" : " of numbers") : ": not a number");
    return -1;
  }
  int by = d->by ? ana_table_find(t, d->by) : -1;
  if (d->by && (by < 0 || !t->cols[by].col.key)) {
    snprintf(err, errlen, "%s: %s: not a swept parameter", name, d->by);
    return -1;
  }
  int64_t count[ANA_STATUS_N] = {0};
  for (int64_t r = 0; r < t->n_rows; r++)
    count[t->status[r]]++;
  fprintf(out, "%s: %lld experiments: %lld ok", name, (long long)t->n_rows, (long long)count[0]);
  for (int s = 1; s < ANA_STATUS_N; s++)
    if (count[s]) fprintf(out, ", %lld %s", (long long)count[s], ana_status_name(s));
  const ana_col_t *m = &t->cols[x.metric].col;
  fprintf(out, "\nmetric: %s%s%s%s, %s is better\n", m->name, m->units ? " (" : "",
          m->units ? m->units : "", m->units ? ")" : "", x.higher ? "higher" : "lower");
  x.stage = last; /* the best of the most refined stage */
  best(out, &x, d->top > 0 ? d->top : 10);
  if (x.stage_col >= 0) {
    refinement(out, &x, last);
    fprintf(out, "\nthe sweep (refine stage 0) by each swept key:\n");
  }
  x.stage = 0; /* each key's effect over the whole sweep */
  for (int c = 0; c < t->n_cols; c++)
    if (listed(&t->cols[c].col) && (by < 0 || c == by)) effect(out, &x, c);
  return 0;
}

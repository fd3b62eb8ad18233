/* driver: refinement (a job's `refine` stages, jobs/job_refine.c). Checks the
 * stages against the job's kind, and picks each stage's experiments from the
 * results of the stage before: the best by the stage's metric, run again
 * with its keys set. Rank 0 does both; `multiverse run` runs the picked
 * experiments as one more plan of batches in the same run folder. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv_jobs.h"

/* The result column `name` of a kind that holds numbers, or -1. */
static int metric_col(const drv_kind_t *kind, const char *name) {
  for (int c = 0; c < kind->n_cols; c++)
    if (strcmp(kind->cols[c].name, name) == 0 && kind->cols[c].type == ANA_DOUBLE) return c;
  return -1;
}

int drv_refine_check(drv_job_t *j, job_sweep_errs_t *errs) {
  const char *file = job_sweep_file(j->sw);
  int bad = 0;
  json_t *exp = job_sweep_experiment(j->sw, 0);
  for (int s = 1; s <= job_sweep_n_stages(j->sw); s++) {
    const job_refine_t *r = job_sweep_stage(j->sw, s);
    if (metric_col(j->kind, r->metric) < 0) {
      char names[2048];
      size_t used = 0;
      for (int c = 0; c < j->kind->n_cols && used + 1 < sizeof names; c++)
        if (j->kind->cols[c].type == ANA_DOUBLE)
          used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                                   j->kind->cols[c].name);
      job_sweep_errs_add(errs, "%s: %s.metric: \"%s\" is not a result of %s experiments (%s)", file,
                         r->where, r->metric, j->kind->name, names);
      bad = 1;
    }
    /* The stage's keys on the first experiment (after the stages before). */
    json_t *next = job_refine_apply(j->sw, exp, s);
    char *canon = NULL, err[2048];
    uint64_t id;
    if (next && j->kind->canon(j->k, next, "@", &canon, &id, err, sizeof err) < 0) {
      for (char *save = NULL, *line = strtok_r(err, "\n", &save); line;
           line = strtok_r(NULL, "\n", &save)) {
        const char *at = line[0] == '@' ? line + 1 : line;
        while (*at == '.' || *at == ':' || *at == ' ')
          at++;
        job_sweep_errs_add(errs, "%s: %s.set: on the first experiment: %s", file, r->where, at);
      }
      bad = 1;
    }
    free(canon);
    json_decref(exp);
    exp = next;
  }
  json_decref(exp);
  return bad ? -1 : 0;
}

typedef struct cand_t {
  double v; /* the metric, negated when larger is better */
  int64_t index;
  const char *id;
} cand_t;

static int by_metric(const void *pa, const void *pb) {
  const cand_t *a = pa, *b = pb;
  if (a->v != b->v) return a->v < b->v ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static int by_id(const void *pa, const void *pb) {
  const cand_t *a = pa, *b = pb;
  int c = strcmp(a->id, b->id);
  return c ? c : a->index < b->index ? -1 : a->index > b->index;
}

int drv_refine_stage(drv_job_t *j, const char *run_dir, int s, FILE *msg, char *err,
                     size_t errlen) {
  const job_refine_t *r = job_sweep_stage(j->sw, s);
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", run_dir, job_sweep_output(j->sw));
  ana_table_t *t = r ? ana_read(path, err, errlen) : NULL;
  if (!t) return -1;
  int mc = ana_table_find(t, r->metric), sc = ana_table_find(t, "refine.stage");
  int64_t n = ana_table_n_rows(t), m = 0;
  cand_t *c = malloc(((size_t)n + 1) * sizeof *c);
  if (!c) abort();
  for (int64_t k = 0; mc >= 0 && k < n; k++) {
    ana_row_t row = ana_table_row(t, k);
    double v = ana_table_value(t, k, mc).d;
    int stage = sc >= 0 ? (int)ana_table_value(t, k, sc).i : 0;
    if (stage == s - 1 && row.status == ANA_OK && isfinite(v))
      c[m++] = (cand_t){r->maximize ? -v : v, row.index, row.id};
  }
  /* One candidate per experiment id (experiments that repeat one
   * configuration share a result). */
  qsort(c, (size_t)m, sizeof *c, by_id);
  int64_t u = 0;
  for (int64_t k = 0; k < m; k++)
    if (u == 0 || strcmp(c[u - 1].id, c[k].id) != 0) c[u++] = c[k];
  qsort(c, (size_t)u, sizeof *c, by_metric);
  int64_t keep = u ? job_refine_keep(r, u) : 0;
  for (int64_t k = 0; k < keep; k++)
    if (job_sweep_refine_add(j->sw, c[k].index, s) < 0) abort();
  job_sweep_errs_t errs = {0};
  int rc = 0;
  if (drv_job_grow(j, &errs)) {
    snprintf(err, errlen, "refine stage %d: %s", s, errs.text ? errs.text : "");
    rc = -1;
  } else if (msg) {
    char *set = json_dumps(r->set, JSON_COMPACT | JSON_SORT_KEYS);
    fprintf(msg,
            "multiverse run: refine stage %d: the best %lld of %lld ok experiments of stage %d by "
            "%s (%s is better), again with %s\n",
            s, (long long)keep, (long long)u, s - 1, r->metric, r->maximize ? "higher" : "lower",
            set ? set : "?");
    free(set);
  }
  job_sweep_errs_free(&errs);
  free(c);
  ana_table_free(t);
  return rc;
}

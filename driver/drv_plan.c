/* driver: what a run does with a job: which experiments run (results already
 * in the run folder, --force, --only-failed), which cannot (files, the
 * engine's validation, memory) and become rows at once, and what the cost
 * model reads of the others (their features, memory and cost key). */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_units.h"
#include "driver/drv_jobs.h"
#include "sim/eng_progress.h"

static void plan_row(drv_plan_t *p, int64_t i, ana_status_t st, const char *msg) {
  p->row_index[p->n_rows] = i;
  p->row_status[p->n_rows] = st;
  if (!(p->row_message[p->n_rows++] = strdup(msg ? msg : ""))) abort();
}

/* Does experiment i run, given its best result so far (-1: none)? */
static int plan_runs(const drv_opts_t *o, int status) {
  if (o->force) return 1;
  if (o->only_failed) return status == ANA_FAILED;
  return status < 0;
}

/* The index of cost key "KIND/MODEL", added if new. */
static int32_t plan_key(drv_plan_t *p, const char *kind, const char *model) {
  char key[256];
  snprintf(key, sizeof key, "%s/%s", kind, model ? model : "packet");
  for (int32_t k = 0; k < p->n_keys; k++)
    if (strcmp(p->keys[k], key) == 0) return k;
  char **keys = realloc(p->keys, ((size_t)p->n_keys + 1) * sizeof *keys);
  if (!keys || !(keys[p->n_keys] = strdup(key))) abort();
  p->keys = keys;
  return p->n_keys++;
}

int drv_plan_make(const drv_job_t *j, const drv_done_t *done, const drv_opts_t *o,
                  int64_t mem_budget, drv_plan_t *p, char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  memset(p, 0, sizeof *p);
  size_t n = (size_t)j->distinct + 1;
  p->row_index = malloc(n * sizeof *p->row_index);
  p->row_status = malloc(n * sizeof *p->row_status);
  p->row_message = malloc(n * sizeof *p->row_message);
  p->todo = malloc(n * sizeof *p->todo);
  p->feat = malloc(n * sizeof *p->feat);
  p->mem = malloc(n * sizeof *p->mem);
  p->key = malloc(n * sizeof *p->key);
  if (!p->row_index || !p->row_status || !p->row_message || !p->todo || !p->feat || !p->mem ||
      !p->key)
    abort();
  eng_progress_t pg; /* every two seconds on a terminal, or MULTIVERSE_PROGRESS=1 */
  eng_progress_begin(&pg);
  for (int64_t i = 0; i < j->count; i++) {
    if (eng_progress_due(&pg)) {
      pg.last = omp_get_wtime();
      fprintf(stderr, "multiverse: %s: %lld of %lld experiments sized, %.0f s\n", j->path,
              (long long)i, (long long)j->count, pg.last - pg.start);
    }
    if (j->first[i] != i || (o->has_only && j->first[o->only] != i)) continue;
    int st = done ? drv_done_status(done, j->id[i]) : -1;
    if (!plan_runs(o, st)) {
      p->skipped += st >= 0;
      continue;
    }
    if (j->broken[i]) {
      plan_row(p, i, ANA_FAILED, j->broken[i]);
      continue;
    }
    drv_exp_t x;
    int64_t mem;
    if (j->described) { /* described as it was identified */
      const drv_described_t *d = &j->described[i];
      x.status = d->status;
      snprintf(x.message, sizeof x.message, "%s", d->message ? d->message : "");
      x.feat = d->feat;
      x.model = d->model;
      mem = d->mem;
    } else {
      char where[4200];
      drv_exp_where(where, sizeof where, j->path, j->count, i);
      drv_exp_describe(j->kind, j->k, j->canon[i], j->id[i], where, &x, &mem);
    }
    if (x.status != ANA_OK) {
      plan_row(p, i, x.status, x.message);
    } else if (mem > mem_budget) {
      char msg[256];
      snprintf(msg, sizeof msg, "needs %.3g GiB of memory; a batch may use %.3g GiB (--memory)",
               (double)mem / BASE_BYTES_PER_GIB, (double)mem_budget / BASE_BYTES_PER_GIB);
      plan_row(p, i, ANA_OOM, msg);
    } else {
      p->todo[p->n_todo] = i;
      p->feat[p->n_todo] = x.feat;
      p->mem[p->n_todo] = mem;
      p->key[p->n_todo++] = plan_key(p, j->kind->name, x.model);
      p->hops += x.feat.x[SHD_F_HOPS];
    }
  }
  return 0;
}

void drv_plan_free(drv_plan_t *p) {
  for (int64_t r = 0; r < p->n_rows; r++)
    free(p->row_message[r]);
  for (int32_t k = 0; k < p->n_keys; k++)
    free(p->keys[k]);
  free(p->keys);
  free(p->row_index);
  free(p->row_status);
  free(p->row_message);
  free(p->todo);
  free(p->feat);
  free(p->mem);
  free(p->key);
  memset(p, 0, sizeof *p);
}

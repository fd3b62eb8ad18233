/* driver: the kinds of workers of a run and their cost model (drv_sched_t):
 * built from every rank's workers and the cost keys of the experiments,
 * with each worker name's shipped coefficients per key and the costs file's
 * records, refitted as records come; and the plan's view of it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv_jobs.h"

static void *zalloc(size_t n, size_t size) {
  return calloc(n ? n : 1, size);
}

static int32_t name_index(drv_sched_t *s, const char *name) {
  for (int32_t i = 0; i < s->n_names; i++)
    if (strcmp(s->names[i], name) == 0) return i;
  char **names = realloc(s->names, ((size_t)s->n_names + 1) * sizeof *names);
  if (!names) return -1;
  s->names = names;
  if (!(names[s->n_names] = strdup(name))) return -1;
  return s->n_names++;
}

void drv_sched_fit(drv_sched_t *s, int32_t m) {
  double *coef = s->coef + (size_t)m * SHD_C_N, *prior = s->prior + (size_t)m * SHD_C_N;
  if (drv_model_fit(&s->models[m], s->run, prior, coef, &s->fit[m])) {
    memcpy(coef, prior, sizeof(double) * SHD_C_N);
    return;
  }
  /* The fit follows the typical batch; plans add batches up: the scale that
   * gives the measured total (batches it left out, such as go-back-N storms
   * of cc none with spraying, 4-10x the others, are work too). */
  for (int k = 0; k < SHD_C_CONTENTION; k++) /* the seconds; the contention has no unit */
    coef[k] *= s->fit[m].sum_ratio;
}

int drv_sched_init(drv_sched_t *s, const drv_slot_desc_t *w, int32_t n, char *const *keys,
                   int32_t n_keys, const drv_costs_t *c, int max_batch, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  s->run = c->run;
  s->n_workers = n;
  s->workers = zalloc((size_t)n, sizeof *s->workers);
  s->worker_rank = zalloc((size_t)n, sizeof *s->worker_rank);
  s->worker_backend = zalloc((size_t)n, sizeof *s->worker_backend);
  s->worker_threads = zalloc((size_t)n, sizeof *s->worker_threads);
  s->cls = zalloc((size_t)n, sizeof *s->cls);
  s->cls_name = zalloc((size_t)n, sizeof *s->cls_name);
  s->keys = zalloc((size_t)n_keys, sizeof *s->keys);
  if (!s->workers || !s->worker_rank || !s->worker_backend || !s->worker_threads || !s->cls ||
      !s->cls_name || !s->keys)
    goto oom;
  s->n_keys = n_keys;
  for (int32_t k = 0; k < n_keys; k++)
    if (!(s->keys[k] = strdup(keys[k]))) goto oom;
  int32_t *name_of = zalloc((size_t)n, sizeof *name_of);
  if (!name_of) goto oom;
  for (int32_t i = 0; i < n; i++)
    if ((name_of[i] = name_index(s, w[i].name)) < 0) {
      free(name_of);
      goto oom;
    }
  size_t nm = (size_t)s->n_names * (size_t)(n_keys ? n_keys : 1);
  s->prior = zalloc(nm * SHD_C_N, sizeof *s->prior);
  s->coef = zalloc(nm * SHD_C_N, sizeof *s->coef);
  s->fit = zalloc(nm, sizeof *s->fit);
  s->models = zalloc(nm, sizeof *s->models);
  s->max_batch = zalloc((size_t)s->n_names, sizeof *s->max_batch);
  s->slots = zalloc((size_t)s->n_names, sizeof *s->slots);
  if (!s->prior || !s->coef || !s->fit || !s->models || !s->max_batch || !s->slots) {
    free(name_of);
    goto oom;
  }
  for (int32_t a = 0; a < s->n_names; a++)
    for (int32_t k = 0; k < n_keys; k++) {
      size_t m = (size_t)a * n_keys + k;
      int32_t slots, most;
      if (drv_costs_prior(c, s->names[a], keys[k], s->prior + m * SHD_C_N, &slots, &most, err,
                          errlen)) {
        free(name_of);
        return -1;
      }
      s->slots[a] = slots;
      s->max_batch[a] = max_batch > 0 ? max_batch : most;
      char full[512];
      snprintf(full, sizeof full, "%s|%s", s->names[a], keys[k]);
      if (!(s->models[m].name = strdup(full))) {
        free(name_of);
        goto oom;
      }
      const drv_model_t *f = drv_costs_find(c, s->names[a], keys[k]);
      for (int32_t r = 0; f && r < f->n; r++)
        if (drv_model_add(&s->models[m], &f->rec[r], f->run[r])) {
          free(name_of);
          goto oom;
        }
      drv_sched_fit(s, (int32_t)m);
    }
  /* Classes: a name with its slots (a CPU worker's threads) and batch
   * limit; the smallest memory of its workers. */
  for (int32_t i = 0; i < n; i++) {
    int32_t a = name_of[i], slots = s->slots[a] > 0 ? s->slots[a] : w[i].threads, k = 0;
    while (k < s->n_classes && !(s->cls_name[k] == a && s->cls[k].slots == slots))
      k++;
    if (k == s->n_classes) {
      s->n_classes++;
      s->cls_name[k] = a;
      s->cls[k] = (shd_class_t){.coef = s->coef + (size_t)a * n_keys * SHD_C_N,
                                .slots = slots,
                                .max_batch = s->max_batch[a],
                                .mem_budget = w[i].mem_budget};
    } else if (w[i].mem_budget < s->cls[k].mem_budget) {
      s->cls[k].mem_budget = w[i].mem_budget;
    }
    s->workers[i] = (shd_worker_t){.cls = k};
    s->worker_rank[i] = w[i].rank;
    s->worker_backend[i] = w[i].backend;
    s->worker_threads[i] = w[i].threads;
  }
  free(name_of);
  return 0;
oom:
  snprintf(err, errlen, "out of memory describing the workers");
  return -1;
}

shd_sched_t drv_sched_view(const drv_sched_t *s, const uint8_t *taken) {
  return (shd_sched_t){.n_exps = s->n_exps,
                       .feat = s->feat,
                       .mem = s->mem,
                       .key = s->key,
                       .taken = taken,
                       .n_keys = s->n_keys,
                       .n_classes = s->n_classes,
                       .cls = s->cls,
                       .n_workers = s->n_workers,
                       .workers = s->workers};
}

double drv_plan_outlook(const drv_sched_t *s, const uint8_t *taken, int32_t *batches) {
  shd_sched_t v = drv_sched_view(s, taken);
  shd_outlook_t o;
  if (shd_sched(&v, -1, NULL, &o)) return -1;
  if (batches) *batches = o.batches;
  return o.makespan;
}

void drv_sched_free(drv_sched_t *s) {
  size_t nm = (size_t)s->n_names * (size_t)s->n_keys;
  for (size_t m = 0; s->models && m < nm; m++)
    drv_model_free(&s->models[m]);
  for (int32_t i = 0; s->names && i < s->n_names; i++)
    free(s->names[i]);
  for (int32_t k = 0; s->keys && k < s->n_keys; k++)
    free(s->keys[k]);
  free(s->names), free(s->keys), free(s->prior), free(s->coef), free(s->fit), free(s->models);
  free(s->max_batch), free(s->slots), free(s->cls), free(s->cls_name), free(s->workers);
  free(s->worker_rank), free(s->worker_backend), free(s->worker_threads);
  free(s->feat), free(s->mem), free(s->key);
  memset(s, 0, sizeof *s);
}

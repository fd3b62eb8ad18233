/* driver: a job file expanded into experiments, each identified through its
 * kind (canonical JSON, experiment id); experiments with one id are one
 * simulation. Problems that many experiments share are reported once. */
#define _XOPEN_SOURCE 700
#include <inttypes.h>
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv_jobs.h"
#include "sim/eng_progress.h"

/* Where canon's messages start: replaced by the experiments it concerns. */
#define JOB_WHERE "@"
#define JOB_SHOWN 4

/* One problem and the experiments that have it. */
typedef struct prob_t {
  char *text;
  int64_t count;
  int64_t idx[JOB_SHOWN];
} prob_t;

typedef struct probs_t {
  int n, cap;
  prob_t *p;
} probs_t;

void drv_id_text(uint64_t id, char buf[17]) {
  snprintf(buf, 17, "%016" PRIx64, id);
}

/* A message of canon without its JSON_WHERE prefix. */
static const char *job_tail(const char *msg) {
  if (strncmp(msg, JOB_WHERE, strlen(JOB_WHERE)) == 0) msg += strlen(JOB_WHERE);
  if (*msg == '.') msg++;
  if (*msg == ':') msg += 1 + (msg[1] == ' ');
  return msg;
}

static void probs_add(probs_t *ps, const char *msg, int64_t i) {
  const char *text = job_tail(msg);
  int k = 0;
  while (k < ps->n && strcmp(ps->p[k].text, text) != 0)
    k++;
  if (k == ps->n) {
    if (ps->n == ps->cap) {
      ps->cap = ps->cap ? 2 * ps->cap : 8;
      ps->p = realloc(ps->p, (size_t)ps->cap * sizeof *ps->p);
      if (!ps->p) abort();
    }
    ps->p[ps->n++] = (prob_t){.text = strdup(text)};
    if (!ps->p[k].text) abort();
  }
  if (ps->p[k].count < JOB_SHOWN) ps->p[k].idx[ps->p[k].count] = i;
  ps->p[k].count++;
}

/* "network.cc=\"x\", training.tp=2": the swept values of experiment i. */
static void job_values(const job_sweep_t *sw, int64_t i, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int a = 0; a < job_sweep_n_axes(sw) && used + 1 < len; a++) {
    json_t *v = job_sweep_value(sw, i, a);
    char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", a ? ", " : "",
                             job_sweep_axis(sw, a), s ? s : "(base)");
    free(s);
  }
}

static void probs_report(probs_t *ps, const job_sweep_t *sw, int64_t count,
                         job_sweep_errs_t *errs) {
  char vals[1024], list[256];
  const char *file = job_sweep_file(sw);
  for (int k = 0; k < ps->n; k++) {
    const prob_t *p = &ps->p[k];
    job_values(sw, p->idx[0], vals, sizeof vals);
    if (p->count == count && count == 1 && job_sweep_n_axes(sw) == 0) { /* all in base */
      job_sweep_errs_add(errs, "%s: base.%s", file, p->text);
    } else if (p->count == count && count == 1) {
      job_sweep_errs_add(errs, "%s: the experiment: %s", file, p->text);
    } else if (p->count == count) {
      job_sweep_errs_add(errs, "%s: every experiment (%" PRId64 "): %s", file, count, p->text);
    } else if (p->count == 1) {
      job_sweep_errs_add(errs, "%s: experiment %" PRId64 " (%s): %s", file, p->idx[0], vals,
                         p->text);
    } else {
      size_t used = 0;
      for (int64_t s = 0; s < p->count && s < JOB_SHOWN; s++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%" PRId64, s ? ", " : "",
                                 p->idx[s]);
      if (p->count > JOB_SHOWN)
        snprintf(list + used, sizeof list - used, " and %" PRId64 " more", p->count - JOB_SHOWN);
      job_sweep_errs_add(errs, "%s: experiments %s (the first: %s): %s", file, list, vals, p->text);
    }
    free(ps->p[k].text);
  }
  free(ps->p);
  ps->n = ps->cap = 0;
  ps->p = NULL;
}

/* The job file's folder, absolute. */
static char *job_dir(const char *path) {
  char *real = realpath(path, NULL);
  if (!real) return NULL;
  char *slash = strrchr(real, '/');
  if (slash) slash[slash == real ? 1 : 0] = '\0';
  return real;
}

typedef struct pair_t {
  uint64_t id;
  int64_t i;
} pair_t;

static int by_id_then_index(const void *pa, const void *pb) {
  const pair_t *a = pa, *b = pb;
  if (a->id != b->id) return a->id < b->id ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

/* first[i]: the smallest index with i's id; canon kept only there. */
static int job_dedupe(drv_job_t *j) {
  pair_t *pr = malloc(((size_t)j->count + 1) * sizeof *pr);
  if (!pr) return -1;
  for (int64_t i = 0; i < j->count; i++)
    pr[i] = (pair_t){j->id[i], i};
  qsort(pr, (size_t)j->count, sizeof *pr, by_id_then_index);
  j->distinct = 0;
  int64_t head = 0; /* the group's smallest index */
  for (int64_t k = 0; k < j->count; k++) {
    int64_t i = pr[k].i;
    if (k == 0 || pr[k - 1].id != pr[k].id) {
      j->first[i] = head = i;
      j->distinct++;
    } else {
      j->first[i] = head;
      free(j->canon[i]);
      j->canon[i] = NULL;
      free(j->broken[i]);
      j->broken[i] = NULL;
    }
  }
  free(pr);
  return 0;
}

/* The kind of every experiment (all must agree), or NULL after a problem. */
static const drv_kind_t *job_kind(const job_sweep_t *sw, job_sweep_errs_t *errs) {
  json_t *x = job_sweep_experiment(sw, 0);
  char name[64];
  snprintf(name, sizeof name, "%s", x ? job_sweep_kind_name(x) : "?");
  json_decref(x);
  const drv_kind_t *kind = drv_kind_find(name);
  if (!kind)
    job_sweep_errs_add(errs,
                       "%s: base: experiments of kind \"%s\" cannot run yet (multiverse run "
                       "runs: %s)",
                       job_sweep_file(sw), name, drv_kind_names());
  return kind;
}

/* Planning keeps each experiment's canonical text and about this much more
 * (ids, the plan's rows, the sweep's values): 2.25 KB per network experiment
 * of 1.3 KB text measured at 1e5 experiments (docs/jobs.md). */
#define JOB_BYTES_PER_EXP 1024

/* Sizes before work: the job's experiments fit in half the memory this process
 * may use, estimated from the first one's text. 0, or -1 with the problem. */
static int job_fits(const drv_job_t *j, job_sweep_errs_t *errs) {
  double each = (double)strlen(j->canon[0]) + 1 + JOB_BYTES_PER_EXP, need = each * (double)j->count;
  double may = (double)drv_host_memory() / 2;
  if (j->count < 2 || may <= 0 || need <= may) return 0;
  job_sweep_errs_add(errs,
                     "%s: %" PRId64 " experiments need about %.3g GB to plan (%.2g KB each), more "
                     "than half of the %.3g GB this process may use: fewer experiments "
                     "(sweep.include, sweep.exclude, fewer values) or a larger machine",
                     j->path, j->count, need / 1e9, each / 1e3, 2 * may / 1e9);
  return -1;
}

/* The canonical text and id of experiments from..count-1; progress on stderr
 * (a terminal, or MULTIVERSE_PROGRESS=1) every two seconds. */
static int job_identify(drv_job_t *j, int64_t from, job_sweep_errs_t *errs) {
  probs_t probs = {0};
  char err[2048];
  int bad = 0;
  eng_progress_t pg;
  eng_progress_begin(&pg);
  for (int64_t i = from; i < j->count; i++) {
    if (i == 1 && from == 0 && j->canon[0] && job_fits(j, errs)) return -1;
    if (eng_progress_due(&pg)) {
      pg.last = omp_get_wtime();
      fprintf(stderr, "multiverse: %s: %" PRId64 " of %" PRId64 " experiments read, %.0f s\n",
              j->path, i, j->count, pg.last - pg.start);
    }
    json_t *x = job_sweep_experiment(j->sw, i);
    const char *name = x ? job_sweep_kind_name(x) : "?";
    int rc;
    if (!x) {
      snprintf(err, sizeof err, JOB_WHERE ": out of memory");
      rc = -1;
    } else if (strcmp(name, j->kind->name) != 0) {
      snprintf(err, sizeof err, JOB_WHERE ".kind: \"%s\" in a job of \"%s\" experiments", name,
               j->kind->name);
      rc = -1;
    } else if (j->described) {
      drv_exp_t d;
      int64_t mem;
      rc = drv_exp_canon_describe(j->kind, j->k, x, JOB_WHERE, &j->canon[i], &j->id[i], err,
                                  sizeof err, &d, &mem);
      if (rc == 0)
        j->described[i] =
            (drv_described_t){.feat = d.feat,
                              .mem = mem,
                              .model = d.model,
                              .status = d.status,
                              .message = d.status == ANA_OK ? NULL : strdup(d.message)};
      if (rc == 0 && d.status != ANA_OK && !j->described[i].message) abort();
    } else {
      rc = j->kind->canon(j->k, x, JOB_WHERE, &j->canon[i], &j->id[i], err, sizeof err);
    }
    json_decref(x);
    if (rc < 0) {
      for (char *save = NULL, *line = strtok_r(err, "\n", &save); line;
           line = strtok_r(NULL, "\n", &save))
        probs_add(&probs, line, i);
      bad = 1;
    } else if (rc > 0 && !(j->broken[i] = strdup(err))) {
      abort();
    }
  }
  probs_report(&probs, j->sw, j->count, errs);
  return bad ? -1 : 0;
}

/* When the sweep itself has problems: the base's, as its kind sees them. */
static void base_problems(const char *path, const char *presets, job_sweep_errs_t *errs) {
  json_t *root = json_load_file(path, 0, NULL), *base = json_object_get(root, "base");
  const char *named = json_string_value(json_object_get(base, "kind"));
  if (json_object_get(base, "kind") && !(named && drv_kind_find(named))) {
    json_decref(root); /* which kind's rules apply is unknown: job_sweep_load said so */
    return;
  }
  char *dir = job_dir(path), err[4096], *canon = NULL;
  const drv_kind_t *kind = json_is_object(base) ? drv_kind_find(job_sweep_kind_name(base)) : NULL;
  void *k = kind && dir ? kind->open(&(drv_kind_opts_t){.base_dir = dir, .presets = presets}, err,
                                     sizeof err)
                        : NULL;
  uint64_t id;
  if (k && kind->canon(k, base, JOB_WHERE, &canon, &id, err, sizeof err) < 0)
    for (char *save = NULL, *line = strtok_r(err, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
      job_sweep_errs_add(errs, "%s: base.%s", path, job_tail(line));
  free(canon);
  if (k) kind->close(k);
  free(dir);
  json_decref(root);
}

int drv_job_load(const char *path, const char *presets, drv_job_t *j, job_sweep_errs_t *errs) {
  return drv_job_open(path, NULL, &(drv_kind_opts_t){.presets = presets}, j, errs);
}

int drv_job_open(const char *path, const char *text, const drv_kind_opts_t *ko, drv_job_t *j,
                 job_sweep_errs_t *errs) {
  const char *dir = ko->base_dir, *presets = ko->presets;
  char err[1024];
  memset(j, 0, sizeof *j);
  if (!(j->path = strdup(path))) abort();
  if (text ? job_sweep_parse(path, text, &j->sw, errs) : job_sweep_load(path, &j->sw, errs)) {
    if (!text) base_problems(path, presets, errs);
    return -1;
  }
  if (!(j->kind = job_kind(j->sw, errs))) return -1;
  if (!(j->dir = dir ? strdup(dir) : job_dir(path))) {
    job_sweep_errs_add(errs, "%s: cannot find its folder", path);
    return -1;
  }
  j->k = j->kind->open(
      &(drv_kind_opts_t){.base_dir = j->dir, .presets = presets, .calibration = ko->calibration},
      err, sizeof err);
  if (!j->k) {
    job_sweep_errs_add(errs, "%s", err);
    return -1;
  }
  j->count = job_sweep_count(j->sw);
  size_t n = (size_t)j->count + 1;
  j->id = calloc(n, sizeof *j->id);
  j->canon = calloc(n, sizeof *j->canon);
  j->first = calloc(n, sizeof *j->first);
  j->broken = calloc(n, sizeof *j->broken);
  if (!j->id || !j->canon || !j->first || !j->broken) abort();
  if (ko->describe && drv_kind_canon_describes(j->kind) &&
      !(j->described = calloc(n, sizeof *j->described)))
    abort();
  if (job_identify(j, 0, errs)) return -1;
  if (job_dedupe(j)) abort();
  return drv_refine_check(j, errs);
}

int drv_job_grow(drv_job_t *j, job_sweep_errs_t *errs) {
  int64_t from = j->count;
  j->count = job_sweep_count(j->sw);
  size_t n = (size_t)j->count + 1;
  j->id = realloc(j->id, n * sizeof *j->id);
  j->canon = realloc(j->canon, n * sizeof *j->canon);
  j->first = realloc(j->first, n * sizeof *j->first);
  j->broken = realloc(j->broken, n * sizeof *j->broken);
  if (!j->id || !j->canon || !j->first || !j->broken) abort();
  if (j->described && !(j->described = realloc(j->described, n * sizeof *j->described))) abort();
  for (int64_t i = from; i < j->count; i++) {
    j->id[i] = 0;
    j->canon[i] = j->broken[i] = NULL;
    if (j->described) memset(&j->described[i], 0, sizeof j->described[i]);
  }
  if (job_identify(j, from, errs)) return -1;
  if (job_dedupe(j)) abort();
  return 0;
}

void drv_job_free(drv_job_t *j) {
  for (int64_t i = 0; i < j->count; i++) {
    if (j->canon) free(j->canon[i]);
    if (j->broken) free(j->broken[i]);
    if (j->described) free(j->described[i].message);
  }
  free(j->described);
  free(j->id);
  free(j->canon);
  free(j->first);
  free(j->broken);
  if (j->k) j->kind->close(j->k);
  job_sweep_free(j->sw);
  free(j->dir);
  free(j->path);
  memset(j, 0, sizeof *j);
}

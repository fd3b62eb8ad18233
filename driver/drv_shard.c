/* driver: shard files of a run folder: RUNDIR/shards/aAAAA-rRRRRR-pPPPP.nc
 * (attempt, rank, part), each written under a temporary name and renamed;
 * which experiment ids they hold results for. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv_jobs.h"

static int by_string(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && strcmp(s + n - m, tail) == 0;
}

char **drv_shard_paths(const char *run_dir) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/shards", run_dir);
  size_t n = 0, cap = 16;
  char **paths = malloc(cap * sizeof *paths);
  if (!paths) abort();
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.' || !ends_with(e->d_name, ".nc")) continue;
    if (n + 2 > cap && !(paths = realloc(paths, (cap *= 2) * sizeof *paths))) abort();
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!(paths[n] = malloc(len))) abort();
    snprintf(paths[n++], len, "%s/%s", dir, e->d_name);
  }
  if (d) closedir(d);
  qsort(paths, n, sizeof *paths, by_string);
  paths[n] = NULL;
  return paths;
}

void drv_paths_free(char **paths) {
  for (char **p = paths; p && *p; p++)
    free(*p);
  free(paths);
}

/* The largest attempt number of the a####- files in dir. */
static int max_attempt(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int most = 0, a;
  while (d && (e = readdir(d)))
    if (sscanf(e->d_name, "a%d-", &a) == 1 && a > most) most = a;
  if (d) closedir(d);
  return most;
}

int drv_next_attempt(const char *run_dir) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/shards", run_dir);
  int a = max_attempt(dir);
  snprintf(dir, sizeof dir, "%s/logs", run_dir);
  int b = max_attempt(dir);
  return (a > b ? a : b) + 1;
}

typedef struct seen_t {
  uint64_t id;
  uint8_t status;
} seen_t;

static int by_id_status(const void *pa, const void *pb) {
  const seen_t *a = pa, *b = pb;
  if (a->id != b->id) return a->id < b->id ? -1 : 1;
  return a->status - b->status;
}

int drv_done_read(const char *run_dir, drv_done_t *d, FILE *warn) {
  char **paths = drv_shard_paths(run_dir), err[1024];
  size_t n = 0, cap = 64;
  seen_t *s = malloc(cap * sizeof *s);
  if (!s) abort();
  for (char **p = paths; *p; p++) {
    ana_table_t *t = ana_read(*p, err, sizeof err);
    if (!t) {
      if (warn) fprintf(warn, "multiverse: ignoring a shard that does not read: %s\n", err);
      continue;
    }
    for (int64_t r = 0; r < ana_table_n_rows(t); r++) {
      ana_row_t row = ana_table_row(t, r);
      if (n == cap && !(s = realloc(s, (cap *= 2) * sizeof *s))) abort();
      s[n++] = (seen_t){strtoull(row.id, NULL, 16), (uint8_t)row.status};
    }
    ana_table_free(t);
  }
  drv_paths_free(paths);
  qsort(s, n, sizeof *s, by_id_status);
  d->n = 0;
  d->id = malloc((n + 1) * sizeof *d->id);
  d->status = malloc(n + 1);
  if (!d->id || !d->status) abort();
  for (size_t k = 0; k < n; k++)
    if (k == 0 || s[k].id != s[k - 1].id) {
      d->id[d->n] = s[k].id;
      d->status[d->n++] = s[k].status;
    }
  free(s);
  return 0;
}

int drv_done_status(const drv_done_t *d, uint64_t id) {
  int64_t lo = 0, hi = d->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (d->id[mid] == id) return d->status[mid];
    if (d->id[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

void drv_done_free(drv_done_t *d) {
  free(d->id);
  free(d->status);
  memset(d, 0, sizeof *d);
}

void drv_missing_values(const drv_kind_t *kind, ana_value_t *v) {
  for (int c = 0; c < kind->n_cols; c++)
    v[c] = (ana_value_t){.d = NAN, .i = ANA_FILL_INT64, .s = ""};
}

static int shard_table(drv_shard_t *s, char *err, size_t errlen) {
  s->t = ana_table_create(s->kind->cols, s->kind->n_cols, err, errlen);
  if (!s->t) return -1;
  ana_provenance(s->t, &s->prov);
  return 0;
}

int drv_shard_open(drv_shard_t *s, const char *run_dir, int attempt, int rank,
                   const drv_kind_t *kind, const ana_prov_t *prov, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  snprintf(s->dir, sizeof s->dir, "%s/shards", run_dir);
  s->attempt = attempt;
  s->rank = rank;
  s->kind = kind;
  s->prov = *prov;
  return shard_table(s, err, errlen);
}

void drv_shard_add(drv_shard_t *s, const ana_row_t *row) {
  ana_table_append(s->t, row);
}

int drv_shard_flush(drv_shard_t *s, char *err, size_t errlen) {
  if (ana_table_n_rows(s->t) == 0) return 0;
  char path[4200];
  snprintf(path, sizeof path, "%s/a%04d-r%06d-p%04d.nc", s->dir, s->attempt, s->rank, s->part);
  if (drv_out_table(s->t, path, err, errlen)) return -1;
  if (ana_table_n_rows(s->t) < DRV_PART_ROWS) return 0;
  ana_table_free(s->t);
  s->part++;
  return shard_table(s, err, errlen);
}

void drv_shard_close(drv_shard_t *s) {
  ana_table_free(s->t);
  s->t = NULL;
}

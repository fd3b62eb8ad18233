/* mv_mkresults: a results folder as the sweep pipeline writes it, without
 * simulating: a job file expanded (jobs/), packed into batches (shard/), one
 * shard file per batch plus a rerun of the first batch that failed, merged
 * (analysis/). Results are made-up closed forms of the configuration.
 * usage: mv_mkresults JOB.json DIR   (writes the shards in DIR/shards, then DIR/results.nc) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ana.h"
#include "job_sweep.h"
#include "shd.h"

static uint64_t fnv(const char *s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return h;
}

static ana_type_t column_type(job_sweep_type_t t) {
  return t == JOB_SWEEP_INT || t == JOB_SWEEP_BOOL ? ANA_INT64
         : t == JOB_SWEEP_REAL                     ? ANA_DOUBLE
                                                   : ANA_STRING;
}

/* Row of experiment i; status `st` (ok: results from its config). */
static void row(ana_table_t *t, const job_sweep_t *sw, int64_t i, ana_status_t st) {
  int na = job_sweep_n_axes(sw);
  ana_value_t v[66];
  char *texts[64] = {0};
  json_t *cfg = job_sweep_experiment(sw, i);
  char *canon = json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS);
  for (int a = 0; a < na; a++) {
    json_t *x = job_sweep_value(sw, i, a);
    v[a] = (ana_value_t){.d = json_number_value(x),
                         .i = json_is_boolean(x) ? json_is_true(x) : json_integer_value(x)};
    if (column_type(job_sweep_axis_type(sw, a)) == ANA_STRING)
      v[a].s = json_is_string(x) ? json_string_value(x)
                                 : (texts[a] = json_dumps(x, JSON_COMPACT | JSON_ENCODE_ANY));
  }
  uint64_t h = fnv(canon);
  v[na] = (ana_value_t){.d = st == ANA_OK ? 1 + (double)(h % 1000) / 1000 : NAN};
  v[na + 1] = (ana_value_t){.i = st == ANA_OK ? (int64_t)(h % 100000) : ANA_FILL_INT64};
  char id[32];
  snprintf(id, sizeof id, "%016llx", (unsigned long long)h);
  ana_table_append(t, &(ana_row_t){.index = i,
                                   .id = id,
                                   .status = st,
                                   .message = st == ANA_OK ? "" : "simulated time limit",
                                   .config = canon,
                                   .values = v});
  for (int a = 0; a < na; a++)
    free(texts[a]);
  free(canon);
  json_decref(cfg);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: mv_mkresults JOB.json DIR\n");
    return 2;
  }
  job_sweep_errs_t errs = {0};
  job_sweep_t *sw;
  if (job_sweep_load(argv[1], &sw, &errs)) {
    fputs(errs.text, stderr);
    return 2;
  }
  int na = job_sweep_n_axes(sw);
  if (na > 64) {
    fprintf(stderr, "mv_mkresults: at most 64 swept keys\n");
    return 2;
  }
  ana_col_t cols[66];
  char names[64][128];
  for (int a = 0; a < na; a++) {
    ana_var_name(job_sweep_axis(sw, a), names[a], sizeof names[a]);
    cols[a] = (ana_col_t){.name = names[a],
                          .type = column_type(job_sweep_axis_type(sw, a)),
                          .key = job_sweep_axis(sw, a)};
  }
  cols[na] = (ana_col_t){.name = "iteration_time", .type = ANA_DOUBLE, .units = "s"};
  cols[na + 1] = (ana_col_t){.name = "packet_hops", .type = ANA_INT64, .units = "1"};
  /* Batches: cost 1-3 s, 1 MiB each, 4 MiB per GPU that runs 4 side by side. */
  int32_t n = (int32_t)job_sweep_count(sw);
  shd_exp_t *e = calloc((size_t)n, sizeof *e);
  for (int32_t i = 0; i < n; i++)
    e[i] = (shd_exp_t){.cost = 1 + i % 3, .mem = 1 << 20};
  shd_plan_t plan;
  char err[1024], path[8192], dir[4096];
  if (shd_plan(&(shd_desc_t){.mem_budget = 4 << 20, .parallel = 4}, e, n, &plan, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  snprintf(dir, sizeof dir, "%s/shards", argv[2]);
  mkdir(argv[2], 0777);
  mkdir(dir, 0777);
  const char **shards = calloc((size_t)plan.n_batches + 1, sizeof *shards);
  for (int32_t b = 0; b <= plan.n_batches; b++) {
    /* The last shard reruns batch 0, every experiment timed out. */
    const shd_batch_t *bt = &plan.batches[b < plan.n_batches ? b : 0];
    ana_table_t *t = ana_table_create(cols, na + 2, err, sizeof err);
    if (!t) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
    ana_provenance(
        t, &(ana_prov_t){.title = job_sweep_name(sw), .job_file = argv[1], .backend = "none"});
    for (int32_t k = 0; k < bt->n; k++) {
      int64_t i = plan.members[bt->first + k];
      row(t, sw, i, b == plan.n_batches || i % 5 == 4 ? ANA_TIMED_OUT : ANA_OK);
    }
    if (b < plan.n_batches)
      snprintf(path, sizeof path, "%s/batch-%04d.nc", dir, b);
    else
      snprintf(path, sizeof path, "%s/rerun-0000.nc", dir);
    if (ana_write(t, path, err, sizeof err)) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
    shards[b] = strdup(path);
    ana_table_free(t);
  }
  snprintf(path, sizeof path, "%s/results.nc", argv[2]);
  if (ana_merge(path, shards, plan.n_batches + 1, n, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  printf("%d experiments, %d shards\n", n, plan.n_batches + 1);
  for (int32_t b = 0; b <= plan.n_batches; b++)
    free((char *)shards[b]);
  free(shards);
  free(e);
  shd_plan_free(&plan);
  job_sweep_free(sw);
  return 0;
}

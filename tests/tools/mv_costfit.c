/* mv_costfit: the cost model refitted from the records of one or more costs
 * files (multiverse run's --costs, e.g. those tests/bench/node_bench.sh brings
 * back from the GPU machine), each model from the presets (MULTIVERSE_PRESETS,
 * else the shipped ones) or from another worker's entry, every record of
 * every file weighing the same; prints each model's fit as a
 * jobs/presets/batching.json entry, with each batch's measured, prior and
 * fitted seconds under -v.
 *
 *   mv_costfit [-v] [--from WORKER] [--slots N] COSTS.json...
 *
 * --from cuda: start every cuda model from the "cuda" entry (not its
 * hardware's); --slots N: count every GPU batch on N slots (records of a
 * preset that had other slots, such as the H200's 62 of 3b6428b). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/drv_jobs.h"

/* A copy of a costs file in a temporary folder: drv_costs_load opens its
 * file for writing too, and the ones brought back are read-only. */
static int load_copy(const char *path, const char *dir, drv_costs_t *c) {
  char tmp[4200], err[4400], buf[65536];
  snprintf(tmp, sizeof tmp, "%s/costs.json", dir);
  FILE *in = fopen(path, "rb"), *out = in ? fopen(tmp, "wb") : NULL;
  size_t n;
  while (out && (n = fread(buf, 1, sizeof buf, in)) > 0)
    fwrite(buf, 1, n, out);
  if (in) fclose(in);
  if (!out || fclose(out)) {
    fprintf(stderr, "mv_costfit: %s: cannot read\n", path);
    return -1;
  }
  if (drv_costs_load(c, tmp, stderr, err, sizeof err) || !c->readable) {
    fprintf(stderr, "mv_costfit: %s: %s\n", path, err[0] ? err : "does not read");
    return -1;
  }
  return 0;
}

static double median_err(const double coef[SHD_C_N], const shd_rec_t *r, int32_t n) {
  double *e = malloc(((size_t)n + 1) * sizeof *e);
  if (!e) return NAN;
  for (int32_t i = 0; i < n; i++)
    e[i] = fabs(shd_cost_batch(coef, &r[i]) / r[i].seconds - 1);
  for (int32_t i = 1; i < n; i++) /* few records: insertion sort */
    for (int32_t j = i; j > 0 && e[j] < e[j - 1]; j--) {
      double t = e[j];
      e[j] = e[j - 1];
      e[j - 1] = t;
    }
  double m = n == 0 ? 0 : n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
  free(e);
  return m;
}

int main(int argc, char **argv) {
  int verbose = 0, slots = 0, a = 1;
  const char *from = NULL;
  for (; a < argc && argv[a][0] == '-'; a++)
    if (strcmp(argv[a], "-v") == 0)
      verbose = 1;
    else if (strcmp(argv[a], "--from") == 0 && a + 1 < argc)
      from = argv[++a];
    else if (strcmp(argv[a], "--slots") == 0 && a + 1 < argc && atoi(argv[a + 1]) > 0)
      slots = atoi(argv[++a]);
    else
      break;
  if (a >= argc) {
    fprintf(stderr, "usage: mv_costfit [-v] [--from WORKER] [--slots N] COSTS.json...\n");
    return 2;
  }
  char dir[] = "/tmp/mv_costfit.XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mv_costfit: mkdtemp");
    return 1;
  }
  /* Every file's models, records merged by name. */
  drv_costs_t all = {0}, c;
  int rc = 0;
  for (; a < argc && !rc; a++) {
    if (load_copy(argv[a], dir, &c)) {
      rc = 1;
      break;
    }
    for (int32_t m = 0; m < c.n_models; m++) {
      int32_t k = 0;
      while (k < all.n_models && strcmp(all.models[k].name, c.models[m].name) != 0)
        k++;
      if (k == all.n_models) {
        drv_model_t *mo = realloc(all.models, ((size_t)k + 1) * sizeof *mo);
        if (!mo) abort();
        all.models = mo;
        memset(&mo[k], 0, sizeof *mo);
        if (!(mo[k].name = strdup(c.models[m].name))) abort();
        all.n_models++;
      }
      for (int32_t r = 0; r < c.models[m].n; r++)
        if (drv_model_add(&all.models[k], &c.models[m].rec[r], 1)) abort();
    }
    if (all.presets == NULL) {
      all.presets = c.presets; /* kept for the priors */
      c.presets = NULL;
    }
    snprintf(all.presets_path, sizeof all.presets_path, "%s", c.presets_path);
    drv_costs_free(&c);
  }
  for (int32_t m = 0; m < all.n_models && !rc; m++) {
    drv_model_t *mo = &all.models[m];
    char worker[512], err[4400];
    const char *bar = strchr(mo->name, '|');
    snprintf(worker, sizeof worker, "%.*s", (int)(bar - mo->name), mo->name);
    int gpu = strncmp(worker, "cuda", 4) == 0;
    const char *prior_of = from && strncmp(worker, from, strlen(from)) == 0 ? from : worker;
    double prior[SHD_C_N], coef[SHD_C_N];
    int32_t s, most;
    if (drv_costs_prior(&all, prior_of, bar + 1, prior, &s, &most, err, sizeof err)) {
      fprintf(stderr, "mv_costfit: %s\n", err);
      rc = 1;
      break;
    }
    for (int32_t r = 0; r < mo->n; r++)
      if (gpu && slots) mo->rec[r].slots = slots;
    shd_fit_t fi;
    if (shd_fit(prior, mo->rec, mo->n, coef, &fi)) {
      fprintf(stderr, "mv_costfit: %s: the fit failed\n", mo->name);
      rc = 1;
      break;
    }
    printf("%s: %d batches, %d left out; median error %.1f%% from %s's presets, %.1f%% fitted; "
           "x%.3g to their total\n",
           mo->name, fi.used, fi.rejected, 100 * median_err(prior, mo->rec, mo->n), prior_of,
           100 * median_err(coef, mo->rec, mo->n), fi.sum_ratio);
    printf("    \"%s/%s\": {", worker, bar + 1);
    for (int k = 0; k < SHD_C_N; k++)
      printf("%s\"%s\": %.2g", k ? ", " : "", shd_coef_names[k], coef[k]);
    printf("},\n");
    for (int32_t r = 0; verbose && r < mo->n; r++)
      printf("      %5d experiments on %3d slots: %8.3f s measured, %8.3f s the prior, %8.3f s "
             "fitted\n",
             mo->rec[r].n, mo->rec[r].slots, mo->rec[r].seconds, shd_cost_batch(prior, &mo->rec[r]),
             shd_cost_batch(coef, &mo->rec[r]));
  }
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s/costs.json", dir);
  unlink(tmp);
  rmdir(dir);
  drv_costs_free(&all);
  return rc;
}

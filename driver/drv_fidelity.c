/* `multiverse fidelity JOB.json`: how far the fast level of a search is from
 * the slow one on the user's own experiments. A random sample of the job's
 * experiments runs at both levels (the fast one as the job gives them, with
 * network.model flow unless the job sets a model; the slow one with the first
 * refine stage's keys, or --set, else network.model packet); it prints each
 * experiment's ratio of the metric, the ratio's distribution and the rank
 * correlation of the two levels: how much a refine stage should keep. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"
#include "driver/drv_run.h"

static const char fid_usage[] =
    "usage: multiverse fidelity JOB.json [--sample N] [--seed S] [--metric NAME]\n"
    "                           [--order min|max] [--set KEY=VALUE ...] [--threads N]\n"
    "                           [--backend cpu|cuda] [--presets FILE.json]\n"
    "  Runs a random sample of the job's experiments (default 32, drawn with --seed, default 1)\n"
    "  at two levels: as the job gives them, with network.model flow unless the job sets a\n"
    "  model (the fast level), and again with the first refine stage's keys set, or the\n"
    "  --set keys (dotted, the value JSON or text), else network.model packet (the slow level).\n"
    "  Prints each experiment's metric at both levels and their ratio, the ratio's\n"
    "  distribution (median, p90 and max of |fast/slow - 1|), the rank correlation of the two\n"
    "  levels (Spearman), and where the slow level's best ranks at the fast level: what a\n"
    "  refine stage's keep should be. --metric: the first refine stage's, else the kind's\n"
    "  first result; --order: the stage's, else min (smaller is better).\n";

typedef struct fid_opts_t {
  const char *job, *presets, *metric, *order;
  int64_t sample, seed;
  int threads, backend;
  int n_sets;
  const char *sets[32];
} fid_opts_t;

static int fid_parse(int argc, char **argv, fid_opts_t *o) {
  const char *cmd = "fidelity";
  long long v;
  *o = (fid_opts_t){.sample = 32, .seed = 1, .backend = ENG_BACKEND_CPU};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(fid_usage, stdout);
      return -1;
    }
    if (a[0] != '-') {
      if (o->job) return drv_fail(2, "multiverse fidelity: unexpected %s\n%s", a, fid_usage);
      o->job = a;
      continue;
    }
    if (!next) return drv_fail(2, "multiverse fidelity: %s needs a value\n%s", a, fid_usage);
    i++;
    if (strcmp(a, "--sample") == 0) {
      if (drv_opt_int(cmd, a, next, 2, 1000000, &v)) return 2;
      o->sample = v;
    } else if (strcmp(a, "--seed") == 0) {
      if (drv_opt_int(cmd, a, next, 0, INT64_MAX, &v)) return 2;
      o->seed = v;
    } else if (strcmp(a, "--threads") == 0) {
      if (drv_opt_int(cmd, a, next, 1, 4096, &v)) return 2;
      o->threads = (int)v;
    } else if (strcmp(a, "--backend") == 0) {
      if (drv_opt_backend(cmd, next, 0, &o->backend)) return 2;
    } else if (strcmp(a, "--metric") == 0) {
      o->metric = next;
    } else if (strcmp(a, "--order") == 0) {
      if (strcmp(next, "min") && strcmp(next, "max"))
        return drv_fail(2, "multiverse fidelity: --order %s: expected min or max\n", next);
      o->order = next;
    } else if (strcmp(a, "--presets") == 0) {
      o->presets = next;
    } else if (strcmp(a, "--set") == 0) {
      if (!strchr(next, '=') || next[0] == '=' || o->n_sets == 32)
        return drv_fail(2, "multiverse fidelity: --set %s: expected KEY=VALUE (at most 32)\n",
                        next);
      o->sets[o->n_sets++] = next;
    } else {
      return drv_fail(2, "multiverse fidelity: unknown option %s\n%s", a, fid_usage);
    }
  }
  if (!o->job) return drv_fail(2, "%s", fid_usage);
  return drv_opt_keys_once(cmd, "--set", o->sets, o->n_sets);
}

/* The two levels of experiment i: the fast one and the slow one. */
static void fid_levels(const drv_job_t *j, const fid_opts_t *o, int64_t i, json_t **fast,
                       json_t **slow) {
  json_t *x = job_sweep_experiment(j->sw, i);
  json_t *flow = json_pack("{s:s}", "network.model", "flow");
  json_t *slow_set = json_pack("{s:s}", "network.model", "packet");
  *fast = job_sweep_get(x, "network.model") ? json_incref(x) : job_sweep_with(x, flow);
  if (o->n_sets > 0) {
    json_object_clear(slow_set);
    for (int k = 0; k < o->n_sets; k++) {
      const char *eq = strchr(o->sets[k], '=');
      char key[256];
      snprintf(key, sizeof key, "%.*s", (int)(eq - o->sets[k]), o->sets[k]);
      json_t *v = json_loads(eq + 1, JSON_DECODE_ANY, NULL);
      json_object_set_new(slow_set, key, v ? v : json_string(eq + 1));
    }
  }
  *slow = o->n_sets == 0 && job_sweep_n_stages(j->sw) > 0 ? job_refine_apply(j->sw, *fast, 1)
                                                          : job_sweep_with(*fast, slow_set);
  json_decref(x);
  json_decref(flow);
  json_decref(slow_set);
}

/* splitmix64 of the seed and a counter: the sample's draw. */
static uint64_t fid_draw(uint64_t seed, uint64_t k) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ULL + k + 1;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static int by_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int by_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The q-quantile of sorted v[0..n) (nearest rank). */
static double fid_q(const double *v, int64_t n, double q) {
  int64_t k = (int64_t)ceil(q * (double)n) - 1;
  return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

/* Runs experiments (their canonical texts) as one batch of the kind; their
 * rows into `rows`. */
static void fid_run(const drv_job_t *j, int32_t n, const int64_t *index, const uint64_t *id,
                    char *const *canon, const fid_opts_t *o, ana_table_t *rows) {
  drv_work_t w = {.kind = j->kind,
                  .k = j->k,
                  .n = n,
                  .index = index,
                  .id = id,
                  .canon = canon,
                  .run = {(eng_backend_t)o->backend, o->threads},
                  .rows = rows};
  drv_work_run(&w);
}

/* Canonical text and id of each level's experiments; -1 after a problem. */
static int fid_ident(const drv_job_t *j, json_t *const *x, int64_t n, char **canon, uint64_t *id) {
  char err[2048];
  for (int64_t k = 0; k < n; k++)
    if (j->kind->canon(j->k, x[k], "experiment", &canon[k], &id[k], err, sizeof err) < 0) {
      fprintf(stderr, "multiverse fidelity: %s\n", err);
      return -1;
    }
  return 0;
}

int drv_fidelity(int argc, char **argv) {
  fid_opts_t o;
  int rc = fid_parse(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  drv_job_t j;
  job_sweep_errs_t errs = {0};
  if (drv_job_load(o.job, o.presets, &j, &errs)) {
    fputs(errs.text ? errs.text : "", stderr);
    job_sweep_errs_free(&errs);
    drv_job_free(&j);
    return drv_fail(2, "multiverse fidelity: %s: problems in the job; nothing ran\n", o.job);
  }
  const job_refine_t *st = job_sweep_stage(j.sw, 1);
  const char *metric = o.metric ? o.metric : st ? st->metric : NULL;
  int mc = -1, maximize = o.order ? strcmp(o.order, "max") == 0 : st ? st->maximize : 0;
  for (int c = 0; c < j.kind->n_cols && mc < 0; c++)
    if (j.kind->cols[c].type == ANA_DOUBLE && (!metric || !strcmp(j.kind->cols[c].name, metric)))
      mc = c;
  if (mc < 0) {
    drv_job_free(&j);
    return drv_fail(2, "multiverse fidelity: --metric %s: not a result of %s experiments\n", metric,
                    j.kind->name);
  }
  metric = j.kind->cols[mc].name;
  /* The sample: distinct experiments of the sweep in a seeded shuffle. */
  int64_t m = 0, *pick = malloc(((size_t)j.count + 1) * sizeof *pick);
  if (!pick) abort();
  for (int64_t i = 0; i < j.count; i++)
    if (j.first[i] == i && !j.broken[i]) pick[m++] = i;
  for (int64_t k = m - 1; k > 0; k--) {
    int64_t r = (int64_t)(fid_draw((uint64_t)o.seed, (uint64_t)k) % (uint64_t)(k + 1)), t = pick[k];
    pick[k] = pick[r];
    pick[r] = t;
  }
  int64_t n = m < o.sample ? m : o.sample;
  qsort(pick, (size_t)n, sizeof *pick, by_i64);
  json_t **xf = calloc((size_t)n + 1, sizeof *xf), **xs = calloc((size_t)n + 1, sizeof *xs);
  char **cf = calloc((size_t)n + 1, sizeof *cf), **cs = calloc((size_t)n + 1, sizeof *cs);
  uint64_t *idf = calloc((size_t)n + 1, sizeof *idf), *ids = calloc((size_t)n + 1, sizeof *ids);
  double *vf = malloc(((size_t)n + 1) * sizeof *vf), *vs = malloc(((size_t)n + 1) * sizeof *vs);
  double *err = malloc(((size_t)n + 1) * sizeof *err),
         *ratio = malloc(((size_t)n + 1) * sizeof *ratio);
  char tmp[1024];
  ana_table_t *rf = ana_table_create(j.kind->cols, j.kind->n_cols, tmp, sizeof tmp);
  ana_table_t *rs = ana_table_create(j.kind->cols, j.kind->n_cols, tmp, sizeof tmp);
  if (!xf || !xs || !cf || !cs || !idf || !ids || !vf || !vs || !err || !ratio || !rf || !rs)
    abort();
  for (int64_t k = 0; k < n; k++)
    fid_levels(&j, &o, pick[k], &xf[k], &xs[k]);
  rc = fid_ident(&j, xf, n, cf, idf) || fid_ident(&j, xs, n, cs, ids) ? 2 : 0;
  printf("multiverse fidelity: %s: %lld of %lld distinct experiments (seed %lld), metric %s (%s "
         "is better)\n",
         o.job, (long long)n, (long long)m, (long long)o.seed, metric,
         maximize ? "higher" : "lower");
  double t0 = omp_get_wtime();
  if (!rc) fid_run(&j, (int32_t)n, pick, idf, cf, &o, rf);
  double t1 = omp_get_wtime();
  if (!rc) printf("fast level: %lld experiments in %.3f s\n", (long long)n, t1 - t0);
  fflush(stdout);
  /* The slow level a few at a time, with progress. */
  int64_t step = o.threads > 1 ? o.threads : 1;
  for (int64_t a = 0; !rc && a < n; a += step) {
    int64_t b = a + step < n ? a + step : n;
    fid_run(&j, (int32_t)(b - a), pick + a, ids + a, cs + a, &o, rs);
    double el = omp_get_wtime() - t1;
    printf("slow level: %lld/%lld done, %.1f s, ETA %.0f s\n", (long long)b, (long long)n, el,
           el / (double)b * (double)(n - b));
    fflush(stdout);
  }
  int64_t q = 0, *at_f = malloc(((size_t)n + 1) * sizeof *at_f);
  int64_t *at_s = malloc(((size_t)n + 1) * sizeof *at_s);
  if (!at_f || !at_s) abort();
  for (int64_t k = 0; k < n;
       k++) { /* each experiment's row at each level (rows come in any order) */
    at_f[k] = at_s[k] = -1;
    for (int64_t r = 0; !rc && r < ana_table_n_rows(rf); r++)
      if (ana_table_row(rf, r).index == pick[k]) at_f[k] = r;
    for (int64_t r = 0; !rc && r < ana_table_n_rows(rs); r++)
      if (ana_table_row(rs, r).index == pick[k]) at_s[k] = r;
  }
  if (!rc) {
    printf("\n%8s  %14s  %14s  %8s  experiment_id (slow level)\n", "index", "fast", "slow",
           "ratio");
    for (int64_t k = 0; k < n; k++) {
      if (at_f[k] < 0 || at_s[k] < 0) abort(); /* drv_work_run gives every experiment a row */
      ana_row_t a = ana_table_row(rf, at_f[k]), b = ana_table_row(rs, at_s[k]);
      double x = ana_table_value(rf, at_f[k], mc).d, y = ana_table_value(rs, at_s[k], mc).d;
      if (a.status != ANA_OK || b.status != ANA_OK || !isfinite(x) || !isfinite(y) || y == 0) {
        printf("%8lld  %14s  %14s  %8s  %s (not ok at one level: %s)\n", (long long)pick[k], "-",
               "-", "-", b.id, a.status != ANA_OK ? a.message : b.message);
        continue;
      }
      vf[q] = maximize ? -x : x;
      vs[q] = maximize ? -y : y;
      ratio[q] = x / y;
      err[q] = fabs(x / y - 1);
      q++;
      printf("%8lld  %14.9g  %14.9g  %8.4f  %s\n", (long long)pick[k], x, y, x / y, b.id);
    }
  }
  if (!rc && q > 0) {
    double rho = q > 1 ? ana_spearman(vf, vs, q) : NAN;
    /* where the slow level's best ranks at the fast level */
    int64_t best = 0, rank = 1;
    for (int64_t k = 1; k < q; k++)
      if (vs[k] < vs[best]) best = k;
    for (int64_t k = 0; k < q; k++)
      rank += vf[k] < vf[best];
    qsort(err, (size_t)q, sizeof *err, by_dbl);
    qsort(ratio, (size_t)q, sizeof *ratio, by_dbl);
    printf("\n%lld experiments ok at both levels: fast/slow ratio min %.4f, median %.4f, max %.4f; "
           "|ratio - 1| median %.2f %%, p90 %.2f %%, max %.2f %%\n",
           (long long)q, ratio[0], fid_q(ratio, q, 0.5), ratio[q - 1], 100 * fid_q(err, q, 0.5),
           100 * fid_q(err, q, 0.9), 100 * err[q - 1]);
    printf("rank correlation (Spearman): %.4f; the slow level's best is the fast level's rank %lld "
           "of %lld (top %.3g %%): keep at least that many\n",
           rho, (long long)rank, (long long)q, 100.0 * (double)rank / (double)q);
  }
  for (int64_t k = 0; k < n; k++) {
    json_decref(xf[k]);
    json_decref(xs[k]);
    free(cf[k]);
    free(cs[k]);
  }
  free(xf);
  free(xs);
  free(cf);
  free(cs);
  free(idf);
  free(ids);
  free(vf);
  free(vs);
  free(err);
  free(ratio);
  free(pick);
  free(at_f);
  free(at_s);
  ana_table_free(rf);
  ana_table_free(rs);
  drv_job_free(&j);
  return rc ? rc : q > 0 ? 0 : 1;
}

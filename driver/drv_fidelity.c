/* `multiverse fidelity JOB.json`: how far the fast level of a search is from
 * the slow one on the user's own experiments. A random sample of the job's
 * experiments at both levels (the fast one as the job gives them, with
 * network.model flow unless the job sets a model; the slow one with the first
 * refine stage's keys, or --set, else network.model packet) is a job of its
 * own, which runs through the pipeline (drv_pipe_run: ranks, batches, shards,
 * progress, resume); at its end rank 0 prints each experiment's ratio of the
 * metric, the ratio's distribution and the rank correlation of the two
 * levels: how much a refine stage should keep. */
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
    "                           [--backend cpu|cuda] [--presets FILE.json] [--run-dir DIR]\n"
    "                           [--memory GB] [--max-batch N] [--grace S]\n"
    "  Runs a random sample of the job's experiments (default 32, drawn with --seed, default 1)\n"
    "  at two levels: as the job gives them, with network.model flow unless the job sets a\n"
    "  model (the fast level), and again with the first refine stage's keys set, or the\n"
    "  --set keys (dotted, the value JSON or text), else network.model packet (the slow level).\n"
    "  Prints each experiment's metric at both levels and their ratio, the ratio's\n"
    "  distribution (median, p90 and max of |fast/slow - 1|), the rank correlation of the two\n"
    "  levels (Spearman), and where the slow level's best ranks at the fast level: what a\n"
    "  refine stage's keep should be. --metric: the first refine stage's, else the kind's\n"
    "  first result; --order: the stage's, else min (smaller is better). The sample runs as a\n"
    "  job of its own (under mpirun on every rank): in --run-dir DIR if given (kept, and a\n"
    "  rerun continues there), else in a temporary folder.\n";

typedef struct fid_opts_t {
  drv_pipe_t *pipe; /* --run-dir, --memory, --max-batch, --grace */
  const char *job, *presets, *metric, *order;
  int64_t sample, seed;
  int threads, backend;
  int n_sets;
  const char *sets[32];
} fid_opts_t;

static int fid_parse(int argc, char **argv, fid_opts_t *o) {
  const char *cmd = "fidelity";
  long long v;
  drv_pipe_t *p = o->pipe;
  *o = (fid_opts_t){.pipe = p, .sample = 32, .seed = 1, .backend = ENG_BACKEND_CPU};
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
    int pipe_opt = drv_pipe_opt(o->pipe, a, next);
    if (pipe_opt) {
      if (pipe_opt == 2) return 2;
      i++;
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

/* Canonical text and id of each level's experiments; -1 after a problem. */
static int fid_ident(const drv_job_t *j, json_t *const *x, int64_t n, uint64_t *id) {
  char err[2048], *canon = NULL;
  for (int64_t k = 0; k < n; k++) {
    int bad = j->kind->canon(j->k, x[k], "experiment", &canon, &id[k], err, sizeof err) < 0;
    free(canon);
    canon = NULL;
    if (bad) {
      fprintf(stderr, "multiverse fidelity: %s\n", err);
      return -1;
    }
  }
  return 0;
}

/* The sample as a job of its own: the first experiment's fast level is its
 * base, every other experiment at each level an include entry that sets all
 * of its top-level keys (the experiments of one job share them; an id that
 * does not come out the same is found by fid_finish). */
static char *fid_job_text(json_t *const *xf, json_t *const *xs, int64_t n) {
  json_t *inc = json_array(), *base = json_deep_copy(xf[0]);
  for (int64_t k = 0; k < 2 * n; k++) {
    if (k == 0) continue;
    json_t *e = json_deep_copy(k < n ? xf[k] : xs[k - n]);
    json_object_del(e, "kind"); /* the base's; not a key an entry sets */
    json_array_append_new(inc, e);
  }
  json_t *job =
      json_pack("{s:s,s:o,s:{s:o}}", "name", "fidelity", "base", base, "sweep", "include", inc);
  char *text = job ? json_dumps(job, JSON_COMPACT) : NULL;
  json_decref(job);
  return text;
}

typedef struct fid_t {
  fid_opts_t *o;
  const char *job, *metric;
  int maximize;
  int64_t n, m, *pick;
  uint64_t *idf, *ids;
} fid_t;

/* The row of experiment id in t, or -1. */
static int64_t fid_row(const ana_table_t *t, uint64_t id) {
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)id);
  for (int64_t r = 0; r < ana_table_n_rows(t); r++)
    if (strcmp(ana_table_row(t, r).id, hex) == 0) return r;
  return -1;
}

/* Rank 0 at the end: each experiment at both levels, the ratio's distribution,
 * the rank correlation. */
static int fid_finish(void *ctx, const drv_end_t *end) {
  fid_t *f = ctx;
  if (end->stopped) return end->status;
  const drv_pipe_t *p = f->o->pipe;
  char path[4400], err[1024];
  if (p->results && *p->results)
    snprintf(path, sizeof path, "%s", p->results);
  else
    snprintf(path, sizeof path, "%s/%s", end->run_dir, job_sweep_output(end->job->sw));
  ana_table_t *t = ana_read(path, err, sizeof err);
  if (!t) return drv_fail(2, "multiverse fidelity: %s\n", err);
  int mc = ana_table_find(t, f->metric);
  if (mc < 0) {
    ana_table_free(t);
    return drv_fail(2, "multiverse fidelity: %s: no column %s\n", path, f->metric);
  }
  int64_t n = f->n, q = 0;
  double *vf = malloc(((size_t)n + 1) * sizeof *vf), *vs = malloc(((size_t)n + 1) * sizeof *vs);
  double *dev = malloc(((size_t)n + 1) * sizeof *dev),
         *ratio = malloc(((size_t)n + 1) * sizeof *ratio);
  if (!vf || !vs || !dev || !ratio) abort();
  int rc = 0;
  printf("\n%8s  %14s  %14s  %8s  experiment_id (slow level)\n", "index", "fast", "slow", "ratio");
  for (int64_t k = 0; k < n && !rc; k++) {
    int64_t rf = fid_row(t, f->idf[k]), rs = fid_row(t, f->ids[k]);
    if (rf < 0 || rs < 0) {
      rc = drv_fail(2, "multiverse fidelity: experiment %lld has no row at the %s level in %s\n",
                    (long long)f->pick[k], rf < 0 ? "fast" : "slow", path);
      break;
    }
    ana_row_t a = ana_table_row(t, rf), b = ana_table_row(t, rs);
    double x = ana_table_value(t, rf, mc).d, y = ana_table_value(t, rs, mc).d;
    if (a.status != ANA_OK || b.status != ANA_OK || !isfinite(x) || !isfinite(y) || y == 0) {
      printf("%8lld  %14s  %14s  %8s  %s (not ok at one level: %s)\n", (long long)f->pick[k], "-",
             "-", "-", b.id,
             a.status != ANA_OK ? (a.message ? a.message : "") : (b.message ? b.message : ""));
      continue;
    }
    vf[q] = f->maximize ? -x : x;
    vs[q] = f->maximize ? -y : y;
    ratio[q] = x / y;
    dev[q] = fabs(x / y - 1);
    q++;
    printf("%8lld  %14.9g  %14.9g  %8.4f  %s\n", (long long)f->pick[k], x, y, x / y, b.id);
  }
  if (!rc && q > 0) {
    double rho = q > 1 ? ana_spearman(vf, vs, q) : NAN;
    /* where the slow level's best ranks at the fast level */
    int64_t best = 0, rank = 1;
    for (int64_t k = 1; k < q; k++)
      if (vs[k] < vs[best]) best = k;
    for (int64_t k = 0; k < q; k++)
      rank += vf[k] < vf[best];
    qsort(dev, (size_t)q, sizeof *dev, by_dbl);
    qsort(ratio, (size_t)q, sizeof *ratio, by_dbl);
    printf("\n%lld experiments ok at both levels: fast/slow ratio min %.4f, median %.4f, max %.4f; "
           "|ratio - 1| median %.2f %%, p90 %.2f %%, max %.2f %%\n",
           (long long)q, ratio[0], fid_q(ratio, q, 0.5), ratio[q - 1], 100 * fid_q(dev, q, 0.5),
           100 * fid_q(dev, q, 0.9), 100 * dev[q - 1]);
    printf("rank correlation (Spearman): %.4f; the slow level's best is the fast level's rank %lld "
           "of %lld (top %.3g %%): keep at least that many\n",
           rho, (long long)rank, (long long)q, 100.0 * (double)rank / (double)q);
  }
  fflush(stdout);
  free(vf);
  free(vs);
  free(dev);
  free(ratio);
  ana_table_free(t);
  if (rc) return rc;
  return q > 0 ? end->status : 1;
}

int drv_fidelity(int argc, char **argv) {
  static drv_pipe_t p = {.cmd = "fidelity"};
  fid_opts_t o = {.pipe = &p};
  drv_quiet = drv_launcher_rank() > 0; /* one copy of each message under mpirun */
  int rc = fid_parse(argc, argv, &o);
  drv_quiet = 0;
  if (rc) return rc < 0 ? 0 : rc;
  drv_job_t j;
  job_sweep_errs_t errs = {0};
  if (drv_job_load(o.job, o.presets, &j, &errs)) {
    if (drv_launcher_rank() <= 0) fputs(errs.text ? errs.text : "", stderr);
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
  uint64_t *idf = calloc((size_t)n + 1, sizeof *idf), *ids = calloc((size_t)n + 1, sizeof *ids);
  if (!xf || !xs || !idf || !ids) abort();
  for (int64_t k = 0; k < n; k++)
    fid_levels(&j, &o, pick[k], &xf[k], &xs[k]);
  fid_t f = {.o = &o,
             .job = o.job,
             .metric = j.kind->cols[mc].name,
             .maximize = maximize,
             .n = n,
             .m = m,
             .pick = pick,
             .idf = idf,
             .ids = ids};
  char *text = NULL, dir[4096];
  rc = n == 0 ? drv_fail(1, "multiverse fidelity: %s: no valid experiment to sample\n", o.job)
       : fid_ident(&j, xf, n, idf) || fid_ident(&j, xs, n, ids) ? 2
                                                                : 0;
  if (!rc && !(text = fid_job_text(xf, xs, n)))
    rc = drv_fail(2, "multiverse fidelity: out of memory\n");
  if (!rc) {
    /* the job's relative paths (topologies, flows, workloads) start at its folder */
    snprintf(dir, sizeof dir, "%s", o.job);
    char *slash = strrchr(dir, '/');
    if (slash)
      slash[slash == dir ? 1 : 0] = '\0';
    else
      snprintf(dir, sizeof dir, ".");
    p.o.job = "fidelity";
    p.o.presets = o.presets;
    p.o.backend = o.backend;
    p.o.threads = o.threads;
    p.job_text = text;
    p.job_dir = dir;
    const char *in[] = {o.job};
    p.inputs = in;
    p.n_inputs = 1;
    const char *results = p.results;
    if (!(rc = drv_pipe_front(&p))) {
      p.results = results; /* the results file: in the run folder, unless --results */
      p.quiet = 0;         /* the plan, progress and merge lines */
      p.o.one_batch = 0;   /* batches as `run` makes them: progress as they end */
      p.finish = fid_finish;
      p.finish_ctx = &f;
      if (drv_launcher_rank() <= 0)
        printf("multiverse fidelity: %s: %lld of %lld distinct experiments (seed %lld), metric %s "
               "(%s is better)\n",
               o.job, (long long)n, (long long)m, (long long)o.seed, f.metric,
               maximize ? "higher" : "lower");
      fflush(stdout);
      rc = drv_pipe_run(&p, argc, argv);
    }
  }
  for (int64_t k = 0; k < n; k++) {
    json_decref(xf[k]);
    json_decref(xs[k]);
  }
  free(text);
  free(xf);
  free(xs);
  free(idf);
  free(ids);
  free(pick);
  drv_job_free(&j);
  return rc;
}

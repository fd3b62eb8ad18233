/* Shared by the training-model tests: the presets, and a set-up built from a model
 * preset, a GPU preset and a plan, checked as a job file's would be. */
#ifndef TRNTEST_H
#define TRNTEST_H

#include "mvtest.h"
#include "train/trn.h"

static trn_presets_t trntest_presets;

static inline int trntest_init(void) {
  char err[1024];
  if (trn_presets_load(&trntest_presets, getenv("MV_PRESETS"), err, sizeof err) < 0) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  return 0;
}

/* `model` on `servers` servers of `gpu` with plan pl (dp 0: derived); the set-up must
 * be valid. */
static inline trn_setup_t trntest_setup(const char *model, const char *gpu, int64_t servers,
                                        trn_plan_t pl) {
  trn_setup_t s = {0};
  trn_problems_t pr = {0};
  const trn_model_t *m = trn_preset_model(&trntest_presets, model);
  const trn_gpu_t *g = trn_preset_gpu(&trntest_presets, gpu);
  CHECK(m && g);
  if (!m || !g) return s;
  s.model = *m;
  s.plan = pl;
  s.cluster.gpu = *g;
  s.cluster.gpus_per_server = g->gpus_per_server;
  s.cluster.nics_per_server = g->nics_per_server;
  s.cluster.nic_gbps = g->nic_gbps;
  s.cluster.overlap_slowdown = g->overlap_slowdown;
  s.cluster.servers = servers;
  trn_setup_check(&s, "test", &pr);
  for (int i = 0; i < pr.n && i < TRN_PROBLEMS_MAX; i++)
    fprintf(stderr, "set-up problem: %s\n", pr.msg[i]);
  CHECK_EQ_I64(pr.n, 0);
  return s;
}

/* A plan: tp, pp, global and micro batch, virtual stages; the rest default. */
static inline trn_plan_t trntest_plan(int64_t tp, int64_t pp, int64_t global, int64_t micro,
                                      int64_t v) {
  trn_plan_t pl = trn_plan_default();
  pl.tp = tp;
  pl.pp = pp;
  pl.global_batch = global;
  pl.micro_batch = micro;
  pl.virtual_stages = v;
  return pl;
}

/* |got / want - 1| <= tol */
#define CHECK_REL(got, want, tol)                                                                  \
  do {                                                                                             \
    double g_ = (double)(got), w_ = (double)(want);                                                \
    if (!(fabs(g_ / w_ - 1) <= (tol))) {                                                           \
      fprintf(stderr, "%s:%d: %s == %.10g, expected %s == %.10g within %g\n", __FILE__, __LINE__,  \
              #got, g_, #want, w_, (double)(tol));                                                 \
      mvtest_failures++;                                                                           \
    }                                                                                              \
  } while (0)

#endif

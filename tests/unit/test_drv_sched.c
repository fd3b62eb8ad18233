/* The run's refit of a worker's cost model (driver/drv_sched.c: drv_sched_fit):
 * the fitted coefficients in seconds times the fit's sum_ratio (plans add
 * batches up), the contention (no unit) as fitted, not scaled twice; without
 * a usable prior, the prior. Batches of a GPU of 264 slots whose spread
 * bounds them, one of them 6x slower (a storm the fit leaves out). */
#include "driver/drv_jobs.h"
#include "mvtest.h"

static shd_rec_t batch(int32_t n, double hops, const double truth[SHD_C_N], double slow) {
  shd_rec_t r;
  memset(&r, 0, sizeof r);
  r.n = n;
  r.slots = 264;
  r.weight = 1;
  const double one[SHD_F_N] = {hops, 200, 2e4, 1, 600};
  for (int k = 0; k < SHD_F_N; k++) {
    r.sum.x[k] = n * one[k];
    r.top[0].x[k] = r.top[1].x[k] = one[k];
  }
  r.seconds = shd_cost_batch(truth, &r) * slow;
  return r;
}

int main(void) {
  const double prior[SHD_C_N] = {4e-7, 1e-4, 2e-8, 6e-4, 2e-8, 0.3, 4};
  const double truth[SHD_C_N] = {8e-7, 2e-4, 4e-8, 1.2e-3, 4e-8, 0.6, 6};
  drv_model_t model = {0};
  for (int i = 0; i < 12; i++) {
    shd_rec_t r = batch(300 + 50 * i, 1e5 * (1 + i % 3), truth, i == 5 ? 6 : 1);
    CHECK(drv_model_add(&model, &r, 0) == 0);
  }

  double want[SHD_C_N], coef[SHD_C_N];
  shd_fit_t fit_want, fit;
  CHECK(drv_model_fit(&model, 0, prior, want, &fit_want) == 0);
  /* the test tells a rescaled contention apart: a ratio off 1, a contention the batches moved */
  CHECK(fit_want.sum_ratio > 1.1);
  CHECK(want[SHD_C_CONTENTION] != prior[SHD_C_CONTENTION]);

  drv_sched_t s;
  memset(&s, 0, sizeof s);
  s.models = &model;
  s.prior = (double *)prior;
  s.coef = coef;
  s.fit = &fit;
  drv_sched_fit(&s, 0);
  CHECK(fit.sum_ratio == fit_want.sum_ratio);
  for (int k = 0; k < SHD_C_CONTENTION; k++)
    CHECK(coef[k] == want[k] * fit_want.sum_ratio);
  CHECK(coef[SHD_C_CONTENTION] == want[SHD_C_CONTENTION]);
  CHECK(coef[SHD_C_CONTENTION] != want[SHD_C_CONTENTION] * fit_want.sum_ratio);

  /* a prior the fit refuses (a coefficient not > 0): the prior as it is */
  double bad[SHD_C_N];
  memcpy(bad, prior, sizeof bad);
  bad[SHD_F_NODE_WINDOWS] = 0;
  s.prior = bad;
  drv_sched_fit(&s, 0);
  CHECK(memcmp(coef, bad, sizeof coef) == 0);

  drv_model_free(&model);
  return mvtest_end();
}

/* Sharding: a batch's predicted seconds under a worker's coefficients, and
 * the robust, deterministic fit of those coefficients to measured batches
 * (shd_cost.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shd_cost.h"

const char *const shd_coef_names[SHD_C_N] = {"hops", "windows", "node_windows", "exp",
                                             "rows", "batch",   "contention"};

#define NOISE 0.1   /* the least log spread of a batch's time assumed (others share the node) */
#define SIGMA_S 3.0 /* prior spread of the common log scale */
#define SIGMA_V 1.0 /* prior spread of each coefficient's own log factor */
#define SIGMA_C 1.5 /* prior spread of the contention's log factor (no unit: not in the scale) */
#define N_U SHD_C_N /* unknowns: each coefficient's log factor over the prior */
#define N_S SHD_C_CONTENTION /* of them, the coefficients in seconds: 0 .. N_S - 1 */
#define MAX_ITER 200

double shd_cost_parallel(const double coef[SHD_C_N], const shd_feat_t *f) {
  double s = 0;
  for (int k = 0; k < SHD_F_PARALLEL; k++)
    s += coef[k] * f->x[k];
  return s;
}

double shd_cost_serial(const double coef[SHD_C_N], const shd_feat_t *f) {
  double s = 0;
  for (int k = SHD_F_PARALLEL; k < SHD_F_N; k++)
    s += coef[k] * f->x[k];
  return s;
}

/* The prediction and, with grad, d(prediction)/d(coef_k). */
static double batch_eval(const double coef[SHD_C_N], const shd_rec_t *r, double grad[SHD_C_N]) {
  double lanes = shd_lanes(r->slots, coef[SHD_C_CONTENTION]);
  double a0 = shd_cost_parallel(coef, &r->top[0]), a1 = shd_cost_parallel(coef, &r->top[1]);
  const shd_feat_t *top = a1 > a0 ? &r->top[1] : &r->top[0];
  double longest = a1 > a0 ? a1 : a0, spread = shd_cost_parallel(coef, &r->sum) / lanes;
  int by_top = longest >= spread;
  if (grad) {
    for (int k = 0; k < SHD_F_PARALLEL; k++)
      grad[k] = by_top ? top->x[k] : r->sum.x[k] / lanes;
    for (int k = SHD_F_PARALLEL; k < SHD_F_N; k++)
      grad[k] = r->sum.x[k];
    grad[SHD_C_BATCH] = 1;
    /* spread = sum x contention / slots while the lanes are more than one */
    grad[SHD_C_CONTENTION] = by_top || lanes <= 1 ? 0 : spread / coef[SHD_C_CONTENTION];
  }
  return (by_top ? longest : spread) + shd_cost_serial(coef, &r->sum) + coef[SHD_C_BATCH];
}

double shd_cost_batch(const double coef[SHD_C_N], const shd_rec_t *r) {
  return batch_eval(coef, r, NULL);
}

/* A total order on records (every field), so that the fit sums in one order. */
static int rec_cmp(const void *pa, const void *pb) {
  const shd_rec_t *a = pa, *b = pb;
  const double ka[] = {a->seconds, a->weight, a->n, a->slots};
  const double kb[] = {b->seconds, b->weight, b->n, b->slots};
  for (size_t i = 0; i < sizeof ka / sizeof *ka; i++)
    if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
  int c = memcmp(&a->sum, &b->sum, sizeof a->sum);
  return c ? c : memcmp(a->top, b->top, sizeof a->top);
}

/* Huber's loss of a residual in units of the noise: quadratic up to 2. */
static double huber(double r) {
  double a = fabs(r);
  return a <= 2 ? 0.5 * r * r : 2 * (a - 1);
}

static void coefs(const double prior[SHD_C_N], const double u[N_U], double coef[SHD_C_N]) {
  for (int k = 0; k < SHD_C_N; k++)
    coef[k] = prior[k] * exp(u[k]);
}

/* The prior on u: the mean of the coefficients in seconds (the common
 * scale) spreads by SIGMA_S, each of their factors around the mean by
 * SIGMA_V, the contention's by SIGMA_C on its own: penalty u'Au / 2 with,
 * over the first N_S, A = 11' / (N_S^2 SIGMA_S^2) + (I - 11' / N_S) /
 * SIGMA_V^2, and 1 / SIGMA_C^2 for the contention. */
static double prior_a(int i, int j) {
  if (i >= N_S || j >= N_S) return (i == j) / (SIGMA_C * SIGMA_C);
  return 1.0 / (N_S * N_S * SIGMA_S * SIGMA_S) + ((i == j) - 1.0 / N_S) / (SIGMA_V * SIGMA_V);
}

static double mean(const double u[N_U]) {
  double m = 0;
  for (int k = 0; k < N_S; k++)
    m += u[k];
  return m / N_S;
}

static double penalty(const double u[N_U]) {
  double m = mean(u), p = 0.5 * (m / SIGMA_S) * (m / SIGMA_S);
  for (int k = 0; k < N_S; k++)
    p += 0.5 * ((u[k] - m) / SIGMA_V) * ((u[k] - m) / SIGMA_V);
  for (int k = N_S; k < N_U; k++)
    p += 0.5 * (u[k] / SIGMA_C) * (u[k] / SIGMA_C);
  return p;
}

static double objective(const double prior[SHD_C_N], const shd_rec_t *r, int32_t n,
                        const double u[N_U], double noise) {
  double coef[SHD_C_N], f = penalty(u);
  coefs(prior, u, coef);
  for (int32_t i = 0; i < n; i++)
    f += r[i].weight * huber(log(r[i].seconds / batch_eval(coef, &r[i], NULL)) / noise);
  return f;
}

/* Solves a (N_U x N_U, symmetric positive definite) x = b by Gaussian
 * elimination with partial pivoting; 0 or -1 if singular. */
static int solve(double a[N_U][N_U], double b[N_U], double x[N_U]) {
  for (int c = 0; c < N_U; c++) {
    int p = c;
    for (int i = c + 1; i < N_U; i++)
      if (fabs(a[i][c]) > fabs(a[p][c])) p = i;
    if (!(fabs(a[p][c]) > 1e-300)) return -1;
    if (p != c) {
      for (int j = 0; j < N_U; j++) {
        double t = a[c][j];
        a[c][j] = a[p][j];
        a[p][j] = t;
      }
      double t = b[c];
      b[c] = b[p];
      b[p] = t;
    }
    for (int i = c + 1; i < N_U; i++) {
      double m = a[i][c] / a[c][c];
      for (int j = c; j < N_U; j++)
        a[i][j] -= m * a[c][j];
      b[i] -= m * b[c];
    }
  }
  for (int c = N_U - 1; c >= 0; c--) {
    double s = b[c];
    for (int j = c + 1; j < N_U; j++)
      s -= a[c][j] * x[j];
    x[c] = s / a[c][c];
  }
  return 0;
}

/* The normal equations of one Gauss-Newton step at u (IRLS weights for the
 * Huber loss): h = J'WJ + P, g = J'Wr - P u. */
static void normal(const double prior[SHD_C_N], const shd_rec_t *r, int32_t n, const double u[N_U],
                   double noise, double h[N_U][N_U], double g[N_U]) {
  double coef[SHD_C_N], grad[SHD_C_N];
  coefs(prior, u, coef);
  memset(h, 0, sizeof(double) * N_U * N_U);
  memset(g, 0, sizeof(double) * N_U);
  for (int32_t i = 0; i < n; i++) {
    double pred = batch_eval(coef, &r[i], grad), res = log(r[i].seconds / pred);
    double w = r[i].weight * (fabs(res) <= 2 * noise ? 1 : 2 * noise / fabs(res)) / (noise * noise);
    double j[N_U]; /* d log(pred) / d u */
    for (int k = 0; k < SHD_C_N; k++)
      j[k] = coef[k] * grad[k] / pred;
    for (int a = 0; a < N_U; a++) {
      g[a] += w * j[a] * res;
      for (int b = 0; b < N_U; b++)
        h[a][b] += w * j[a] * j[b];
    }
  }
  for (int a = 0; a < N_U; a++)
    for (int b = 0; b < N_U; b++) {
      h[a][b] += prior_a(a, b);
      g[a] -= prior_a(a, b) * u[b];
    }
}

static int by_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return a < b ? -1 : a > b;
}

/* Median |log(measured / predicted)| and the records beyond `far` of it. */
static double median_err(const double coef[SHD_C_N], const shd_rec_t *r, int32_t n, double far,
                         int32_t *beyond) {
  double *e = malloc(((size_t)n + 1) * sizeof *e);
  if (!e) return NAN;
  int32_t out = 0;
  for (int32_t i = 0; i < n; i++) {
    e[i] = fabs(log(r[i].seconds / shd_cost_batch(coef, &r[i])));
    out += e[i] > far;
  }
  qsort(e, (size_t)n, sizeof *e, by_double);
  double m = n == 0 ? 0 : n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
  free(e);
  if (beyond) *beyond = out;
  return m;
}

/* Levenberg-Marquardt from u: a fixed sequence of steps, each one kept only
 * when it lowers the objective. */
static void lm(const double prior[SHD_C_N], const shd_rec_t *rs, int32_t m, double noise,
               double u[N_U]) {
  double f = objective(prior, rs, m, u, noise), mu = 1e-3;
  for (int it = 0; it < MAX_ITER; it++) {
    double h[N_U][N_U], g[N_U], step[N_U], next[N_U];
    normal(prior, rs, m, u, noise, h, g);
    int better = 0, done = 0;
    for (int tries = 0; tries < 40 && !better; tries++) {
      double hd[N_U][N_U], gd[N_U];
      memcpy(hd, h, sizeof hd);
      memcpy(gd, g, sizeof gd);
      for (int k = 0; k < N_U; k++)
        hd[k][k] += mu * (h[k][k] > 0 ? h[k][k] : 1);
      if (solve(hd, gd, step)) break;
      for (int k = 0; k < N_U; k++)
        next[k] = u[k] + step[k];
      double fn = objective(prior, rs, m, next, noise);
      if (fn < f) {
        better = 1;
        done = f - fn <= 1e-13 * (1 + fn);
        memcpy(u, next, sizeof(double) * N_U);
        f = fn;
        mu = mu / 3 > 1e-12 ? mu / 3 : 1e-12;
      } else {
        mu *= 4;
      }
    }
    if (!better || done) return;
  }
}

int shd_fit(const double prior[SHD_C_N], const shd_rec_t *r, int32_t n, double coef[SHD_C_N],
            shd_fit_t *info) {
  shd_fit_t fi = {0};
  for (int k = 0; k < SHD_C_N; k++)
    if (!(prior[k] > 0) || !isfinite(prior[k])) return -1;
  memcpy(coef, prior, sizeof(double) * SHD_C_N);
  fi.scale = 1;
  /* The usable records, in a fixed order. */
  shd_rec_t *rs = malloc(((size_t)n + 1) * sizeof *rs);
  if (!rs) return -1;
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++) {
    double p = shd_cost_batch(prior, &r[i]);
    if (r[i].seconds > 0 && isfinite(r[i].seconds) && r[i].weight > 0 && isfinite(r[i].weight) &&
        p > 0 && isfinite(p))
      rs[m++] = r[i];
  }
  qsort(rs, (size_t)m, sizeof *rs, rec_cmp);
  fi.used = m;
  fi.sum_ratio = 1;
  int32_t all = m; /* rs[all..) keeps the ones the second fit leaves out */
  fi.err_prior = median_err(prior, rs, m, INFINITY, NULL);
  double u[N_U] = {0};
  if (m > 0) {
    /* Start from the median ratio: the scale one batch is enough to find. */
    double *ratio = malloc((size_t)m * sizeof *ratio);
    if (!ratio) {
      free(rs);
      return -1;
    }
    for (int32_t i = 0; i < m; i++)
      ratio[i] = log(rs[i].seconds / shd_cost_batch(prior, &rs[i]));
    qsort(ratio, (size_t)m, sizeof *ratio, by_double);
    double start = m % 2 ? ratio[m / 2] : 0.5 * (ratio[m / 2 - 1] + ratio[m / 2]);
    free(ratio);
    for (int k = 0; k < N_S; k++)
      u[k] = start; /* the contention's starts at the prior's */
    /* The noise: the spread of the batches about that scale (1.4826 x their
     * median absolute residual), at least NOISE. */
    coefs(prior, u, coef);
    double noise = 1.4826 * median_err(coef, rs, m, INFINITY, NULL);
    lm(prior, rs, m, noise > NOISE ? noise : NOISE, u);
    /* Again with the spread about the fit, without the batches more than
     * max(0.6, 4 spreads) off it (a node busy with other work, a batch that
     * was stopped): they would still pull. */
    coefs(prior, u, coef);
    noise = 1.4826 * median_err(coef, rs, m, INFINITY, NULL);
    if (noise < NOISE) noise = NOISE;
    double far = 4 * noise > 0.6 ? 4 * noise : 0.6;
    int32_t kept = 0, out = m;
    shd_rec_t *left = malloc((size_t)m * sizeof *left);
    if (!left) {
      free(rs);
      return -1;
    }
    for (int32_t i = 0; i < m; i++)
      if (fabs(log(rs[i].seconds / shd_cost_batch(coef, &rs[i]))) <= far)
        rs[kept++] = rs[i];
      else
        left[--out] = rs[i];
    memcpy(rs + kept, left + out, (size_t)(m - out) * sizeof *rs);
    free(left);
    fi.rejected = m - kept;
    m = kept;
    lm(prior, rs, m, noise, u);
    coefs(prior, u, coef);
    fi.err_fit = median_err(coef, rs, m, 2 * noise, &fi.outliers);
    /* Each batch's measured over predicted, weighted by the record's weight,
     * not its seconds: a few long batches of another sweep under the same
     * model (a costs file serves many) would otherwise set it alone. */
    double ratios = 0, weights = 0;
    for (int32_t i = 0; i < all; i++) {
      ratios += rs[i].weight * (rs[i].seconds / shd_cost_batch(coef, &rs[i]));
      weights += rs[i].weight;
    }
    if (weights > 0 && isfinite(ratios / weights)) fi.sum_ratio = ratios / weights;
  }
  fi.scale = exp(mean(u));
  free(rs);
  if (info) *info = fi;
  return 0;
}

/* Sharding: the cost model that learns. An experiment's features (what its
 * estimate reads), a worker's coefficients (seconds per unit of each), the
 * seconds a batch takes on a worker, and the robust fit of coefficients to
 * measured batches; then the plan of the remaining work over workers of
 * several kinds (a GPU and a node's cores), redone as measurements arrive. */
#ifndef SHD_COST_H
#define SHD_COST_H

#include <stddef.h>
#include <stdint.h>

#include "shd.h"

/* Features of one experiment. The first SHD_F_PARALLEL are simulation work,
 * spread over the slots of a worker (a GPU's resident experiments, a CPU's
 * threads); the others are serial work of the worker's own thread (building
 * the experiment, copying its world, reading its results). */
typedef enum shd_feat_k {
  SHD_F_HOPS = 0,         /* packet transmissions on links (estimate) */
  SHD_F_WINDOWS = 1,      /* windows stepped (estimate) */
  SHD_F_NODE_WINDOWS = 2, /* nodes x windows: every node is looked at in each window */
  SHD_F_EXP = 3,          /* 1 per experiment */
  SHD_F_ROWS = 4,         /* nodes + ports + tasks: the size of its world */
  SHD_F_N = 5
} shd_feat_k;
#define SHD_F_PARALLEL 3

/* Coefficients: s per unit of each feature (a slot's seconds for the
 * parallel ones), then s per batch, then the worker's contention: how much
 * slower its slots go when all are busy (no unit; 1: not at all; a worker of
 * one slot has none: shd_lanes). A GPU's
 * slots are its resident experiments (264 on an H200: a batch of up to 264
 * runs in one wave and ends with its longest member), but many small ones
 * share the device's throughput: 528 small network experiments took 9.2 s
 * on the H200, 4.3x what 264 slots at one experiment's speed give. */
#define SHD_C_BATCH SHD_F_N
#define SHD_C_CONTENTION (SHD_F_N + 1)
#define SHD_C_N (SHD_F_N + 2)

typedef struct shd_feat_t {
  double x[SHD_F_N];
} shd_feat_t;

/* Names of the features, of the batch coefficient and of the contention
 * ("hops", "windows", "node_windows", "exp", "rows", "batch", "contention"):
 * the keys of the cost files. */
extern const char *const shd_coef_names[SHD_C_N];

/* An experiment's parallel seconds (one slot) and serial seconds. */
double shd_cost_parallel(const double coef[SHD_C_N], const shd_feat_t *f);
double shd_cost_serial(const double coef[SHD_C_N], const shd_feat_t *f);

/* One measured batch. */
typedef struct shd_rec_t {
  int32_t n;         /* experiments */
  int32_t slots;     /* experiments stepped side by side at full speed */
  double seconds;    /* measured: the batch's wall time */
  double weight;     /* 1 for a batch of this run; less for older ones */
  shd_feat_t sum;    /* summed over its members */
  shd_feat_t top[2]; /* its two costliest members by the estimate (zero if fewer) */
} shd_rec_t;

/* Predicted seconds of a batch:
 *   max(costliest member's parallel s, sum of parallel s / shd_lanes(slots,
 *       contention))
 *   + sum of serial s + batch s
 * (the members step together: the batch lasts as long as its longest member
 * or as the device's throughput needs for all of them, whichever is more). */
double shd_cost_batch(const double coef[SHD_C_N], const shd_rec_t *r);

typedef struct shd_fit_t {
  int32_t used;     /* records usable (finite, positive seconds and estimate) */
  int32_t rejected; /* of them, left out: far off the first fit */
  int32_t outliers; /* of the others, beyond 2 noises of the second */
  double scale;     /* the common factor the fit found over the prior (the
                     * coefficients in seconds; the contention apart) */
  double err_prior; /* median |log(measured / estimate)| under the prior */
  double err_fit;   /* the same under the fitted coefficients */
  double sum_ratio; /* the usable records' mean of measured over the fitted
                     * coefficients' prediction (weighted by their weight),
                     * the left-out ones included (1 without records): what
                     * a total of such batches needs */
} shd_fit_t;

/* Fits coefficients to measured batches, starting from (and held towards)
 * `prior`: coef_k = prior_k * exp(u_k), minimising the Huber loss of the log
 * residuals in units of their noise (quadratic to 2 noises, then linear, so
 * a few outliers cannot drag the fit) plus (s / 3)^2 / 2 + sum ((u_k - s) /
 * 1)^2 / 2, s the mean of the u_k of the coefficients in seconds, and
 * (u_c / 1.5)^2 / 2 for the contention's: the common scale moves freely (one
 * batch is enough to correct it), each coefficient's own factor only as far
 * as batches of different shapes agree on it, and those the batches do not
 * tell apart keep the prior's proportions; the contention (no unit) is not
 * part of the scale and moves only by batches that the device's throughput
 * bounds, against those their longest member bounds. The noise is the batches' spread
 * (1.4826 x their median absolute residual; at least 0.1: a batch's time
 * varies by some 10% on a node others share): about the median ratio for a
 * first fit, then about that fit for a second one without the batches more
 * than max(0.6, 4 noises) off it. Levenberg-Marquardt steps from the median
 * ratio, the records sorted first: the same records give the same bits in
 * any order, on any rank. No record: the prior. The fit follows the typical
 * batch; info->sum_ratio says how far its prediction of all of them falls
 * short of their measured total (batches it left out, a skewed spread). Returns 0, or -1 when prior
 * holds a coefficient that is not finite and > 0 (or out of memory). */
int shd_fit(const double prior[SHD_C_N], const shd_rec_t *r, int32_t n, double coef[SHD_C_N],
            shd_fit_t *info);

/* ---- the plan of the remaining work over workers (shd_sched.c) ---- */

/* A kind of worker: its coefficients per cost key (kind and model of the
 * experiments, which never share a batch), slots, memory and batch limit. */
typedef struct shd_class_t {
  const double *coef; /* (n_keys * SHD_C_N) */
  int32_t slots;      /* GPU: resident experiments; CPU: threads */
  int32_t max_batch;  /* 0: no limit */
  int64_t mem_budget; /* bytes one batch may use */
  double target;      /* s a batch grows to (shd_desc_t.target); 0: the plan's own */
} shd_class_t;

typedef struct shd_worker_t {
  int32_t cls;
  double free_at; /* s from now until its batch in hand ends (0: free) */
} shd_worker_t;

typedef struct shd_sched_t {
  int32_t n_exps;
  const shd_feat_t *feat; /* (n_exps) */
  const int64_t *mem;     /* (n_exps) bytes */
  const int32_t *key;     /* (n_exps) cost key, 0 .. n_keys-1 */
  const uint8_t *taken;   /* (n_exps) 1: claimed or done; NULL: none */
  int32_t n_keys;
  int32_t n_classes;
  const shd_class_t *cls;
  int32_t n_workers;
  const shd_worker_t *workers;
} shd_sched_t;

/* A batch of the plan. */
typedef struct shd_pick_t {
  int32_t n;        /* members (0: none) */
  int32_t *members; /* (n) experiment indices, ascending; the caller's (n_exps) */
  int32_t key;
  double cost; /* s, on its class */
} shd_pick_t;

/* What the plan says of the remaining work. */
typedef struct shd_outlook_t {
  double makespan;  /* s from now until every worker is done (0: nothing left) */
  int32_t batches;  /* in the plan */
  int32_t unplaced; /* experiments no kind's memory holds (left out) */
} shd_outlook_t;

/* The plan of the experiments not taken, from now: each goes to the kind of
 * worker that would finish it first (largest first: the loads of each kind,
 * per worker, with what its workers hold in hand, against its own time on
 * the kind's first free worker, or the longest the kind took already if that
 * is longer: experiments step side by side), experiments whose memory no
 * batch of a kind holds never go there; each kind packs its share (shd_plan, per cost key)
 * and its workers take the batches largest first as they become free. With
 * `me` >= 0 fills *next with the first batch worker `me` would take now (n 0
 * when its kind has no share). 0, or -1 out of memory. */
int shd_sched(const shd_sched_t *s, int32_t me, shd_pick_t *next, shd_outlook_t *out);

/* Makespan (s) of a plan's batches taken in order by `ranks` ranks free at
 * free_at[r] (NULL: all at 0; ties: lower rank). */
double shd_makespan_from(const shd_plan_t *plan, int32_t ranks, const double *free_at,
                         int32_t *rank_of);

/* When each of a batch's members ends (s from the start of their run,
 * ascending into ends[0..n)) if `threads` threads take them in order
 * (members cost[0..n)), each the next as it becomes free: a CPU batch in the
 * engine's experiment-major mode. ends may be cost. */
void shd_member_ends(const double *cost, int32_t n, int32_t threads, double *ends);

/* A batch's estimate (s) from its own members: est, the plan's, with its
 * members' part (ends[n - 1], ends as shd_member_ends gives them, plus their
 * serial seconds) scaled by the ratio of the e-th end's measured time `ran`
 * to its modelled one, ends[e - 1]; its batch overhead as it was. At least
 * ran; est (or ran) when no member has ended. */
double shd_own_estimate(double est, const double *ends, int32_t n, int32_t e, double ran);

#endif

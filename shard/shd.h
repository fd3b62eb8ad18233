/* Sharding: packing experiments into GPU batches under a device memory budget,
 * ordering the batches largest first, and the makespan that order gives on R
 * ranks taking batches from one shared counter. */
#ifndef SHD_H
#define SHD_H

#include <stddef.h>
#include <stdint.h>

/* One experiment as the planner sees it. */
typedef struct shd_exp_t {
  double cost;   /* s: the experiment's time alone on a GPU (estimate) */
  int64_t mem;   /* bytes of device memory it needs (estimate) */
  double serial; /* s its batch spends on it besides (building it, copying its
                    results): added whatever the parallel (estimate; 0: none) */
} shd_exp_t;

/* The GPU and the cost model. Zero is a valid default for every field but
 * mem_budget. */
typedef struct shd_desc_t {
  int64_t mem_budget;    /* bytes of device memory one batch may use */
  int64_t batch_mem;     /* bytes a batch needs besides its experiments */
  int32_t max_batch;     /* experiments per batch; 0: no limit */
  double parallel;       /* experiments a GPU steps side by side (its resident
                            slots: a wave; <= 1: none, the GPU is saturated by one) */
  double contention;     /* how much slower they go when all slots are busy: the
                            device's throughput is parallel / contention
                            experiments at full speed (<= 0: 1) */
  double exp_overhead;   /* s per experiment in a batch (build, copy out) */
  double batch_overhead; /* s per batch (launch, world set-up) */
  int32_t ranks;         /* ranks that will take the batches (0: 1) */
  double target;         /* s: a batch that keeps the GPU busy grows to this
                            cost; 0: sqrt(2 * lower bound * batch_overhead) */
} shd_desc_t;

/* The cost model, in one place: a batch of n experiments whose costs sum to
 * `sum` and peak at `max` takes
 *   max(max, sum / shd_lanes(parallel, contention)) + n * exp_overhead
 *   + batch_overhead seconds (plus its members' serial seconds, which shd_plan adds): its
 * members step together, so the batch takes as long as its longest member
 * or as its total work at the device's throughput, whichever is more. */
double shd_batch_cost(const shd_desc_t *d, double sum, double max, int32_t n);

/* Experiments a worker of `slots` slots (<= 1: one) steps at full speed
 * when all are busy: slots / contention (contention <= 0: 1), at least one
 * (a slot does not contend with itself). */
double shd_lanes(double slots, double contention);

typedef struct shd_batch_t {
  int32_t first; /* its members are shd_plan_t.members[first .. first + n) */
  int32_t n;
  double cost; /* s, shd_batch_cost */
  int64_t mem; /* bytes, batch_mem plus its members' */
} shd_batch_t;

typedef struct shd_plan_t {
  int32_t n_batches;
  shd_batch_t *batches; /* by cost, largest first (ties: smaller first member) */
  int32_t *members;     /* experiment indices, ascending within a batch */
  int32_t n_oom;
  int32_t *oom;  /* experiments that alone exceed the budget: never packed */
  double target; /* s: the target batch cost used */
} shd_plan_t;

/* Packs experiments 0 .. n-1. A batch opens with the costliest experiment
 * left (ties: larger memory, then smaller index) and takes the next costliest
 * while they fit (memory, max_batch) and either ride free (no costlier than
 * its longest member, and with parallel >= 2 slots: in an idle slot of its
 * last wave, where it adds at most its share of the device's throughput,
 * cost / shd_lanes, which it would cost in any batch; else
 * sum / shd_lanes <= max) or the batch still costs less than the target; then
 * it fills the time it takes anyway with the cheapest ones left that fit. On
 * a GPU, batches are thus whole waves of its resident slots, never cut at its
 * throughput; a batch that memory cuts ends at its last whole wave where the
 * next would not fit whole, and where memory cuts what is left into k batches
 * of at most half the slots each (one experiment a SM), each takes its share,
 * ceil(left / k).
 * Costs are summed in member order at the end, so a batch's cost depends on
 * its members alone. Returns 0, or -1 with a message for a bad description or
 * estimate (negative or not finite). */
int shd_plan(const shd_desc_t *d, const shd_exp_t *e, int32_t n, shd_plan_t *plan, char *err,
             size_t errlen);
void shd_plan_free(shd_plan_t *plan);

/* Makespan (s) of the plan's batches on `ranks` ranks that each take the next
 * batch in order from a shared counter when they become free (ties: lower
 * rank). If rank_of is not NULL it receives each batch's rank. */
double shd_makespan(const shd_plan_t *plan, int32_t ranks, int32_t *rank_of);

/* A lower bound (s) on any plan's makespan on `ranks` ranks under the cost
 * model: max(total / ranks, largest). largest: the costliest experiment alone
 * in a batch. total: the least work any packing must do: experiments that no
 * other fits beside (memory) cost their batch alone; the others at least
 * max(sum of cost / shd_lanes, sum of cost * mem / room) (room: mem_budget -
 * batch_mem), plus their overheads and the batch overhead of the fewest
 * batches that memory and max_batch allow. Experiments over the budget are
 * left out. */
double shd_lower_bound(const shd_desc_t *d, const shd_exp_t *e, int32_t n, int32_t ranks);

#endif

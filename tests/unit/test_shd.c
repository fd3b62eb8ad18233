/* Sharding: the cost model's value, the shared-counter makespan on a hand-worked
 * case, packing rules (memory, max batch, OOM, each experiment once, largest
 * first), batches of whole waves on a GPU, and the planned makespan within 10% of
 * the lower bound on a mix of one whole-GPU experiment, hundreds of medium and
 * thousands of small ones.
 * On a GPU of 264 slots, 9216 experiments on 2 ranks make batches of whole
 * waves. */
#include <math.h>

#include "mvtest.h"
#include "shd.h"

#define GIB (1LL << 30)
#define MIB (1LL << 20)

static uint64_t rng_state = 12345;

static double u01(void) {
  return mvtest_u01(&rng_state);
}

static void cost_model(void) {
  shd_desc_t d = {.mem_budget = GIB, .parallel = 4, .exp_overhead = 0.1, .batch_overhead = 1};
  /* max(3, 10 / 4) + 5 * 0.1 + 1 */
  CHECK(fabs(shd_batch_cost(&d, 10, 3, 5) - 4.5) < 1e-12);
  /* max(3, 20 / 4) + 0.5 + 1 */
  CHECK(fabs(shd_batch_cost(&d, 20, 3, 5) - 6.5) < 1e-12);
  d.parallel = 0; /* one at a time: the sum */
  CHECK(fabs(shd_batch_cost(&d, 20, 3, 5) - 21.5) < 1e-12);
}

/* Batches of 5, 4, 3, 3, 2 s on 2 ranks: rank 0 takes 5, rank 1 4; rank 1 (free
 * at 4) takes 3 (to 7); rank 0 (free at 5) 3 (to 8); rank 1 (at 7) 2 (to 9). */
static void makespan(void) {
  shd_batch_t b[5] = {{.cost = 5}, {.cost = 4}, {.cost = 3}, {.cost = 3}, {.cost = 2}};
  shd_plan_t p = {.n_batches = 5, .batches = b};
  int32_t rank[5];
  CHECK(shd_makespan(&p, 2, rank) == 9);
  CHECK(rank[0] == 0 && rank[1] == 1 && rank[2] == 1 && rank[3] == 0 && rank[4] == 1);
  CHECK(shd_makespan(&p, 1, NULL) == 17);
  CHECK(shd_makespan(&p, 5, NULL) == 5);
  /* Ties go to the lower rank: two batches of 1 s on 3 ranks, then one more. */
  shd_batch_t t[4] = {{.cost = 1}, {.cost = 1}, {.cost = 1}, {.cost = 1}};
  shd_plan_t q = {.n_batches = 4, .batches = t};
  CHECK(shd_makespan(&q, 3, rank) == 2 && rank[3] == 0);
}

/* Every experiment in one batch or in the OOM list; limits hold; largest first. */
static int valid(const shd_desc_t *d, const shd_exp_t *e, int32_t n, const shd_plan_t *p) {
  int ok = 1;
  int *seen = calloc((size_t)n, sizeof *seen);
  for (int32_t k = 0; k < p->n_oom; k++) {
    seen[p->oom[k]]++;
    ok &= e[p->oom[k]].mem > d->mem_budget - d->batch_mem;
  }
  for (int32_t b = 0; b < p->n_batches; b++) {
    const shd_batch_t *x = &p->batches[b];
    int64_t mem = d->batch_mem;
    double sum = 0, max = 0;
    for (int32_t k = 0; k < x->n; k++) {
      int32_t i = p->members[x->first + k];
      seen[i]++;
      mem += e[i].mem;
      sum += e[i].cost;
      max = e[i].cost > max ? e[i].cost : max;
      ok &= k == 0 || i > p->members[x->first + k - 1];
    }
    ok &= mem == x->mem && mem <= d->mem_budget && (d->max_batch == 0 || x->n <= d->max_batch);
    ok &= x->cost == shd_batch_cost(d, sum, max, x->n);
    ok &= b == 0 || x->cost <= p->batches[b - 1].cost;
  }
  for (int32_t i = 0; i < n; i++)
    ok &= seen[i] == 1;
  free(seen);
  return ok;
}

static void packing(void) {
  shd_desc_t d = {
      .mem_budget = 10 * GIB, .batch_mem = GIB, .max_batch = 3, .parallel = 2, .target = 10};
  /* 0: 9 GiB fits alone; 1: 9.5 GiB does not (with the batch's 1 GiB). */
  shd_exp_t e[8] = {{5, 9 * GIB, 0}, {5, 19 * GIB / 2, 0}, {1, GIB, 0}, {1, GIB, 0},
                    {1, GIB, 0},     {1, GIB, 0},          {1, GIB, 0}, {2, 8 * GIB, 0}};
  shd_plan_t p;
  char err[256];
  CHECK(shd_plan(&d, e, 8, &p, err, sizeof err) == 0);
  CHECK(valid(&d, e, 8, &p));
  CHECK(p.n_oom == 1 && p.oom[0] == 1);
  /* By cost: [0] fills the GPU (5 s). [7] (2 s, 8 GiB) takes the smallest that
   * fits in its time: [2] (1 + 1 <= 2 * 2). [3] takes [4] in its time, then
   * [5] because 1.5 s is below the 10 s target; max_batch 3 stops it; [6]. */
  CHECK_EQ_I64(p.n_batches, 4);
  const shd_batch_t *b = p.batches;
  CHECK(b[0].n == 1 && p.members[b[0].first] == 0 && b[0].cost == 5);
  CHECK(b[1].n == 2 && p.members[b[1].first] == 2 && p.members[b[1].first + 1] == 7);
  CHECK(b[1].cost == 2 && b[1].mem == 10 * GIB);
  CHECK(b[2].n == 3 && p.members[b[2].first] == 3 && b[2].cost == 1.5);
  CHECK(b[3].n == 1 && p.members[b[3].first] == 6 && b[3].cost == 1);
  CHECK(shd_makespan(&p, 1, NULL) == 9.5);
  /* The bound: [0] is alone (no other fits beside it): 5 s; the rest share:
   * max(7 s / 2, (2 * 8 + 5 * 1) / 9 s) = 3.5 s; 8.5 s on one rank. */
  CHECK(fabs(shd_lower_bound(&d, e, 8, 1) - 8.5) < 1e-12);
  CHECK(fabs(shd_lower_bound(&d, e, 8, 4) - 5) < 1e-12);
  shd_plan_free(&p);
  /* Serial seconds add to a batch whatever its parallel time: [0] with 0.25 s,
   * [3] .. [5] with 0.5 s each. */
  e[0].serial = 0.25;
  for (int i = 3; i <= 5; i++)
    e[i].serial = 0.5;
  CHECK(shd_plan(&d, e, 8, &p, err, sizeof err) == 0);
  CHECK(p.batches[0].cost == 5.25 && p.batches[1].n == 3 && p.batches[1].cost == 3);
  CHECK(fabs(shd_lower_bound(&d, e, 8, 1) - 10.25) < 1e-12);
  shd_plan_free(&p);
  shd_exp_t bad = {-1, 0, 0};
  CHECK(shd_plan(&d, &bad, 1, &p, err, sizeof err) == -1);
  bad = (shd_exp_t){1, 0, -1};
  CHECK(shd_plan(&d, &bad, 1, &p, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "experiment 0");
  d.mem_budget = 0;
  CHECK(shd_plan(&d, e, 8, &p, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "mem_budget");
}

/* One experiment needing a whole 80 GiB GPU (60 s), 300 medium (20-60 s,
 * 1-4 GiB), 5000 small (0.5-3 s, 20-200 MiB), two over the budget. */
static void mix(void) {
  enum { N = 1 + 300 + 5000 + 2 };
  static shd_exp_t e[N];
  e[0] = (shd_exp_t){60, 80 * GIB, 0};
  for (int i = 1; i <= 300; i++)
    e[i] = (shd_exp_t){20 + 40 * u01(), (int64_t)((1 + 3 * u01()) * (double)GIB), 0};
  for (int i = 301; i < N - 2; i++)
    e[i] = (shd_exp_t){0.5 + 2.5 * u01(), (int64_t)((20 + 180 * u01()) * (double)MIB), 0};
  e[N - 2] = (shd_exp_t){1, 81 * GIB, 0};
  e[N - 1] = (shd_exp_t){100, 200 * GIB, 0};
  const double parallel[] = {16, 8, 1};
  const int32_t ranks[] = {1, 2, 4, 8, 16, 32, 64, 128};
  double worst = 0;
  for (int k = 0; k < 3; k++)
    for (int r = 0; r < 8; r++) {
      shd_desc_t d = {.mem_budget = 80 * GIB,
                      .max_batch = 1024,
                      .parallel = parallel[k],
                      .exp_overhead = 0.01,
                      .batch_overhead = 0.05,
                      .ranks = ranks[r]};
      shd_plan_t p;
      char err[256];
      CHECK(shd_plan(&d, e, N, &p, err, sizeof err) == 0);
      CHECK(valid(&d, e, N, &p) && p.n_oom == 2);
      double ms = shd_makespan(&p, ranks[r], NULL), lb = shd_lower_bound(&d, e, N, ranks[r]);
      printf(
          "parallel %2.0f, %3d ranks: %4d batches, makespan %8.2f s, bound %8.2f s, ratio %.4f\n",
          parallel[k], ranks[r], p.n_batches, ms, lb, ms / lb);
      CHECK(ms >= lb - 1e-9 && ms <= 1.10 * lb);
      worst = ms / lb > worst ? ms / lb : worst;
      shd_plan_free(&p);
    }
  printf("worst ratio %.4f\n", worst);
}

/* A GPU of 264 slots: 9216 experiments of 0.5-3 s (the mix of random traffic
 * and incasts of tools/mpi_scale.sh) on 2 ranks, where the target alone would
 * cut batches of 400-odd. Each batch fills its last wave: whole multiples of
 * 264 but for the last batch (the one that takes what is left). */
static void waves(void) {
  enum { N = 9216 };
  static shd_exp_t e[N];
  for (int i = 0; i < N; i++)
    e[i] = (shd_exp_t){i % 2 ? 0.5 + 0.5 * u01() : 1 + 2 * u01(), 20 * MIB, 0};
  shd_desc_t d = {.mem_budget = 125 * GIB,
                  .max_batch = 528,
                  .parallel = 264,
                  .exp_overhead = 0.0002,
                  .batch_overhead = 0.15,
                  .ranks = 2};
  shd_plan_t p;
  char err[256];
  CHECK(shd_plan(&d, e, N, &p, err, sizeof err) == 0);
  CHECK(valid(&d, e, N, &p));
  int32_t partial = 0;
  for (int32_t b = 0; b < p.n_batches; b++)
    partial += p.batches[b].n % 264 != 0;
  printf("waves: %d batches, %d not a whole number of waves\n", p.n_batches, partial);
  CHECK(partial <= 1);
  shd_plan_free(&p);
}

/* Plans n experiments e of d and checks they make two batches of `first`
 * and `second` members (largest first). */
static void two_batches(const shd_desc_t *d, const shd_exp_t *e, int32_t n, int32_t first,
                        int32_t second) {
  shd_plan_t p;
  char err[256];
  CHECK(shd_plan(d, e, n, &p, err, sizeof err) == 0);
  CHECK(valid(d, e, n, &p));
  CHECK_EQ_I64(p.n_batches, 2);
  if (p.n_batches == 2) {
    CHECK_EQ_I64(p.batches[0].n, first);
    CHECK_EQ_I64(p.batches[1].n, second);
  }
  shd_plan_free(&p);
}

/* Memory cuts a batch at a whole wave, or into shares of one experiment a
 * SM. 1,024 WebSearch variants of 125.6 MB each (worst-case rings) in 0.9 of
 * an H100's free memory (76 GB) hold 605; on 264 slots a batch that has
 * filled 2 waves opens a third only where 264 more fit, so the batches are
 * 528 and 496 (4 waves), not 605 and 419 (5); without slots (a CPU worker)
 * memory alone cuts, 605 and 419. 256 HPCC variants of 456.9 MB: memory
 * holds 166; two batches of 128 (one experiment a SM each) in place of
 * 166 + 90. 300 of them in 200 a batch: shares of 150 would not run one a
 * SM, so memory cuts as before. */
static void memory_waves(void) {
  enum { N = 1024 };
  static shd_exp_t ws[N], hpcc[300];
  for (int i = 0; i < N; i++)
    ws[i] = (shd_exp_t){17, 125589345, 0};
  for (int i = 0; i < 300; i++)
    hpcc[i] = (shd_exp_t){30, 456944473, 0};
  shd_desc_t d = {.mem_budget = 605 * 125589345LL + 1000,
                  .max_batch = 8192,
                  .parallel = 264,
                  .contention = 1,
                  .batch_overhead = 0.15,
                  .target = 1e6};
  two_batches(&d, ws, N, 528, 496);
  d.parallel = 0;
  two_batches(&d, ws, N, 605, 419);
  d.parallel = 264;
  d.mem_budget = 166 * 456944473LL + 1000;
  two_batches(&d, hpcc, 256, 128, 128);
  d.mem_budget = 200 * 456944473LL + 1000;
  two_batches(&d, hpcc, 300, 200, 100);
  /* A max_batch below the share still holds: 100 a batch, three batches. */
  d.mem_budget = 166 * 456944473LL + 1000;
  d.max_batch = 100;
  shd_plan_t p;
  char err[256];
  CHECK(shd_plan(&d, hpcc, 256, &p, err, sizeof err) == 0);
  CHECK(valid(&d, hpcc, 256, &p));
  CHECK_EQ_I64(p.n_batches, 3);
  shd_plan_free(&p);
}

int main(void) {
  cost_model();
  makespan();
  packing();
  mix();
  waves();
  memory_waves();
  return mvtest_end();
}

/* The learned cost model (shard/shd_cost.h): a batch's predicted seconds by
 * hand; fits that recover known coefficients from exact measurements, find
 * the scale from one batch, shrug off outliers and give the same bits in any
 * record order, and find a device's throughput apart from its slots; and the plan over two kinds of
 * workers: each experiment on the kind that finishes it first (a GPU-like kind for wide batches, a
 * CPU-like one for what it runs faster), memory respected, what workers hold
 * in hand counted, and one kind alone the same as shd_plan's makespan. */
#include <math.h>

#include "mvtest.h"
#include "shd_cost.h"

#define GIB (1LL << 30)

static uint64_t rng_state = 777;

static double u01(void) {
  return mvtest_u01(&rng_state);
}

static const double prior[SHD_C_N] = {1e-6, 1e-5, 1e-8, 0.01, 1e-6, 0.1, 1};

static shd_feat_t feat(double hops, double windows, double nodes, double rows) {
  shd_feat_t f = {{hops, windows, nodes * windows, 1, rows}};
  return f;
}

static void add(shd_feat_t *a, const shd_feat_t *b) {
  for (int k = 0; k < SHD_F_N; k++)
    a->x[k] += b->x[k];
}

/* Within [x / 10, x * 10], log-uniform. */
static double spread(double x) {
  return x * pow(100, u01()) / 10;
}

/* A batch of n experiments of one random shape (a point of a sweep: each
 * within 20% of it) on `slots` slots, measured under coef. */
static shd_rec_t batch(const double coef[SHD_C_N], int32_t n, int32_t slots) {
  shd_rec_t r = {.n = n, .slots = slots, .weight = 1};
  double best[2] = {-1, -1}, shape[4] = {spread(1e5), spread(1e4), spread(100), spread(1e4)};
  for (int32_t i = 0; i < n; i++) {
    double v[4];
    for (int k = 0; k < 4; k++)
      v[k] = shape[k] * (0.8 + 0.4 * u01());
    shd_feat_t f = feat(v[0], v[1], v[2], v[3]);
    add(&r.sum, &f);
    double c = shd_cost_parallel(prior, &f);
    if (c > best[0]) {
      best[1] = best[0];
      r.top[1] = r.top[0];
      best[0] = c;
      r.top[0] = f;
    } else if (c > best[1]) {
      best[1] = c;
      r.top[1] = f;
    }
  }
  r.seconds = shd_cost_batch(coef, &r);
  return r;
}

static void batch_by_hand(void) {
  shd_rec_t r = {.n = 3, .slots = 2, .weight = 1};
  shd_feat_t a = feat(1e6, 1e4, 100, 1000), b = feat(2e5, 1e3, 10, 200),
             c = feat(1e5, 1e3, 10, 100);
  add(&r.sum, &a), add(&r.sum, &b), add(&r.sum, &c);
  r.top[0] = a, r.top[1] = b;
  /* a: 1 + 0.1 + 0.01 = 1.11 s; all: 1.3 + 0.12 + 0.0102 = 1.4302 s / 2 = 0.7151:
   * the longest member wins; serial 3 * 0.01 + 1300e-6 = 0.0313; batch 0.1. */
  CHECK(fabs(shd_cost_batch(prior, &r) - (1.11 + 0.0313 + 0.1)) < 1e-12);
  r.slots = 1; /* the sum wins */
  CHECK(fabs(shd_cost_batch(prior, &r) - (1.4302 + 0.0313 + 0.1)) < 1e-12);
  CHECK(fabs(shd_cost_parallel(prior, &a) - 1.11) < 1e-12);
  CHECK(fabs(shd_cost_serial(prior, &a) - 0.011) < 1e-12);
}

/* Largest relative error of coef's predictions over records r. */
static double worst(const double coef[SHD_C_N], const shd_rec_t *r, int32_t n) {
  double w = 0;
  for (int32_t i = 0; i < n; i++) {
    double e = fabs(shd_cost_batch(coef, &r[i]) / r[i].seconds - 1);
    w = e > w ? e : w;
  }
  return w;
}

static void fits(void) {
  /* The machine is another: every coefficient off, by 0.4x to 3x. */
  const double mult[SHD_C_N] = {2.5, 0.6, 1.8, 3.0, 0.4, 1.5, 1};
  double truth[SHD_C_N], coef[SHD_C_N], again[SHD_C_N];
  for (int k = 0; k < SHD_C_N; k++)
    truth[k] = prior[k] * mult[k];
  shd_rec_t train[64], test[32];
  for (int i = 0; i < 64; i++)
    train[i] = batch(truth, 1 + (int32_t)(40 * u01()), i % 3 ? 1 : 8);
  for (int i = 0; i < 32; i++)
    test[i] = batch(truth, 1 + (int32_t)(40 * u01()), i % 2 ? 1 : 8);
  CHECK(worst(prior, test, 32) > 0.5); /* the prior is far off */
  shd_fit_t fi;
  CHECK(shd_fit(prior, train, 64, coef, &fi) == 0);
  CHECK(fi.used == 64 && fi.err_prior > 0.3 && fi.err_fit < 0.01);
  CHECK(fabs(fi.sum_ratio - 1) < 0.01); /* nothing left out: the fit's total is theirs */
  CHECK(worst(coef, test, 32) < 0.03);
  /* The same records in another order: the same bits. */
  shd_rec_t rev[64];
  for (int i = 0; i < 64; i++)
    rev[i] = train[(i * 37) % 64];
  CHECK(shd_fit(prior, rev, 64, again, NULL) == 0);
  CHECK(memcmp(coef, again, sizeof coef) == 0);
  /* Outliers: 6 batches 8x slower (a loaded node) leave the fit where it was. */
  shd_rec_t dirty[70];
  memcpy(dirty, train, sizeof train);
  for (int i = 0; i < 6; i++) {
    dirty[64 + i] = batch(truth, 10, 1);
    dirty[64 + i].seconds *= 8;
  }
  CHECK(shd_fit(prior, dirty, 70, coef, &fi) == 0);
  CHECK(fi.rejected == 6 && fi.outliers == 0);
  CHECK(worst(coef, test, 32) < 0.05);
  /* ... and its sum_ratio is the 70 batches' mean of measured over
   * predicted: (64 x 1 + 6 x 8) / 70 = 1.6. */
  CHECK(fabs(fi.sum_ratio / 1.6 - 1) < 0.05);
  /* One batch: the common scale, from it alone. */
  const double slow[SHD_C_N] = {3, 3, 3, 3, 3, 3, 1};
  for (int k = 0; k < SHD_C_N; k++)
    truth[k] = prior[k] * slow[k];
  shd_rec_t one = batch(truth, 5, 1);
  CHECK(shd_fit(prior, &one, 1, coef, &fi) == 0);
  CHECK(fabs(shd_cost_batch(coef, &one) / one.seconds - 1) < 0.01);
  CHECK(fabs(fi.scale - 3) < 0.1);
  for (int i = 0; i < 32; i++)
    test[i] = batch(truth, 1 + (int32_t)(40 * u01()), 1);
  CHECK(worst(coef, test, 32) < 0.05);
  /* Nothing to fit: the prior; a prior that is not > 0: refused. */
  CHECK(shd_fit(prior, NULL, 0, coef, &fi) == 0 && memcmp(coef, prior, sizeof coef) == 0);
  double bad[SHD_C_N];
  memcpy(bad, prior, sizeof bad);
  bad[2] = 0;
  CHECK(shd_fit(bad, &one, 1, coef, NULL) == -1);
}

/* Two kinds: "gpu" (64 slots, slow per experiment) and "cpu" (4 slots, 3x
 * faster per experiment). */
static const double gpu_coef[SHD_C_N] = {3e-6, 1e-5, 1e-9, 1e-3, 1e-7, 0.1, 1};
static const double cpu_coef[SHD_C_N] = {1e-6, 1e-6, 1e-8, 1e-3, 1e-7, 0.01, 1};

static void sched(void) {
  enum { N = 400 };
  shd_feat_t f[N];
  int64_t mem[N];
  int32_t key[N] = {0}, members[N];
  shd_outlook_t o;
  uint8_t taken[N] = {0};
  /* Experiments 0..199: packet-heavy (per experiment: GPU 3 s, CPU 1 s); 200..399:
   * window-heavy with many nodes (GPU 0.2 s + 0.01 s, CPU 0.02 s + 1 s). */
  for (int i = 0; i < N; i++) {
    f[i] = i < 200 ? feat(1e6, 1, 1, 100) : feat(1, 2e4, 50, 100);
    mem[i] = 1 << 20;
  }
  shd_class_t cls[2] = {{.coef = gpu_coef, .slots = 64, .max_batch = 512, .mem_budget = GIB},
                        {.coef = cpu_coef, .slots = 4, .max_batch = 64, .mem_budget = GIB}};
  shd_worker_t w[2] = {{0, 0}, {1, 0}};
  shd_sched_t s = {.n_exps = N,
                   .feat = f,
                   .mem = mem,
                   .key = key,
                   .taken = taken,
                   .n_keys = 1,
                   .n_classes = 2,
                   .cls = cls,
                   .n_workers = 2,
                   .workers = w};
  shd_pick_t g = {.members = members};
  CHECK(shd_sched(&s, 0, &g, &o) == 0);
  double end = o.makespan;
  /* Per slot the GPU does 3 s / 64 of a packet-heavy one, 0.21 / 64 of a
   * window-heavy one; the CPU 1 / 4 and 1.02 / 4: the GPU takes the
   * window-heavy ones (0.7 s in all) and, as long as it finishes first, the
   * packet-heavy ones too, the CPU the rest. */
  CHECK(o.unplaced == 0 && end > 0 && o.batches > 2);
  CHECK(g.n > 0);
  int wide = 0;
  for (int32_t m = 0; m < g.n; m++)
    wide += g.members[m] >= 200;
  CHECK(g.n == 64 && wide == 0); /* its first (largest) batch: a wave of packet-heavy ones */
  shd_pick_t c = {.members = malloc(N * sizeof(int32_t))};
  shd_sched(&s, 1, &c, NULL);
  CHECK(c.n > 0);
  int cpu_wide = 0;
  for (int32_t m = 0; m < c.n; m++)
    cpu_wide += c.members[m] >= 200;
  CHECK(cpu_wide == 0); /* the CPU never takes a window-heavy one */
  /* Both kinds busy until the same end, within one batch of each. */
  double alone_gpu, alone_cpu;
  shd_worker_t only_gpu[1] = {{0, 0}}, only_cpu[1] = {{1, 0}};
  s.workers = only_gpu, s.n_workers = 1;
  shd_sched(&s, -1, NULL, &o);
  alone_gpu = o.makespan;
  s.workers = only_cpu;
  shd_sched(&s, -1, NULL, &o);
  alone_cpu = o.makespan;
  CHECK(end < alone_gpu && end < alone_cpu);
  /* Together at least as fast as the sum of their throughputs allows, but
   * for a batch's rounding. */
  CHECK(end < 1.15 / (1 / alone_gpu + 1 / alone_cpu));
  s.workers = w, s.n_workers = 2;
  /* A busy CPU (1000 s in hand): everything goes to the GPU. */
  w[1].free_at = 1000;
  shd_sched(&s, 1, &c, NULL);
  CHECK(c.n == 0);
  w[1].free_at = 0;
  /* Memory: experiment 0 needs 2 GiB, which only the CPU holds; experiment
   * 1 needs 4 GiB, which none does. */
  mem[0] = 2 * GIB, mem[1] = 4 * GIB;
  cls[1].mem_budget = 3 * GIB;
  for (int i = 2; i < 200; i++)
    taken[i] = 1; /* the packet-heavy ones are done but for 0 and 1 */
  shd_sched(&s, 0, &g, &o);
  CHECK(o.unplaced == 1);
  for (int32_t m = 0; m < g.n; m++)
    CHECK(g.members[m] >= 200);
  shd_sched(&s, 1, &c, NULL);
  CHECK(c.n >= 1 && c.members[0] == 0);
  free(c.members);
}

/* A 437 s experiment on the GPU that a CPU runs in 158 s goes to the CPU. */
static void largest_where_fastest(void) {
  const double gpu[SHD_C_N] = {1e-6, 437e-6, 1e-12, 1e-3, 1e-9, 0.1, 1};
  const double cpu[SHD_C_N] = {1e-6, 158e-6, 1e-12, 1e-3, 1e-9, 0.01, 1};
  shd_feat_t f[1] = {feat(0, 1e6, 1, 1)};
  int64_t mem[1] = {1};
  int32_t key[1] = {0}, m[1];
  shd_class_t cls[2] = {{.coef = gpu, .slots = 264, .mem_budget = GIB},
                        {.coef = cpu, .slots = 15, .mem_budget = GIB}};
  shd_worker_t w[2] = {{0, 0}, {1, 0}};
  shd_sched_t s = {.n_exps = 1,
                   .feat = f,
                   .mem = mem,
                   .key = key,
                   .n_keys = 1,
                   .n_classes = 2,
                   .cls = cls,
                   .n_workers = 2,
                   .workers = w};
  shd_pick_t p = {.members = m};
  shd_outlook_t o;
  CHECK(shd_sched(&s, 1, &p, &o) == 0);
  CHECK(fabs(o.makespan - (158 + 0.001 + 0.01 + 1e-9 + 1e-6)) < 1e-6 && o.batches == 1);
  CHECK(p.n == 1 && m[0] == 0);
  shd_sched(&s, 0, &p, NULL);
  CHECK(p.n == 0);
}

/* One kind: the makespan of shd_plan's batches on its workers. */
static void one_kind(void) {
  enum { N = 300 };
  shd_feat_t f[N];
  shd_exp_t x[N];
  int64_t mem[N];
  int32_t key[N] = {0};
  const double coef[SHD_C_N] = {1e-6, 1e-5, 1e-8, 1e-3, 1e-7, 0.05, 1};
  for (int i = 0; i < N; i++) {
    f[i] = feat(1e4 + 1e6 * u01(), 100 + 1e4 * u01(), 10 + 100 * u01(), 1e3);
    mem[i] = (int64_t)(1e6 + 1e8 * u01());
    x[i] = (shd_exp_t){shd_cost_parallel(coef, &f[i]), mem[i], shd_cost_serial(coef, &f[i])};
  }
  shd_class_t cls = {.coef = coef, .slots = 16, .max_batch = 64, .mem_budget = 2 * GIB};
  shd_worker_t w[3] = {{0, 0}, {0, 0}, {0, 0}};
  shd_sched_t s = {.n_exps = N,
                   .feat = f,
                   .mem = mem,
                   .key = key,
                   .n_keys = 1,
                   .n_classes = 1,
                   .cls = &cls,
                   .n_workers = 3,
                   .workers = w};
  shd_desc_t d = {
      .mem_budget = 2 * GIB, .max_batch = 64, .parallel = 16, .batch_overhead = 0.05, .ranks = 3};
  shd_plan_t p;
  CHECK(shd_plan(&d, x, N, &p, NULL, 0) == 0);
  shd_outlook_t o;
  shd_sched(&s, -1, NULL, &o);
  /* The same batches; their costs summed in member order, which is the
   * order of each one's experiments in its own list (here by index, there by
   * time alone): equal to the last bits or so. */
  CHECK(fabs(o.makespan - shd_makespan(&p, 3, NULL)) <= 1e-12 * o.makespan &&
        o.batches == p.n_batches);
  /* Workers busy for 1, 2 and 3 s: shd_makespan_from. */
  double busy[3] = {1, 2, 3};
  for (int i = 0; i < 3; i++)
    w[i].free_at = busy[i];
  shd_sched(&s, -1, NULL, &o);
  CHECK(fabs(o.makespan - shd_makespan_from(&p, 3, busy, NULL)) <= 1e-12 * o.makespan);
  CHECK(shd_makespan_from(&p, 3, busy, NULL) > shd_makespan(&p, 3, NULL));
  shd_plan_free(&p);
}

/* A batch's members on threads that take them in order: costs 4, 1, 1, 1 end
 * at 1, 2, 3, 4 on 2 threads (one thread holds the 4, the other does the
 * three 1s), 1, 1, 2, 4 on 3, and 1, 1, 1, 4 on 8 (4 used). */
static void member_ends(void) {
  const double cost[4] = {4, 1, 1, 1};
  const double want[3][4] = {{1, 2, 3, 4}, {1, 1, 2, 4}, {1, 1, 1, 4}};
  const int32_t threads[3] = {2, 3, 8};
  for (int t = 0; t < 3; t++) {
    double ends[4];
    shd_member_ends(cost, 4, threads[t], ends);
    for (int m = 0; m < 4; m++)
      CHECK(ends[m] == want[t][m]);
  }
}

/* A batch's own estimate: the plan said 10 s, its members ending at 1, 2, 3
 * and 8 s by the model (2 s the batch's own). The second ends at 0.5 s (a
 * quarter of its modelled 2 s): 10 + (0.25 - 1) x 8 = 4 s; at 3 s (1.5x):
 * 14 s; the first at 4 s (4x): 10 + 3 x 8 = 34 s. Never less than what ran
 * (a plan of 5 s, the second end at 0.5 s: 5 - 6 < 0.5). None ended: the
 * plan's. */
static void own_estimate(void) {
  const double ends[4] = {1, 2, 3, 8};
  CHECK(shd_own_estimate(10, ends, 4, 2, 0.5) == 4);
  CHECK(shd_own_estimate(10, ends, 4, 2, 3) == 14);
  CHECK(shd_own_estimate(10, ends, 4, 1, 4) == 34);
  CHECK(fabs(shd_own_estimate(10, ends, 4, 3, 2.9) - (10 + (2.9 / 3 - 1) * 8)) < 1e-12);
  CHECK(shd_own_estimate(5, ends, 4, 2, 0.5) == 0.5);
  CHECK(shd_own_estimate(10, ends, 4, 0, 3) == 10);
}

/* The device's throughput apart from its resident slots: records made on
 * 264 slots of which the device keeps 62 at full speed (contention 264 / 62;
 * the prior says 1), half of them many small experiments (528: the throughput
 * bounds them), half a few (1 to 9: their longest member does). */
static void throughput(void) {
  const double want = 264.0 / 62;
  double truth[SHD_C_N], coef[SHD_C_N];
  memcpy(truth, prior, sizeof truth);
  truth[SHD_C_CONTENTION] = want;
  /* By hand: 528 alike of 1 s each on a slot (0.8 + 0.1 + 0.1), serial 0.01 s
   * each, take 528 x 1 x (264 / 62) / 264 = 8.516 s + 5.28 + 0.1 (264 slots at
   * full speed: 2 s); 64 of them, 64 / 62 = 1.032 s: more than their longest. */
  shd_feat_t one = feat(8e5, 1e4, 1e3, 0);
  shd_rec_t r = {.n = 528, .slots = 264, .weight = 1, .top = {one, one}};
  for (int i = 0; i < 528; i++)
    add(&r.sum, &one);
  CHECK(fabs(shd_cost_batch(truth, &r) - (2 * want + 5.28 + 0.1)) < 1e-9);
  CHECK(fabs(shd_cost_batch(prior, &r) - (2 + 5.28 + 0.1)) < 1e-9);
  r = (shd_rec_t){.n = 64, .slots = 264, .weight = 1, .top = {one, one}};
  for (int i = 0; i < 64; i++)
    add(&r.sum, &one);
  CHECK(fabs(shd_cost_batch(truth, &r) - (64.0 / 62 + 0.64 + 0.1)) < 1e-9);
  /* The fit finds the throughput that made the records: 62 experiments at
   * full speed, from a prior of 264. */
  shd_rec_t train[40], test[20];
  for (int i = 0; i < 40; i++)
    train[i] = batch(truth, i % 2 ? 528 : 1 + (int32_t)(9 * u01()), 264);
  for (int i = 0; i < 20; i++)
    test[i] = batch(truth, i % 2 ? 100 + (int32_t)(900 * u01()) : 1 + (int32_t)(9 * u01()), 264);
  CHECK(worst(prior, test, 20) > 0.3);
  shd_fit_t fi;
  CHECK(shd_fit(prior, train, 40, coef, &fi) == 0);
  CHECK(fabs(264 / coef[SHD_C_CONTENTION] / 62 - 1) < 0.01);
  CHECK(fabs(fi.scale - 1) < 0.01); /* the coefficients in seconds stay */
  CHECK(worst(coef, test, 20) < 0.01);
  /* The plan: 64 alike of 18 s on 264 slots ride in one batch (cut at the
   * throughput, 62 + 2, they took 29.1 s on an H200 where one batch took
   * 17.8 s), 18 x 64 / 62 s; 600 of 1 s in whole waves of 264. */
  shd_exp_t x[600];
  for (int i = 0; i < 600; i++)
    x[i] = (shd_exp_t){.cost = i < 64 ? 18 : 1, .mem = 1};
  shd_desc_t d = {.mem_budget = GIB, .parallel = 264, .contention = want};
  shd_plan_t p;
  CHECK(shd_plan(&d, x, 64, &p, NULL, 0) == 0);
  CHECK(p.n_batches == 1 && fabs(p.batches[0].cost - 18 * 64 / 62.0) < 1e-9);
  shd_plan_free(&p);
  CHECK(shd_plan(&d, x + 64, 536, &p, NULL, 0) == 0);
  CHECK(p.n_batches == 3 && p.batches[0].n == 264 && p.batches[1].n == 264);
  CHECK(fabs(p.batches[0].cost - want) < 1e-9 && fabs(p.batches[2].cost - 1) < 1e-9);
  shd_plan_free(&p);
}

int main(void) {
  member_ends();
  own_estimate();
  batch_by_hand();
  fits();
  throughput();
  sched();
  largest_where_fastest();
  one_kind();
  return mvtest_end();
}

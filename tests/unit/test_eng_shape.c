/* Launch shapes of the CUDA experiment mode (eng_shape.h), on the host: the
 * list schedule against closed forms, the order of experiments, and the
 * shapes the model picks with an H200's resident counts (blocks of 128: 528,
 * of 256: 264, of 512: 132; clusters of 2, 4, 8 blocks of 512: 66, 30, 15),
 * which are the shapes measured fastest there (tests/bench/RESULTS.md):
 * 64 WebSearch variants (356 nodes) on clusters of 2, 16 on clusters of 4,
 * and the 144-experiment training sweep (45 nodes, its experiments' work as
 * the plan estimates it) on clusters of 2, 0.52 of the modelled makespan of
 * blocks of 128 (measured there: 91.9 s of kernel on clusters of 2, 96.3 s
 * in blocks of 512). With the kernels for 2 blocks of 512 a SM too (blocks
 * of 512: 264; clusters: 132, 62, 30), the sweep takes clusters of 4 of them
 * (measured: 48.8 s of kernel against 60.4 s on clusters of 2 at one a SM),
 * while 16 and 64 WebSearch variants keep clusters of 4 and 2 at one a SM,
 * which hold them all at once (16 on clusters of 8 two to a set of SMs, the
 * model's pick without that rule, ran 1.24x slower); a shape's kernel's
 * slowness (the spills) counts. The model's work is an experiment's packet-hops as the
 * plan estimates them (eng_shape_work, checked on a world of two star
 * experiments against the closed form). A schedule that ignored the order
 * (round robin), a model without the warp factor, ties broken to the later
 * shape, work by packets (the same for both experiments), a model blind to
 * a kernel's slowness, or one counting shapes that share SMs where others
 * hold every experiment (blocks of 512 one a SM) fail it. */
#include <math.h>
#include <string.h>

#include "mvsim.h"
#include "mvtest.h"
#include "sim/eng_shape.h"

static void lpt_closed_forms(void) {
  const double a[] = {5, 4, 3, 3, 3};
  CHECK(eng_shape_lpt(a, 5, 2) == 10); /* 5+3, 4+3+3: LPT's classic 10 against the optimum 9 */
  CHECK(eng_shape_lpt(a, 5, 3) == 7);  /* 5, 4+3, 3+3 */
  CHECK(eng_shape_lpt(a, 5, 5) == 5);
  CHECK(eng_shape_lpt(a, 0, 5) == 0);
  double ones[16];
  for (int i = 0; i < 16; i++)
    ones[i] = 1;
  CHECK(eng_shape_lpt(ones, 16, 15) == 2); /* one left for a second wave */
  CHECK(eng_shape_lpt(ones, 16, 16) == 1);
  CHECK(eng_shape_lpt(ones, 16, 1) == 16);
  const double b[] = {8, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(eng_shape_lpt(b, 9, 2) == 8); /* the eight ones beside the eight */
}

static void order(void) {
  const double w[] = {1, 3, 3, 2, 0.5};
  int32_t o[5];
  CHECK(eng_shape_order(w, 5, o) == 0);
  CHECK(o[0] == 1 && o[1] == 2 && o[2] == 3 && o[3] == 0 && o[4] == 4);
}

/* An H200's answers for shape x (experiments at once): blocks of 128: 528, of
 * 256: 264; blocks of 512 and clusters of 2, 4, 8 of them in the kernel for
 * one a SM: 132, 66, 30, 15; for 2 a SM (clusters two to a set of SMs): 264,
 * 132, 62, 30. */
static int32_t h200_resident(const eng_shape_t *x) {
  static const int32_t one[4] = {132, 66, 30, 15}, two[4] = {264, 132, 62, 30};
  const int c = x->cluster == 1 ? 0 : x->cluster == 2 ? 1 : x->cluster == 4 ? 2 : 3;
  return x->threads == 128 ? 528 : x->threads == 256 ? 264 : x->per_sm >= 2 ? two[c] : one[c];
}

/* The shapes the CUDA backend weighs (eng_shape_list) with the knob for
 * blocks a SM, with an H200's answers; how many. */
static eng_shape_t h200[ENG_SHAPES];
static int h200_list(int per_sm_knob) {
  const int n = eng_shape_list(h200, per_sm_knob);
  for (int i = 0; i < n; i++)
    h200[i].resident = h200_resident(&h200[i]);
  return n;
}

static void picks(void) {
  double ws[64];
  for (int i = 0; i < 64; i++)
    ws[i] = 1e5;
  /* The kernels for one block of 512 a SM alone (the knob at 1): blocks of
   * 128, 256, 512, clusters of 2, 4, 8. */
  CHECK(h200_list(1) == 6 && h200[3].cluster == 2 && h200[3].per_sm == 1);
  CHECK(eng_shape_pick(h200, 6, ws, 64, 356) == 3);
  CHECK(fabs(h200[3].score / 1e5 - pow(1 + 356.0 / 32, 0.4)) < 1e-12);
  CHECK(fabs(h200[4].score / 1e5 - 3 * pow(1 + 356.0 / 64, 0.4)) < 1e-12); /* 3 waves of 30 */
  CHECK(eng_shape_pick(h200, 6, ws, 16, 356) == 4);
  CHECK(fabs(h200[5].score / 1e5 - 2 * pow(1 + 356.0 / 128, 0.4)) < 1e-12); /* 16 on 15 */
  /* The training sweep: its experiments' packet-hops over the heaviest's
   * (`multiverse plan --experiments` of tests/bench/train-sweep-144.json). */
  static const struct {
    int n;
    double w;
  } sweep[] = {{6, 1.00},  {6, 0.99}, {12, 0.98}, {6, 0.81}, {6, 0.60}, {6, 0.49}, {6, 0.44},
               {24, 0.34}, {6, 0.31}, {6, 0.27},  {6, 0.21}, {6, 0.20}, {6, 0.17}, {12, 0.15},
               {6, 0.13},  {6, 0.11}, {6, 0.07},  {6, 0.05}, {6, 0.04}};
  double tw[144];
  int n = 0;
  for (unsigned i = 0; i < sizeof sweep / sizeof sweep[0]; i++)
    for (int j = 0; j < sweep[i].n; j++)
      tw[n++] = sweep[i].w;
  CHECK_EQ_I64(n, 144);
  CHECK(eng_shape_pick(h200, 6, tw, 144, 45) == 3);
  CHECK(eng_shape_lpt(tw, 144, 66) == 1.0); /* the heaviest alone sets it */
  CHECK(eng_shape_lpt(tw, 144, 30) > 1.85); /* 57.06 of work on 30 */
  const double gain = h200[3].score / h200[0].score;
  CHECK(gain > 0.51 && gain < 0.53);
  /* Every shape (no knob): the six above, then blocks of 512 and clusters of
   * 2, 4, 8 in the kernel for 2 a SM. */
  CHECK(h200_list(0) == ENG_SHAPES && h200[8].cluster == 4 && h200[8].per_sm == 2);
  CHECK(h200[4].cluster == 4 && h200[4].per_sm == 1 && h200[0].per_sm == 2);
  /* With the kernels for 2 a SM: the sweep on 62 clusters of 4 two to a set
   * of SMs, its heaviest experiment still alone at the end; 0.90 of clusters
   * of 2 at one a SM counting the spills (on the H200 the sweep itself took
   * 48.8 s of kernel there against 60.4 s, RESULTS.md session 24). A model without
   * the spills' cost takes the same shapes here; the pair at the end tells
   * them apart. */
  CHECK(eng_shape_pick(h200, ENG_SHAPES, tw, 144, 45) == 8);
  CHECK(eng_shape_lpt(tw, 144, 62) == 1.0);
  CHECK(fabs(h200[8].score - ENG_SHAPE_SPILL * pow(1 + 45.0 / 64, 0.4)) < 1e-12);
  CHECK(fabs(h200[8].score / h200[3].score - 0.901) < 0.001);
  /* 64 WebSearch variants keep clusters of 2 at one a SM, and 16 clusters of
   * 4: a shape of blocks of 512 one a SM runs all of them at once, so those
   * sharing SMs do not count (measured for 16: 9.65 s of kernel on clusters of 4 at one a
   * SM, 11.96 s on clusters of 8 two to a set of SMs, which the model alone
   * would take). */
  CHECK(eng_shape_pick(h200, ENG_SHAPES, ws, 64, 356) == 3);
  CHECK(eng_shape_pick(h200, ENG_SHAPES, ws, 16, 356) == 4);
  CHECK(h200[9].score == 0 && h200[4].score > 0);
  CHECK(ENG_SHAPE_SPILL * pow(1 + 356.0 / 128, 0.4) < pow(1 + 356.0 / 64, 0.4));
  /* The knob at 2 (train2sm): only the kernels for 2 a SM for blocks of 512,
   * and the sweep takes their clusters of 4, as the H200 did. */
  CHECK(h200_list(2) == 6 && h200[2].per_sm == 2 && h200[5].cluster == 8);
  CHECK(eng_shape_pick(h200, 6, tw, 144, 45) == 4 && h200[4].cluster == 4);
  /* The spilled kernel's slowness decides between shapes otherwise alike. */
  eng_shape_t slow[2] = {{512, 1, 100, 0, 2}, {512, 1, 100, 0, 1}};
  CHECK(eng_shape_pick(slow, 2, tw, 144, 45) == 1);
  CHECK(fabs(slow[0].score / slow[1].score - ENG_SHAPE_SPILL) < 1e-12);
  /* A shape the device cannot run is never taken; none at all: -1. */
  eng_shape_t none[2] = {{512, 2, 0, 0, 1}, {512, 4, 0, 0, 1}};
  CHECK(eng_shape_pick(none, 2, tw, 144, 45) == -1);
  /* A tie goes to the first shape. */
  eng_shape_t tie[2] = {{512, 1, 200, 0, 1}, {512, 1, 200, 0, 1}};
  CHECK(eng_shape_pick(tie, 2, tw, 144, 45) == 0);
}

/* A flow of 1 MB between the two hosts of a star (two links), in packets of
 * 1000 bytes: 1000 packets over 2 links, and an ACK back for every packet
 * (4000 packet-hops) or every second one (3000). */
static void work(void) {
  topo_t t = mvsim_star(2, 100000000000LL, 1000000);
  eng_params_t p1 = mvsim_params(), p2;
  p1.mtu = 1000;
  p1.ack_every = 1;
  p2 = p1;
  p2.ack_every = 2;
  trf_flow_t f = mvsim_flow(0, 1, 1000000, 0);
  trf_flows_t fl = {.n = 1, .f = &f};
  tg_t g = mvsim_tg(&fl);
  eng_exp_desc_t x[2] = {{.topo = &t, .tasks = &g, .params = &p1, .seed = 1},
                         {.topo = &t, .tasks = &g, .params = &p2, .seed = 2}};
  CHECK(eng_exp_hops(&x[0]) == 4000 && eng_exp_hops(&x[1]) == 3000);
  eng_world_desc_t d = {.n_exps = 2, .exps = x};
  eng_world_t *w = NULL;
  char err[256];
  CHECK(eng_world_create(&d, &w, err, sizeof err) == 0);
  if (w) {
    CHECK(eng_shape_work(w, 0) == 4001 && eng_shape_work(w, 1) == 3001);
    eng_world_destroy(w);
  }
  tg_free(&g);
  topo_free(&t);
}

/* Whether deal d, with K rounds of S positions on W warps, has the threads'
 * loops as cu_lanes runs them (positions below eng_deal_span's P, each while
 * the row is below the lane's `rows`, `most` the group's most) take each row
 * of [0, rows) exactly once, a position's rows growing with the round, and a
 * warp's rows of one round neighbours (interleaved) or K * W apart (far). */
static int deal_covers(int32_t d, int32_t rows, int32_t most, int32_t K, int32_t W, int32_t S) {
  static int32_t seen[1000];
  const int32_t P = eng_deal_span(d, most, K, W, S);
  int ok = rows <= 1000 && P >= 1 && P <= S;
  memset(seen, 0, sizeof seen);
  for (int32_t w = 0; ok && w < W; w++)
    for (int32_t j = 0; j < P; j++)
      for (int32_t k = 0, last = -1; k < K; k++) {
        const int32_t i = eng_deal_row(d, j, w, k, K, W, P);
        if (i >= rows) break;
        ok &= i > last;
        last = i;
        seen[i]++;
        if (k == 0 && j > 0) /* the row beside it in the warp */
          ok &= i - eng_deal_row(d, j - 1, w, 0, K, W, P) == (d == ENG_DEAL_FAR ? K * W : 1);
      }
  for (int32_t i = 0; ok && i < rows; i++)
    ok &= seen[i] == 1;
  return ok;
}

/* The warps of W that take a row of a table of `rows` in deal d (S
 * positions a warp, K rounds). */
static int32_t deal_warps(int32_t d, int32_t rows, int32_t W, int32_t S) {
  const int32_t K = (rows + S * W - 1) / (S * W), P = eng_deal_span(d, rows, K, W, S);
  int32_t busy = 0;
  for (int32_t w = 0; w < W; w++)
    busy += eng_deal_row(d, 0, w, 0, K, W, P) < rows;
  return busy;
}

/* The rows of a lane group dealt to its threads (eng_deal_row), every deal
 * (deal_covers), K from the group's most rows and a lane of that many or of
 * half as many. On a k = 8 fat tree (128 hosts, then 80 switches) in lanes of
 * 16 on 16 warps the most switches one position takes: 5 far apart (the
 * second position of each warp takes all), 3 interleaved (packed or spread:
 * that table fills the threads). A training experiment's 45 nodes on a
 * cluster of 2 blocks of 512 in lanes of 1 (32 warps, 32 positions): packed,
 * 2 warps of the first block; spread, 23 warps of 2 rows, 7 in the second
 * block; far apart, every warp (a row or two each, K * W apart). The 376
 * WebSearch nodes there: packed 12 warps, spread all 32, 12 rows each. */
static void deal(void) {
  static const int32_t most_[] = {1, 31, 45, 208, 400, 1000};
  static const int32_t warps_[] = {4, 16, 64};
  for (int32_t d = ENG_DEAL_FAR; d <= ENG_DEAL_SPREAD; d++)
    for (int a = 0; a < 6; a++)
      for (int b = 0; b < 3; b++)
        for (int32_t S = 1; S <= 32; S *= 2) {
          const int32_t most = most_[a], W = warps_[b], K = (most + S * W - 1) / (S * W);
          CHECK(deal_covers(d, most, most, K, W, S));
          CHECK(deal_covers(d, (most + 1) / 2, most, K, W, S));
        }
  for (int32_t d = ENG_DEAL_FAR; d <= ENG_DEAL_SPREAD; d++) {
    const int32_t rows = 208, W = 16, S = 2, K = 7;
    int32_t most = 0;
    CHECK_EQ_I64(eng_deal_span(d, rows, K, W, S), S);
    for (int32_t w = 0; w < W; w++)
      for (int32_t j = 0; j < S; j++) {
        int32_t sw = 0;
        for (int32_t k = 0; k < K; k++) {
          const int32_t i = eng_deal_row(d, j, w, k, K, W, S);
          sw += i >= 128 && i < rows;
        }
        most = sw > most ? sw : most;
      }
    CHECK_EQ_I64(most, d == ENG_DEAL_FAR ? 5 : 3);
  }
  CHECK_EQ_I64(deal_warps(ENG_DEAL_NEAR, 45, 32, 32), 2);
  CHECK_EQ_I64(deal_warps(ENG_DEAL_SPREAD, 45, 32, 32), 23);
  CHECK_EQ_I64(eng_deal_span(ENG_DEAL_SPREAD, 45, 1, 32, 32), 2);
  CHECK_EQ_I64(deal_warps(ENG_DEAL_FAR, 45, 32, 32), 32);
  CHECK_EQ_I64(deal_warps(ENG_DEAL_NEAR, 376, 32, 32), 12);
  CHECK_EQ_I64(deal_warps(ENG_DEAL_SPREAD, 376, 32, 32), 32);
  CHECK_EQ_I64(eng_deal_span(ENG_DEAL_SPREAD, 376, 1, 32, 32), 12);
  CHECK_EQ_I64(eng_deal_default(1), ENG_DEAL_FAR); /* the measured defaults */
  for (int32_t L = 2; L <= 32; L *= 2)
    CHECK_EQ_I64(eng_deal_default(L), ENG_DEAL_SPREAD);
}

/* The lanes rule (eng_shape_lanes) on an H200's 132 SMs, each case the shape
 * measured or documented: row 5 (2,048 k = 8 permutations, 208 nodes) lanes
 * of 8 at 2 blocks of 512 a SM (lanes of 16 at one with the knob at 1: the
 * rule before session 16); row 1 (256 WebSearch variants, 400 nodes) lanes
 * of 2 at one a SM; a world of 512 of them lanes of 2 at one (two waves:
 * the pool's kernel for 2 a SM lost 1.21x), at 2 with the knob; the training
 * sweep (144 of 45 nodes) lanes of 1 in blocks of 128, in blocks of 512
 * (the knob) lanes of 2 (docs/cli.md); blocks of 256; forced lanes; the cap
 * of 32. Lanes of 2 whose rows fill the block (376 or 400 nodes: 752 or
 * 800 rows) stop there for any count, in waves at one a SM (792 WebSearch
 * and 232 WebSearch variants 1.38x faster than with the 792 in lanes of 4
 * at 2: session 35), unless a knob says. And whether each shape steps its
 * switches in the block's pool (eng_pool_default): rows 1 and 2's (256 and
 * 512 WebSearch variants in lanes of 2) and 64 variants' (lanes of 1 in
 * blocks of 512) do, measured faster; row 5's (lanes of 8) does not,
 * measured slower; nor blocks of 128 or 256, nor lanes of 4 (slower in a
 * pool than lanes of 2 in waves: session 40). */
static void lanes_rule(void) {
  static const struct {
    int64_t n;
    int32_t most;
    int block, lanes_knob, per_sm_knob;
    int32_t threads, lanes, per_sm;
    int pool;
  } c[] = {{2048, 208, 0, 0, 0, 512, 8, 2, 0},    {2048, 208, 0, 0, 1, 512, 16, 1, 0},
           {2048, 208, 0, 0, 4, 512, 8, 2, 0},    {256, 400, 0, 0, 0, 512, 2, 1, 1},
           {512, 400, 0, 0, 0, 512, 2, 1, 1},     {64, 400, 0, 0, 0, 512, 1, 0, 1},
           {144, 45, 0, 0, 0, 128, 1, 0, 0},      {144, 45, 512, 0, 0, 512, 2, 1, 1},
           {144, 45, 0, 8, 0, 512, 8, 1, 0},      {2048, 208, 0, 32, 0, 512, 32, 1, 0},
           {100000, 208, 0, 0, 0, 512, 32, 2, 0}, {200, 150, 0, 0, 0, 256, 1, 0, 0},
           {600, 100, 0, 0, 0, 512, 4, 2, 0},     {512, 400, 0, 0, 2, 512, 2, 2, 1},
           {300, 208, 0, 0, 0, 512, 2, 1, 1},     {792, 376, 0, 0, 0, 512, 2, 1, 1},
           {1024, 376, 0, 0, 0, 512, 2, 1, 1},    {100000, 400, 0, 0, 0, 512, 2, 1, 1},
           {1024, 376, 0, 0, 2, 512, 4, 2, 0},    {1024, 376, 0, 4, 0, 512, 4, 2, 0}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    const eng_lanes_t r =
        eng_shape_lanes(c[i].n, c[i].most, 132, c[i].block, c[i].lanes_knob, c[i].per_sm_knob);
    CHECK_EQ_I64(r.threads, c[i].threads);
    CHECK_EQ_I64(r.lanes, c[i].lanes);
    CHECK_EQ_I64(r.per_sm, c[i].per_sm);
    CHECK_EQ_I64(eng_pool_default(r.lanes, r.threads), c[i].pool);
  }
}

int main(void) {
  lpt_closed_forms();
  lanes_rule();
  work();
  order();
  picks();
  deal();
  return mvtest_end();
}

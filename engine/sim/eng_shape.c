/* Launch shapes of the CUDA experiment mode (eng_shape.h). */
#include <math.h>
#include <stdlib.h>

#include "sim/eng_shape.h"

double eng_shape_work(const eng_world_t *w, int32_t e) {
  return 1 + eng_exp_hops(&w->desc.exps[e]);
}

/* The workers' finishing times as a binary min-heap h[0..n): restores the
 * heap after h[0] grew. */
static void sift_down(double *h, int32_t n) {
  int32_t i = 0;
  for (;;) {
    int32_t a = 2 * i + 1, b = a + 1, m = i;
    if (a < n && h[a] < h[m]) m = a;
    if (b < n && h[b] < h[m]) m = b;
    if (m == i) return;
    double t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

double eng_shape_lpt(const double *w, int32_t n, int32_t slots) {
  if (n <= 0) return 0;
  if (n <= slots) return w[0];
  double *h = (double *)malloc(sizeof(double) * (size_t)slots), end = 0;
  if (!h) return w[0] * (double)((n + slots - 1) / slots); /* bound: waves of the largest */
  for (int32_t i = 0; i < slots; i++) /* the first items, one per worker */
    h[i] = 0;
  for (int32_t i = 0; i < n; i++) {
    h[0] += w[i]; /* the worker that is free first takes the next item */
    if (h[0] > end) end = h[0];
    sift_down(h, slots);
  }
  free(h);
  return end;
}

/* Whether shape x's blocks of 512 share their SMs two to one. */
static int shares_sms(const eng_shape_t *x) {
  return x->threads == 512 && x->per_sm >= 2;
}

int eng_shape_list(eng_shape_t *s, int per_sm_knob) {
  int n = 0;
  s[n++] = (eng_shape_t){128, 1, 0, 0, per_sm_knob ? per_sm_knob : 2};
  s[n++] = (eng_shape_t){256, 1, 0, 0, per_sm_knob ? per_sm_knob : 2};
  for (int32_t o = 1; o <= 2; o++) {
    if (per_sm_knob && (per_sm_knob >= 2) != (o == 2)) continue;
    for (int32_t c = 1; c <= 8; c *= 2)
      s[n++] = (eng_shape_t){512, c, 0, 0, o};
  }
  return n;
}

int eng_shape_pick(eng_shape_t *s, int n_shapes, const double *w, int32_t n, int32_t most_nodes) {
  int one_wave = 0; /* some shape of blocks of 512 one a SM runs all n at once */
  for (int i = 0; i < n_shapes; i++)
    one_wave |= s[i].threads == 512 && s[i].per_sm < 2 && s[i].resident >= n;
  int best = -1;
  for (int i = 0; i < n_shapes; i++) {
    s[i].score = 0;
    if (s[i].resident < 1 || (one_wave && shares_sms(&s[i]))) continue;
    const double warps = (double)s[i].cluster * (double)(s[i].threads / 32);
    s[i].score = eng_shape_lpt(w, n, s[i].resident) *
                 pow(1.0 + (double)most_nodes / warps, ENG_SHAPE_WARP_EXP) *
                 (shares_sms(&s[i]) ? ENG_SHAPE_SPILL : 1.0);
    if (best < 0 || s[i].score < s[best].score) best = i;
  }
  return best;
}

typedef struct shape_item_t {
  double work;
  int32_t e;
} shape_item_t;

static int item_cmp(const void *a, const void *b) {
  const shape_item_t *x = (const shape_item_t *)a, *y = (const shape_item_t *)b;
  if (x->work != y->work) return x->work > y->work ? -1 : 1;
  return x->e < y->e ? -1 : x->e > y->e;
}

int eng_shape_order(const double *work, int32_t n, int32_t *order) {
  shape_item_t *it = (shape_item_t *)malloc(sizeof(shape_item_t) * (size_t)(n > 0 ? n : 1));
  if (!it) return -1;
  for (int32_t i = 0; i < n; i++)
    it[i] = (shape_item_t){work[i], i};
  qsort(it, (size_t)n, sizeof *it, item_cmp);
  for (int32_t i = 0; i < n; i++)
    order[i] = it[i].e;
  free(it);
  return 0;
}

/* Threads of a block: the knob's size class, else the group's rows'. */
static int32_t lanes_threads(int block, int64_t rows) {
  const int64_t x = block ? block : rows;
  return x <= 128 ? 128 : x <= 256 ? 256 : 512;
}

/* Blocks of 512 a SM for n_groups lane groups of more than one experiment. */
static int32_t lanes_per_sm(int64_t n_groups, int sms, int knob) {
  return knob ? (knob > 2 ? 2 : knob) : n_groups > sms ? 2 : 1;
}

/* Whether lane groups of r step their switches in the block's pool and so
 * run one a SM, in waves (eng_shape.h), unless the blocks a SM are asked for. */
static int pool_waves(eng_lanes_t r, int per_sm_knob) {
  return !per_sm_knob && r.lanes > 1 && eng_pool_default(r.lanes, r.threads);
}

eng_lanes_t eng_shape_lanes(int64_t n_exps, int32_t most_nodes, int sms, int block, int lanes_knob,
                            int per_sm_knob) {
  eng_lanes_t r = {0, 1, 0};
  for (;; r.lanes *= 2) {
    const int64_t groups = (n_exps + r.lanes - 1) / r.lanes;
    r.threads = lanes_threads(block, (int64_t)most_nodes * r.lanes);
    const int32_t fit =
        r.threads == 512 && r.lanes > 1 ? lanes_per_sm(groups, sms, per_sm_knob) : 512 / r.threads;
    if (r.lanes == 32 || groups <= (int64_t)sms * fit) break;
    /* The pool's groups that fill the block already: more lanes would add
     * rounds and leave the pool; they run in waves (eng_shape.h). */
    if (pool_waves(r, per_sm_knob) && (int64_t)most_nodes * r.lanes >= r.threads) break;
  }
  if (lanes_knob) {
    r.lanes = lanes_knob;
    r.threads = lanes_threads(block, (int64_t)most_nodes * r.lanes);
  }
  if (r.threads != 512 || r.lanes < 2)
    r.per_sm = 0;
  else if (pool_waves(r, per_sm_knob))
    r.per_sm = 1;
  else
    r.per_sm = lanes_per_sm((n_exps + r.lanes - 1) / r.lanes, sms, per_sm_knob);
  return r;
}

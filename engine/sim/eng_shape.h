/* The shape of a CUDA experiment-mode launch: how many threads step one
 * experiment (a block of 128, 256 or 512, or a cluster of blocks of 512 on as
 * many SMs), chosen by a model of the batch's makespan, and the order in
 * which blocks take experiments (the heaviest first). Host code without CUDA:
 * the CUDA backend asks the device how many experiments of each shape it
 * steps at once and calls eng_shape_pick; the bits of every experiment are the
 * same whatever the shape (docs/engine.md, launch modes). */
#ifndef ENG_SHAPE_H
#define ENG_SHAPE_H

#include "sim/eng_world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A node's events of a window run in sequence on one thread, and threads of
 * a warp that take different branches run one after the other: an
 * experiment's windows slow down with the nodes that share a warp, k, by
 * about (1 + k)^ENG_SHAPE_WARP_EXP. Fitted on an H200 (tests/bench/RESULTS.md,
 * launch shapes): the heaviest experiment of the training sweep (1 layer; 45
 * nodes) alone took 9.48, 7.97, 5.07, 4.29 and 4.25 s of kernel in blocks of
 * 128 and 256, clusters of 2, 4 and 8 blocks of 512 (k = 11.3, 5.6, 1.4, 0.7,
 * 0.35: exponents 0.28 to 0.40); 64 WebSearch variants (356 nodes) 4.65 s a
 * block of 512 each, 3.22 s on clusters of 2 (k = 22, 11: 0.56). */
#define ENG_SHAPE_WARP_EXP 0.4

/* The experiment kernels compiled for 2 blocks of 512 a SM keep 64 registers
 * and spill: at the same placement (one block a SM) an H200 ran 256
 * WebSearch variants in 39.91 s of kernel there against 38.56 s in the kernel
 * for one (tests/bench/RESULTS.md, session 23): eng_shape_pick counts a shape
 * of theirs this much slower. */
#define ENG_SHAPE_SPILL 1.035

typedef struct eng_shape_t {
  int32_t threads;  /* per block */
  int32_t cluster;  /* blocks per experiment, 1: a block */
  int32_t resident; /* experiments stepped at once (the device's answer); 0: shape not available */
  double score;     /* eng_shape_pick: modelled makespan, in work units */
  int32_t per_sm;   /* blocks a SM its kernel is compiled for (512 threads: 1 or 2) */
} eng_shape_t;

/* The launch shapes the CUDA experiment mode weighs, into s[0..ENG_SHAPES):
 * blocks of 128 and 256 threads (their kernels for per_sm_knob blocks a SM,
 * else 2), then blocks of 512 and clusters of 2, 4 and 8 of them in the
 * kernel for one a SM, then the same in the kernel for 2; a per_sm_knob (1-4;
 * 0: none) keeps those of 512 to one kernel (1, or 2 for 2-4). resident and
 * score 0. Returns how many. */
#define ENG_SHAPES 10
int eng_shape_list(eng_shape_t *s, int per_sm_knob);

/* Work of experiment e, to order and weigh experiments: its packet-hops as
 * the plan estimates them (eng_exp_hops: a packet over a 3-tier fat-tree's six
 * links weighs three times one between two hosts of a switch), plus one (an
 * experiment of tasks alone still takes windows). */
double eng_shape_work(const eng_world_t *w, int32_t e);

/* Makespan of n items of work w[0..n), in descending order, taken in that
 * order by `slots` workers, each taking the next item as it finishes its last
 * (the longest-processing-time-first list schedule). 0 for n = 0. */
double eng_shape_lpt(const double *w, int32_t n, int32_t slots);

/* The shape of least modelled makespan among s[0..n_shapes), the first on a
 * tie: the list schedule of the work w[0..n) (descending) on its resident
 * experiments, times (1 + most_nodes / its warps per experiment)^ENG_SHAPE_WARP_EXP,
 * times ENG_SHAPE_SPILL for the kernels for 2 blocks of 512 a SM. Shapes
 * whose blocks of 512 share SMs
 * (per_sm 2) count only where no shape of blocks of 512 one a SM (alone or
 * in clusters) runs all n experiments at once: the model does not count
 * what sharing an SM costs. Where no shape one a SM holds the batch, its
 * experiments take turns anyway, and sharing lets each spread over more
 * warps on about as many slots: the 144-experiment training sweep took
 * 48.8 s of kernel on an H200 on 62 clusters of 4 two to a set of SMs
 * (about one node a warp) against 60.4 s on 66 clusters of 2 at one a SM
 * (two), modelled 1.18x, measured 1.23x; 256 WebSearch variants in lanes of
 * 1 ran 1.22x faster all resident at 2 a SM than taking turns at one. Where a
 * shape one a SM holds them all, sharing cost more than modelled: 16
 * WebSearch variants took 9.65 s of kernel on 30 clusters of 4 at one a SM,
 * 11.96 s on clusters of 8 two to a set of SMs, modelled 0.83x of it
 * (RESULTS.md, session 24). Sets each shape's score (0 where not counted);
 * -1 when none counts. */
int eng_shape_pick(eng_shape_t *s, int n_shapes, const double *w, int32_t n, int32_t most_nodes);

/* Experiments 0..n-1 ordered by work, heaviest first (on a tie the lower
 * index first), in order[0..n). 0, or -1 when out of memory. */
int eng_shape_order(const double *work, int32_t n, int32_t *order);

/* The CUDA experiment mode's lanes rule (cu_mode): block threads (128, 256 or
 * 512: the knob `block`, else from a group's node rows, most_nodes * lanes)
 * and lanes, the fewest (at most 32) that let every lane group of n_exps
 * experiments be resident at once on `sms` SMs: 4 blocks of 128 a SM, 2 of
 * 256, one of 512, or, for groups of more than one experiment in blocks of
 * 512, 2 (the 64-register kernel) where one would not hold them all (row 5's
 * 2,048 permutations: lanes of 8 at 2 a SM, 1.755 s of kernel against 2.01 s
 * in lanes of 16 at one; H200, tests/bench/RESULTS.md, session 16). Groups
 * that step their switches in the block's pool (eng_pool_default: lanes of 2)
 * then run one a SM, in waves where they outnumber the SMs: the pool's kernel
 * for 2 a SM spills, and 512 WebSearch variants in lanes of 2 took 41.1 s of
 * kernel at 2 a SM, 34.0 s in two waves at one (H100, session 34). Where such
 * a group's rows already fill the block's threads (most_nodes * lanes >=
 * threads), the lanes stop there and the groups run in waves however many
 * there are: 1,024 WebSearch variants (376 nodes), cut 792 + 232, took
 * 94.97 s of kernel with the 792 in lanes of 4 at 2 a SM (the plain kernel:
 * 198 groups, one wave) and 68.77 s with them in lanes of 2 (396 groups,
 * three waves); the 232 ran in lanes of 2 both times (H100, session 35). Row 5's
 * permutations (208 nodes: 416 rows of 512 in lanes of 2) still take lanes of
 * 8 (1.549 s of kernel against 1.673 s in waves of lanes of 2). A lanes
 * knob (`lanes_knob`) overrides the lanes; `per_sm_knob` (1-4) the blocks a
 * SM. 0 for a knob unset. per_sm: the blocks of 512 a SM for groups of more
 * than one experiment; 0 elsewhere (the kernel's own default). */
typedef struct eng_lanes_t {
  int32_t threads, lanes, per_sm;
} eng_lanes_t;
eng_lanes_t eng_shape_lanes(int64_t n_exps, int32_t most_nodes, int sms, int block, int lanes_knob,
                            int per_sm_knob);

/* Which row of a lane group's table a thread takes in the CUDA experiment mode
 * (cu_lanes): a warp holds S row positions of its lanes (S = 32 / lanes), W
 * warps step the group, and K rounds cover its most rows (K * S * W >= the
 * rows). Interleaved, position j of warp w takes in round k row
 * (k * W + w) * P + j for j < P (P positions of the warp's S used, from
 * eng_deal_span): the P rows are neighbours, of one role (the threads of a
 * warp take one branch), and each position's rows spread over the whole table
 * (a k = 8 fat tree in lanes of 16 on 16 warps: at most 3 of its 80 switches
 * to a position). Spread over the warps (ENG_DEAL_SPREAD, the default in lanes
 * since session 22: eng_deal_default), P is the fewest positions that still
 * cover the most rows in K rounds, so that a table smaller than the group's
 * threads takes every warp it can, in every block of a cluster (a training
 * experiment's 45 nodes on a cluster of 2 blocks of 512: 23 warps of 2 rows,
 * where packed, P = S (ENG_DEAL_NEAR, MULTIVERSE_CUDA_DEAL=1, the default of
 * sessions 15 to 21), they took 2 warps of the first block and left the second
 * SM idle). Far apart (ENG_DEAL_FAR, MULTIVERSE_CUDA_DEAL=0, the default until
 * session 15 and again for a lane group of one experiment), row
 * j * K * W + k * W + w: the S rows a warp steps at once lie K * W apart, so
 * that a table's heavy rows at its end (switches) fall at most one to a warp
 * and round, but one position may take all of them (5 each to the last, a
 * host's beside a switch's in one warp). Packed was 1.28x faster than far
 * apart on the k = 8 permutations and 1.20x on 256 WebSearch variants (H200,
 * tests/bench/RESULTS.md, session 15), whose tables fill the threads. Every
 * deal takes each row of [0, K * P * W) once, and a position's rows grow with
 * k. Every experiment computes the same bits in any deal (a window's nodes are
 * independent). */
#define ENG_DEAL_FAR 0
#define ENG_DEAL_NEAR 1
#define ENG_DEAL_SPREAD 2

/* The deal a lane group of `lanes` experiments takes unless
 * MULTIVERSE_CUDA_DEAL says: spread over the warps in lanes, far apart for
 * one experiment. On an H200 (tests/bench/RESULTS.md, session 22) far apart
 * ran 64 WebSearch variants (an experiment a cluster of 2) 1.13-1.20x faster
 * than spread (each warp takes 1 or 2 of its 56 switches, where spread gives
 * 6 warps up to 12 neighbouring ones) and the training sweep (lanes of 1 too)
 * 1.02x slower; in lanes (2,048 permutations in lanes of 8, 256 WebSearch
 * variants in lanes of 2) it ran 1.30-1.32x slower. */
ENG_INLINE int32_t eng_deal_default(int32_t lanes) {
  return lanes == 1 ? ENG_DEAL_FAR : ENG_DEAL_SPREAD;
}

/* Whether a lane group of `lanes` experiments in blocks of `threads` steps
 * its switches' certified windows in the block's pool (the CUDA experiment
 * mode, unless MULTIVERSE_CUDA_POOL says): in blocks of 512 (the pool's; a
 * smaller block the launch-shape model chose keeps key order) with one or two
 * experiments a lane group, on any cluster and occupancy. Measured on an H200
 * since the certificate a port per thread (kernels, every FCT file and result
 * row identical; tests/bench/RESULTS.md, sessions 26 and 29): 64 WebSearch
 * variants on clusters of 2 1.55x, 256 in lanes of 2 1.71x under DCQCN and
 * 1.66x under HPCC, the training sweep on clusters of 4 two to a set of SMs
 * 1.36x; the k=8 permutations in lanes of 8 0.77x, and 0.77x again with
 * room for all 640 switches of a group, not the 128 of CU_POOL_SW (2.04 s
 * against key order's 1.57 s, H100, session 41): a k=8 switch's ports do
 * not pay for the pool's phases. Lanes of 4 keep key order (in a pool of
 * 255 they lost to lanes of 2 in waves, session 40). */
ENG_INLINE int eng_pool_default(int32_t lanes, int32_t threads) {
  return threads == 512 && lanes <= 2;
}

/* The positions P of a warp's S that take rows (eng_deal_row), for a table
 * whose most rows in the group are `most`, in K rounds on W warps. */
ENG_INLINE int32_t eng_deal_span(int32_t deal, int32_t most, int32_t K, int32_t W, int32_t S) {
  if (deal != ENG_DEAL_SPREAD || K < 1) return S;
  const int32_t p = (most + K * W - 1) / (K * W);
  return p < S ? p : S;
}

/* Position j's row in round k (j < eng_deal_span's P, passed as P). */
ENG_INLINE int32_t eng_deal_row(int32_t deal, int32_t j, int32_t w, int32_t k, int32_t K, int32_t W,
                                int32_t P) {
  return deal == ENG_DEAL_FAR ? j * K * W + k * W + w : (k * W + w) * P + j;
}

#ifdef __cplusplus
}
#endif

#endif

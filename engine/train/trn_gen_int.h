/* trn_gen internals: the state of one task graph being built, shared by the
 * generator's files (passes and segments, pipeline transfers, data-parallel
 * collectives, costs). */
#ifndef TRN_GEN_INT_H
#define TRN_GEN_INT_H

#include "train/trn_gen.h"
#include "train/trn_int.h"

/* A piece of a forward or backward pass: compute, then blocking TP collectives
 * (every TP rank waits for all), while `async_ps` of TP collectives overlap the
 * compute (Megatron's asynchronous gradient all-reduce / reduce-scatter and input
 * all-gather of the backward pass). An expert all-to-all is a piece of its own. */
typedef struct trn_piece_t {
  int64_t compute_ps, tp_ps, async_ps; /* ps */
  int64_t dense, expert;               /* parameters whose gradients it completes (backward) */
  int32_t layer;                       /* layer within its chunk; -1: embedding, layers: the head */
  uint8_t a2a;                         /* an expert all-to-all (no compute) */
  uint8_t end_layer;                   /* the last piece of its layer (or of the embedding/head) */
} trn_piece_t;

/* Costs of pieces, computed once per set-up (trn_gen_cost.c). */
typedef struct trn_tmpl_t {
  trn_piece_t fwd[5], bwd[12]; /* one layer's pieces in order (backward: its own order) */
  int32_t n_fwd, n_bwd;
  trn_piece_t embed_f, embed_b, head_f, head_b;
  int64_t recv_gather_ps; /* TP all-gather of a received tensor (scatter-gather, no SP) */
  int64_t norm_ar_ps;     /* SP: the norms' gradient all-reduce over the TP group */
  uint64_t a2a_bytes;     /* expert all-to-all, nccl-tests size */
  uint64_t p2p_bytes;     /* a pipeline transfer per TP rank */
} trn_tmpl_t;

/* A data-parallel collective launched by a pipeline rank's program, the same for
 * every GPU of the rank (trigger and waiter tasks are per GPU). */
typedef struct trn_launch_t {
  uint8_t what;          /* TRN_W_RED (gradients) or TRN_W_GATH (parameters) */
  int32_t bucket, chunk; /* for messages and traces */
  int64_t dense, expert; /* parameters */
} trn_launch_t;

/* Per GPU of a pipeline rank, what its program's steps became. */
typedef struct trn_gpu_b_t {
  int32_t last;       /* last task of its compute stream, -1 */
  int32_t *call_join; /* (steps) join of each call step, -1 */
  int32_t *call_mark; /* (steps) the stream's task before each call, -1 */
  int32_t *trig;      /* (launches) task after whose end a launch may start */
  int32_t *waiter;    /* (launches) task that waits for the launch, -1 */
  int32_t n_launch, cap_launch;
  int32_t dp_done; /* done join of its last data-parallel collective, -1 */
} trn_gpu_b_t;

typedef struct trn_gb_t {
  trn_graph_t *o;
  const trn_gen_desc_t *d;
  const trn_setup_t *s;
  coll_cluster_t cl;
  trn_tmpl_t tm;
  int64_t t, p, dp, v, m, ep, gps;
  int32_t gpus;
  int32_t *host;         /* (gpus) NIC host of each GPU */
  trn_gpu_b_t *gb;       /* (gpus) */
  trn_step_t **prog;     /* (p) each rank's program */
  int32_t *n_steps;      /* (p) */
  trn_launch_t **launch; /* (p) each rank's launches */
  int32_t *n_launch, *cap_launch;
  int64_t bucket; /* parameters per bucket */
  int32_t nvlink; /* collectives inside a server are flows (over a SimAI topology's NVLink) */
  char *err;
  size_t errlen;
} trn_gb_t;

/* Appends a task of GPU gpu with its meta (stream: its compute stream, or -1); its
 * index or -1 with "out of memory". */
int32_t trn_gb_task(trn_gb_t *b, tg_kind_t kind, int32_t gpu, int64_t dur, int stream,
                    trn_meta_t meta);
/* A flow of `bytes` from GPU src's NIC to GPU dst's (gpu: src). */
int32_t trn_gb_flow(trn_gb_t *b, int32_t src, int32_t dst, uint64_t bytes, trn_meta_t meta);
int trn_gb_edge(trn_gb_t *b, int32_t task, int32_t pred, tg_on_t on);
/* Meta for tasks [from, g.n) appended by coll_append. */
int trn_gb_meta_fill(trn_gb_t *b, int32_t from, trn_meta_t meta);
int trn_gb_span(trn_gb_t *b, trn_span_t sp);
/* The two spans (sender's, then receiver's) of point-to-point flow f between
 * GPUs src and dst (pipeline category). */
int trn_gb_p2p_spans(trn_gb_t *b, int32_t src, int32_t dst, int32_t f, uint64_t bytes);
/* Groups the spans by GPU (stably) and fills span_off. */
int trn_gb_sort_spans(trn_gb_t *b);
/* A join of `a` and `c` on gpu (whichever is -1 is left out; both -1: -1); its index
 * in *out; 0 or -1. */
int trn_gb_join2(trn_gb_t *b, int32_t gpu, int32_t a, int32_t c, int32_t *out);
/* coll_append among n GPUs, meta and spans (cat) for its tasks; done[i] per member. */
int trn_gb_coll(trn_gb_t *b, coll_kind_t kind, uint64_t bytes, int32_t n, const int32_t *gpus,
                const int32_t *after, int32_t *done, int cat, trn_meta_t meta);
/* An imported workload's builder on `gpus` GPUs, gps and nics per server, of GPU type
 * `gpu` (b->o's n_gpus, the collectives' cluster with b->d's model and sync; nvlink:
 * every GPU its own NIC and "server", its collectives' steps flows). */
void trn_gb_imported(trn_gb_t *b, int32_t gpus, int64_t gps, int64_t nics, const char *gpu,
                     int32_t nvlink);
/* GPU of (tp, dp, pp) indices. */
int32_t trn_gb_gpu(const trn_gb_t *b, int64_t tp, int64_t dp, int64_t pp);

/* Model time of an intra-server collective among the TP group, ps (0 when tp is 1). */
int trn_gb_tp_time(trn_gb_t *b, coll_kind_t kind, uint64_t bytes, int64_t *ps);
/* Fills b->tm. 0 or -1. */
int trn_gen_costs(trn_gb_t *b);

/* The blocking TP step on the n GPUs base..base+n-1 (TP groups of t consecutive
 * GPUs): a coll task per GPU after p1[j] (and p2[j]) of every member j of its group,
 * lasting ps once the last is ready; on each GPU's stream. */
int trn_gen_tp_step(trn_gb_t *b, int32_t base, int32_t n, const int32_t *p1, const int32_t *p2,
                    int64_t ps, trn_meta_t meta);
/* Buckets of the gradients of a chunk of lc layers (first, last: it holds the
 * embedding, the head): filled in backward order until each holds b->bucket
 * parameters, whole layers at a time. bucket_of[layer + 1] (embedding at 0, head at
 * lc + 1); dense[k], expert[k] (room for lc + 2) their parameters. Returns the count. */
int32_t trn_gen_buckets(trn_gb_t *b, int first, int last, int32_t lc, int32_t *bucket_of,
                        int64_t *dense, int64_t *expert);

/* Instantiates every rank's program on its GPUs: passes as segments of compute and
 * TP tasks on each GPU's stream, expert all-to-alls, call joins, and the data-
 * parallel launches the passes trigger. */
int trn_gen_passes(trn_gb_t *b);
/* The pipeline transfers between call steps. */
int trn_gen_p2p(trn_gb_t *b);
/* Data-parallel collectives, the norm and embedding all-reduces, the optimizer step
 * and ZeRO's parameter gathers. */
int trn_gen_dp(trn_gb_t *b);

/* Adds a launch of rank r; its index, or -1. */
int32_t trn_gb_launch(trn_gb_t *b, int64_t r, trn_launch_t l);
/* Records for gpu the trigger of its launch k. */
int trn_gb_trigger(trn_gb_t *b, int32_t gpu, int32_t k, int32_t trig);

#endif

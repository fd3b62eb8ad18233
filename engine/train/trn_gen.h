/* trn_gen: the task graph of one training iteration on every GPU (docs/training.md,
 * The task graph): Megatron's pipeline schedules, each pass's compute and tensor-
 * parallel collectives, pipeline sends and receives, data-parallel gradient
 * collectives overlapping the backward pass, the optimizer step; or an imported
 * ASTRA-sim/SimAI workload. Every task is owned by the NIC host of its GPU. */
#ifndef TRN_GEN_H
#define TRN_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "tg/tg.h"
#include "train/trn.h"
#include "train/trn_et.h"
#include "train/trn_wl.h"

/* What a task does, for results and traces. */
typedef enum trn_cat_t {
  TRN_CAT_COMPUTE = 0, /* forward, backward, recomputation, optimizer step */
  TRN_CAT_TP = 1,      /* tensor-parallel collectives */
  TRN_CAT_PP = 2,      /* pipeline sends and receives */
  TRN_CAT_DP = 3,      /* data-parallel gradient (and ZeRO parameter) collectives */
  TRN_CAT_EP = 4,      /* expert-parallel all-to-all */
  TRN_CAT_SYNC = 5,    /* joins: no work */
  TRN_CAT_COUNT
} trn_cat_t;

const char *trn_cat_name(int cat); /* "compute", "tp", "pp", "dp", "ep", "sync" */

/* What a compute task computes, or a communication task carries. */
typedef enum trn_what_t {
  TRN_W_FWD = 0,   /* forward pass of a model chunk */
  TRN_W_BWD = 1,   /* backward pass (recomputation included) */
  TRN_W_OPT = 2,   /* optimizer step */
  TRN_W_ACT = 3,   /* pipeline: activations */
  TRN_W_GRAD = 4,  /* pipeline: gradients */
  TRN_W_RED = 5,   /* data parallel: gradient reduction of a bucket */
  TRN_W_GATH = 6,  /* data parallel: parameter all-gather (ZeRO) */
  TRN_W_EMB = 7,   /* the tied embedding's gradient between first and last stage */
  TRN_W_NORM = 8,  /* sequence parallelism: norm gradients across the TP group */
  TRN_W_A2A = 9,   /* expert all-to-all */
  TRN_W_LAYER = 10 /* an imported workload's layer */
} trn_what_t;

typedef struct trn_meta_t {
  uint8_t cat;   /* trn_cat_t */
  uint8_t what;  /* trn_what_t */
  int16_t chunk; /* model chunk (virtual stage of the GPU), -1 */
  int32_t mb;    /* micro-batch, -1 */
  int32_t aux;   /* first layer of a compute task; bucket of a DP collective; -1 */
} trn_meta_t;

/* A communication of one GPU, for exposure and traces: a collective member from its
 * first task to its done join, one end of a pipeline transfer, or a TP task. */
typedef struct trn_span_t {
  int32_t gpu;
  uint8_t cat;        /* trn_cat_t */
  uint8_t kind;       /* coll_kind_t */
  uint8_t recv_side;  /* 1: the receiving end of flow `done` (from its start to its recv) */
  int32_t first, end; /* tasks [first, end) of the collective; the member's are those of gpu */
  int32_t done;       /* its done join (or the flow, or the TP task itself) */
  uint64_t bytes;     /* nccl-tests size of the collective, or the transfer's bytes */
  int64_t lead;       /* ps before its task's start that it already runs (a TP step
                       * starts when its last member is ready; its task sync later) */
  int32_t task;       /* a task whose meta describes it */
} trn_span_t;

typedef struct trn_graph_t {
  tg_t g;
  trn_meta_t *meta; /* (g.n) */
  int32_t cap_meta;
  int32_t n_gpus;
  int32_t n_spans, cap_spans;
  trn_span_t *spans;  /* by GPU, then in creation order (after trn_gen) */
  int32_t *span_off;  /* (n_gpus + 1) CSR offsets of each GPU's spans */
  int32_t *gpu_stage; /* (n_gpus) pipeline stage, or -1 */
  int64_t flow_bytes; /* bytes of every flow */
  int32_t n_flows;
  int32_t roofline_tasks; /* compute tasks of an imported trace timed by the roofline */
  /* SimAI's pipeline bubble (a SimAI workload with pp > 1): after the pass, the time
   * of GPU 0's pass outside the embedding layer (its compute and its waits for
   * blocking collectives) times bubble_num / bubble_den = (pp - 1) / (ga vpp). Pairs
   * (from, to) of tasks: a compute task (from == to, its duration), or a wait from the
   * end of `from` to the end of `to`. */
  int64_t bubble_num, bubble_den;
  int32_t n_prebubble, cap_prebubble;
  int32_t *prebubble; /* (2 n_prebubble) */
} trn_graph_t;

/* Where GPUs are (coll_cluster_t's rule: GPU g is in server g / gpus_per_server, its
 * NIC host server * nics_per_server + local * nics / gpus_per_server) and how the
 * intra-server collectives are timed. */
typedef struct trn_gen_desc_t {
  const trn_setup_t *setup;  /* checked (trn_setup_check) */
  const trn_costs_t *costs;  /* trn_costs of the set-up */
  const coll_model_t *model; /* intra-server collective model */
  int64_t sync_ps;           /* the experiment's sync_us in ps */
  int32_t channels;          /* rings per inter-server collective (coll_desc_t.channels), 0: 1 */
  int32_t max_tasks;         /* the most tasks it may build (memory); 0: no limit */
} trn_gen_desc_t;

/* Builds the iteration's task graph. 0; -1 with a message; -2 when it passed
 * max_tasks before it was complete (out is then freed). */
int trn_gen(const trn_gen_desc_t *d, trn_graph_t *out, char *err, size_t errlen);

/* An imported workload on a cluster of `gpus` GPUs (its all_gpus; tp, pp, ep from its
 * header): docs/training.md, Imported workloads, gives the schedule. */
typedef struct trn_gen_wl_desc_t {
  const trn_wl_t *wl;
  int64_t gpus, gpus_per_server, nics_per_server;
  int32_t flavor; /* trn_wl_flavor_t */
  int32_t nvlink; /* the topology has NVSwitches: collectives inside a server are flows */
  int32_t n_dims; /* ASTRA-sim 1.0's network dimensions (product: gpus) */
  int64_t dims[TRN_WL_MAX_DIMS];
  const char *gpu;           /* GPU type of the intra-server model */
  const coll_model_t *model; /* intra-server collective model */
  int64_t sync_ps;
  int32_t channels;
} trn_gen_wl_desc_t;

int trn_gen_wl(const trn_gen_wl_desc_t *d, trn_graph_t *out, char *err, size_t errlen);

/* A Chakra trace set on a cluster of as many GPUs as it has ranks (docs/chakra.md). */
typedef struct trn_gen_et_desc_t {
  const trn_et_t *et;
  int64_t gpus, gpus_per_server, nics_per_server;
  const char *gpu;           /* GPU type of the intra-server model */
  const trn_gpu_t *gpu_spec; /* its roofline, for compute nodes with FLOPs and no duration */
  const coll_model_t *model; /* intra-server collective model */
  int64_t sync_ps;
  int32_t channels;
  int32_t nvlink; /* the topology has NVSwitches: collectives inside a server are flows */
} trn_gen_et_desc_t;

int trn_gen_et(const trn_gen_et_desc_t *d, trn_graph_t *out, char *err, size_t errlen);

void trn_graph_free(trn_graph_t *g);

/* ---- pipeline schedules (exposed for tests) ---- */

/* One step of a pipeline rank's program in Megatron-LM's order: a forward or backward
 * pass of (chunk, micro-batch), or one blocking point-to-point call of up to four
 * sends and receives, each naming its transfer: activations (or gradients) of
 * micro-batch `mb` into virtual stage `vs` = chunk * pp + rank. */
typedef enum trn_step_kind_t {
  TRN_STEP_FWD = 0,
  TRN_STEP_BWD = 1,
  TRN_STEP_CALL = 2
} trn_step_kind_t;

typedef struct trn_p2p_t {
  uint8_t send; /* 1 send, 0 receive */
  uint8_t grad; /* 1 gradients (backward), 0 activations */
  int32_t vs;   /* virtual stage the tensor goes to */
  int32_t mb;
} trn_p2p_t;

typedef struct trn_step_t {
  uint8_t kind; /* trn_step_kind_t */
  uint8_t n_ops;
  int32_t chunk, mb;
  trn_p2p_t op[4];
} trn_step_t;

/* The program of pipeline rank `rank` of `pp`, with `v` chunks per rank and `m`
 * micro-batches: 1F1B (v = 1) or the interleaved schedule (v > 1, m a multiple of
 * pp). *steps is malloc'd. Returns the number of steps, or -1 when out of memory. */
int32_t trn_schedule(int64_t pp, int64_t v, int64_t m, int64_t rank, trn_step_t **steps);

#endif

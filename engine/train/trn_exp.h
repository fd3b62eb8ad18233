/* trn_exp: the training experiment kind. One experiment of a job file, read by
 * jobs/job_train.h into a trn_exp_spec_t, becomes what the engine runs (its
 * topology, the iteration's task graph, network parameters) and its memory
 * verdict; after the batch ran, its result values. The entry points
 * a driver needs to run training experiments: build, describe, results, and the
 * names and units of the result columns. */
#ifndef TRN_EXP_H
#define TRN_EXP_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "base/base_status.h"
#include "coll/coll.h"
#include "sim/eng.h"
#include "topo/topo.h"
#include "train/trn.h"
#include "train/trn_gen.h"
#include "train/trn_wl.h"

/* What every experiment shares, loaded once by the caller. */
typedef struct trn_exp_env_t {
  const coll_model_t *coll; /* intra-server collective model */
  const char *base_dir;     /* workload and topology files are relative to it (the job's folder) */
  /* The most tasks a generated graph may have (what the memory of the process
   * building it holds, trn_max_tasks); past it the experiment is `oom`. 0: none. */
  int32_t max_tasks;
} trn_exp_env_t;

/* A training experiment read from a job file (jobs/job_train.h): typed values,
 * defaults filled, what trn_exp_build makes the engine's experiment from. */
typedef struct trn_exp_spec_t {
  int32_t imported;    /* workload.file gives the task graph (no model, no training) */
  trn_setup_t setup;   /* the model and plan (generated), the cluster (both) */
  char workload[4096]; /* imported: a text workload or a Chakra trace set, as written */
  int32_t chakra;      /* imported: the workload is a Chakra trace set */
  int64_t unit_ps;     /* text workload: its time unit */
  int32_t flavor;      /* text workload: trn_wl_flavor_t */
  int32_t n_dims;      /* text workload: ASTRA-sim 1.0's network dimensions */
  int64_t dims[TRN_WL_MAX_DIMS];
  char comm_groups[4096]; /* Chakra: ASTRA-sim's communicator groups file ("": none) */
  /* overlap_slowdown given by the network (its value in params), by the cluster:
   * otherwise the build decides (the cluster's; 1 for an imported workload's
   * measured times) */
  int32_t overlap_net, overlap_cluster;
  eng_params_t params;  /* network parameters */
  topo_spec_t topology; /* sized to the cluster */
} trn_exp_spec_t;

typedef struct trn_exp_t {
  /* base_status_t: BASE_OK built (simulate it), BASE_OOM does not fit in the
   * GPU's memory (not simulated), BASE_INVALID a mistake in it (message) */
  int32_t status;
  char message[2 * TRN_ERR_LEN];
  int32_t imported;   /* the task graph comes from workload.file */
  int32_t topo_built; /* topo holds the topology (built before the graph) */
  trn_setup_t setup;
  trn_costs_t costs;
  trn_memory_t memory;
  topo_t topo;
  eng_params_t params;
  trn_graph_t graph;
  uint64_t seed;
  int32_t gpus;
  /* Built (BASE_OK): its memory in the engine's world (eng_exp_check) and its
   * task graph's size on its topology, from the validation's count of rows. */
  int64_t world_bytes;
  eng_graph_size_t size;
} trn_exp_t;

/* Builds the experiment spec s describes (`where` names it in messages, "job.json:
 * experiment 3"); `seed` is its id. What cannot be built (a workload file that
 * does not read, a topology too small for the cluster, what the engine rejects)
 * makes it BASE_INVALID with a message; returns -1 only when out of memory. */
int trn_exp_build(const trn_exp_env_t *env, const trn_exp_spec_t *s, const char *where,
                  uint64_t seed, trn_exp_t *x);
/* An experiment whose spec has problems: BASE_INVALID, the problems one per
 * line. */
void trn_exp_problems(trn_exp_t *x, const trn_problems_t *pr);
/* The overlap_slowdown (Q16) a generated experiment of spec s runs with: the
 * network's if it gives one, else its cluster's. */
int64_t trn_exp_overlap_q16(const trn_exp_spec_t *s);
/* The engine's description of a built experiment (status BASE_OK). */
eng_exp_desc_t trn_exp_desc(const trn_exp_t *x);
void trn_exp_free(trn_exp_t *x);

/* ---- results ---- */

/* X(name, unit, what): the result columns, in order. Exposure (docs/training.md) is
 * measured on the GPU whose work ends last: at every instant it runs compute, or
 * else TP, EP, PP or DP communication (first that applies), or is idle (bubble); the
 * six add up to the iteration time. */
#define TRN_RESULTS(X)                                                                             \
  X(iteration_time_s, "s", "last task's end")                                                      \
  X(compute_s, "s", "compute on the last GPU")                                                     \
  X(exposed_tp_s, "s", "TP communication while no compute runs")                                   \
  X(exposed_pp_s, "s", "pipeline transfers while no compute or TP/EP communication runs")          \
  X(exposed_dp_s, "s", "data-parallel communication while nothing else runs")                      \
  X(exposed_ep_s, "s", "expert all-to-all while no compute or TP communication runs")              \
  X(bubble_s, "s", "idle: waiting for other GPUs")                                                 \
  X(peak_memory_bytes, "bytes", "memory of the fullest GPU")                                       \
  X(weights_bytes, "bytes", "its weights")                                                         \
  X(grads_bytes, "bytes", "its gradients")                                                         \
  X(optimizer_bytes, "bytes", "its optimizer states")                                              \
  X(activations_bytes, "bytes", "its activations (micro-batches in flight)")                       \
  X(act_extra_bytes, "bytes", "embedding, output layer and loss activations")                      \
  X(reserve_bytes, "bytes", "framework reserve")                                                   \
  X(tokens_per_s, "1/s", "tokens trained per second")                                              \
  X(mfu, "1", "model FLOPs / (iteration time x peak x GPUs)")                                      \
  X(gpus, "1", "GPUs")                                                                             \
  X(tasks, "1", "tasks of the graph")                                                              \
  X(flows, "1", "flows of the graph")                                                              \
  X(flow_bytes, "bytes", "bytes of every flow")                                                    \
  X(packet_hops, "1", "packet transmissions")                                                      \
  X(drops, "1", "packets dropped")                                                                 \
  X(pfc_pauses, "1", "PFC pauses")                                                                 \
  X(ecn_marks, "1", "ECN marks")                                                                   \
  X(cnps, "1", "congestion notifications")                                                         \
  X(retransmits, "1", "packets sent again")                                                        \
  X(timeouts, "1", "retransmission timeouts")                                                      \
  X(paused_s, "s", "time ports spent paused, summed")

typedef enum trn_result_id_t {
#define TRN_RESULT_ENUM(name, unit, what) TRN_R_##name,
  TRN_RESULTS(TRN_RESULT_ENUM)
#undef TRN_RESULT_ENUM
      TRN_RESULT_COUNT
} trn_result_id_t;

const char *trn_result_name(int i);
const char *trn_result_unit(int i);

typedef struct trn_result_t {
  int32_t status; /* base_status_t: OK, OOM, INVALID or FAILED (failed or timed out: message) */
  const char *message;
  int32_t last_gpu; /* the GPU exposure is measured on; -1 */
  double v[TRN_RESULT_COUNT];
} trn_result_t;

/* Results of experiment e of batch b (x built and run as b's e-th), or of an
 * experiment that was not run (b NULL: oom and invalid experiments get their memory
 * and zeros). */
void trn_exp_results(const trn_exp_t *x, const eng_batch_t *b, int32_t e, trn_result_t *r);

/* When span s of experiment e (its graph's) ran on its GPU: from its first task's
 * start to its done join's end (ps). 0, or -1 if it did not run. */
int trn_exp_span_times(const trn_exp_t *x, const eng_batch_t *b, int32_t e, const trn_span_t *s,
                       int64_t *start, int64_t *end);

/* Chrome trace events (chrome://tracing, ui.perfetto.dev) of experiment e, written
 * to f (the caller opens and closes it by the driver's output rule): one process
 * per GPU, a thread per stream (compute, tp, pp, dp, ep). 0, or -1 after a write
 * error. */
int trn_exp_trace(const trn_exp_t *x, const eng_batch_t *b, int32_t e, FILE *f);

#endif

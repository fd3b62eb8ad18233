/* trn_wl: the layer-wise text workloads of ASTRA-sim 1.0 and SimAI (AICB's output),
 * read into a neutral description: the header's parallelism and group sizes, then per
 * layer the compute time and collective of its forward pass, input-gradient and
 * weight-gradient phases. docs/training.md describes the format and its semantics. */
#ifndef TRN_WL_H
#define TRN_WL_H

#include <stddef.h>
#include <stdint.h>

/* The first word of the file: the training loop's parallelism. */
#define TRN_WL_POLICIES(X)                                                                         \
  X(DATA)                                                                                          \
  X(HYBRID_TRANSFORMER)                                                                            \
  X(HYBRID_TRANSFORMER_FWD_IN_BCKWD)                                                               \
  X(HYBRID_DLRM)                                                                                   \
  X(HYBRID_DLRM_ENHANCED)                                                                          \
  X(MODEL)                                                                                         \
  X(HYBRID_DATA_MODEL)                                                                             \
  X(HYBRID_MODEL_DATA)                                                                             \
  X(HYBRID_CUSTOMIZED)                                                                             \
  X(MICRO)                                                                                         \
  X(DISTRIBUTED_INFERENCE)

typedef enum trn_wl_policy_t {
#define TRN_WL_POLICY_ENUM(name) TRN_WL_##name,
  TRN_WL_POLICIES(TRN_WL_POLICY_ENUM)
#undef TRN_WL_POLICY_ENUM
      TRN_WL_POLICY_COUNT
} trn_wl_policy_t;

/* Collectives as the files name them (a suffix _EP or _DP_EP picks the group). */
typedef enum trn_wl_comm_t {
  TRN_WL_NONE = 0,
  TRN_WL_ALLREDUCE = 1,
  TRN_WL_ALLGATHER = 2,
  TRN_WL_REDUCESCATTER = 3,
  TRN_WL_ALLTOALL = 4,
  TRN_WL_ALLREDUCEALLTOALL = 5, /* all-reduce then all-to-all (ASTRA-sim's DLRM) */
  TRN_WL_BROADCAST = 6,         /* written by AICB; SimAI itself skips it */
  TRN_WL_COMM_COUNT
} trn_wl_comm_t;

/* The group a collective runs in. Without a suffix: TP for the forward and
 * input-gradient phases, DP for the weight-gradient phase (SimAI's rule; under
 * ASTRA-sim 1.0's other policies, "TP" and "DP" are the policy's model and data
 * dimensions). */
typedef enum trn_wl_group_t {
  TRN_WL_TP = 0,
  TRN_WL_DP = 1,
  TRN_WL_EP = 2,
  TRN_WL_DP_EP = 3,
} trn_wl_group_t;

typedef struct trn_wl_phase_t {
  int64_t compute_ps; /* compute before the collective */
  uint64_t bytes;     /* collective size */
  int32_t comm;       /* trn_wl_comm_t */
  int32_t group;      /* trn_wl_group_t */
} trn_wl_phase_t;

typedef struct trn_wl_layer_t {
  char *name;       /* owned */
  int64_t reserved; /* the "dependency" column (-1 in every known file) */
  trn_wl_phase_t fwd, ig, wg;
  int64_t update_ps; /* delay per weight update after the weight-gradient collective */
  int32_t policy;    /* trn_wl_policy_t: the layer's own under HYBRID_CUSTOMIZED, else the file's */
  int32_t checkpoint; /* HYBRID_TRANSFORMER_FWD_IN_BCKWD: a checkpointed layer */
  int32_t initiates;  /* ... and a layer that starts a forward-in-backward pass */
  int32_t line;       /* in the file */
} trn_wl_layer_t;

/* Whose loops and groups a file runs with (docs/training.md, Imported workloads). */
typedef enum trn_wl_flavor_t {
  TRN_WL_FLAVOR_AUTO = 0,  /* SimAI when the header holds a SimAI field, else ASTRA-sim 1.0 */
  TRN_WL_FLAVOR_SIMAI = 1, /* SimAI: TP/DP/EP groups, its transformer loops */
  TRN_WL_FLAVOR_ASTRA = 2, /* ASTRA-sim 1.0: groups from its network's dimensions */
} trn_wl_flavor_t;

/* Most dimensions of ASTRA-sim 1.0's network (its decode_involved_dimensions has 10). */
#define TRN_WL_MAX_DIMS 10

typedef struct trn_wl_t {
  int32_t policy; /* trn_wl_policy_t */
  int32_t simai_fields; /* the header holds all_gpus:, ep:, pp:, vpp:, ga: or pp_comm */
  /* header fields; 0 when the file does not give them */
  int64_t tp; /* model_parallel_NPU_group */
  int64_t ep, pp, vpp, ga, all_gpus;
  uint64_t pp_comm_bytes;
  int64_t dlrm_last_bottom; /* HYBRID_DLRM: last bottom MLP layer; -1: not given */
  int32_t n_layers;
  trn_wl_layer_t *layers; /* (n_layers) */
} trn_wl_t;

/* Reads `path`. Compute and update times are multiplied by unit_ps (0: 1000, a
 * nanosecond: SimAI's unit, and ASTRA-sim 1.0's cycle at 1 GHz). 0, or -1 with a
 * one-line message naming the file and line. */
int trn_wl_read(const char *path, int64_t unit_ps, trn_wl_t *wl, char *err, size_t errlen);
void trn_wl_free(trn_wl_t *wl);

/* TRN_WL_FLAVOR_SIMAI or TRN_WL_FLAVOR_ASTRA, from the header. */
int trn_wl_flavor(const trn_wl_t *wl);

const char *trn_wl_policy_name(int policy);
const char *trn_wl_comm_name(int comm);

#endif

/* trn: the models of a training iteration. Model shapes, parallelism plans and
 * clusters read from the job file's model/training/cluster objects (with presets),
 * parameter counts, FLOPs and bytes per operation, memory per GPU and compute time
 * per operation. Host-side only; docs/training.md gives every formula and its source. */
#ifndef TRN_H
#define TRN_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define TRN_ERR_LEN 512
#define TRN_PROBLEMS_MAX 32
#define TRN_NAME_LEN 32
#define TRN_CURVE_MAX 32

/* ---- problems: every mistake of an input, found in one pass ---- */

typedef struct trn_problems_t {
  int n; /* problems found; the first TRN_PROBLEMS_MAX are kept */
  char msg[TRN_PROBLEMS_MAX][TRN_ERR_LEN];
} trn_problems_t;

void trn_problem(trn_problems_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Checked access to a job file's JSON objects (trn_json.c): a bad key adds one
 * problem naming its path and parsing goes on. trn_jproblem adds "WHERE.KEY:
 * message" (or "WHERE: message" when key is NULL). */
void trn_jproblem(trn_problems_t *pr, const char *where, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* One problem per key of obj not in the NULL-terminated list `allowed`. */
void trn_jkeys(const json_t *obj, const char *const *allowed, const char *where,
               trn_problems_t *pr);

/* Each reader leaves *out unchanged when the key is absent and returns 0; 1 when it
 * read a good value; -1 (and a problem) when the value is bad. */
int trn_jint(const json_t *obj, const char *key, int64_t min, int64_t max, int64_t *out,
             const char *where, trn_problems_t *pr);
int trn_jnum(const json_t *obj, const char *key, double min, double max, double *out,
             const char *where, trn_problems_t *pr);
int trn_jbool(const json_t *obj, const char *key, int32_t *out, const char *where,
              trn_problems_t *pr);
/* A string among the NULL-terminated `names`; *out is its index. */
int trn_jenum(const json_t *obj, const char *key, const char *const *names, int32_t *out,
              const char *where, trn_problems_t *pr);
/* A string of at most len - 1 characters. */
int trn_jstr(const json_t *obj, const char *key, char *out, size_t len, const char *where,
             trn_problems_t *pr);

/* "WHERE.KEY" into buf. */
const char *trn_path(char *buf, size_t len, const char *where, const char *key);

/* ---- descriptions ---- */

typedef enum trn_act_t { TRN_GELU = 0, TRN_SWIGLU = 1 } trn_act_t;
typedef enum trn_norm_t { TRN_LAYERNORM = 0, TRN_RMSNORM = 1 } trn_norm_t;
typedef enum trn_pos_t { TRN_POS_LEARNED = 0, TRN_POS_ROPE = 1 } trn_pos_t;

/* A decoder-only transformer. */
typedef struct trn_model_t {
  char name[TRN_NAME_LEN]; /* preset it came from, "" if none */
  int64_t layers, hidden, heads;
  int64_t kv_heads;   /* key/value heads (GQA); = heads for multi-head attention */
  int64_t ffn_hidden; /* MLP inner width (per expert) */
  int64_t vocab, seq_len;
  int64_t experts;         /* MLP experts per layer; 1: a dense MLP */
  int64_t top_k;           /* experts each token goes to */
  int32_t activation;      /* trn_act_t: gelu (2 GEMMs) or swiglu (3 GEMMs) */
  int32_t norm;            /* trn_norm_t: layernorm (scale + bias) or rmsnorm (scale) */
  int32_t positions;       /* trn_pos_t: learned (seq_len x hidden table) or rope (none) */
  int32_t bias;            /* linear layers have biases */
  int32_t tied_embeddings; /* the output layer reuses the word embedding */
} trn_model_t;

typedef enum trn_recompute_t {
  TRN_RECOMPUTE_NONE = 0,
  TRN_RECOMPUTE_SELECTIVE = 1, /* attention scores, softmax, attention over values */
  TRN_RECOMPUTE_FULL = 2,      /* the whole layer, from its input */
} trn_recompute_t;

typedef enum trn_dtype_t { TRN_BF16 = 0, TRN_FP16 = 1 } trn_dtype_t;

/* Element type of gradients as data parallelism reduces them. */
typedef enum trn_grad_dtype_t {
  TRN_GRAD_FP32 = 0,
  TRN_GRAD_BF16 = 1,
  TRN_GRAD_FP16 = 2
} trn_grad_dtype_t;

/* How finely the task-graph generator cuts a pipeline stage's forward or backward
 * pass of one micro-batch into tasks (docs/training.md, The task graph). */
typedef enum trn_grain_t {
  TRN_GRAIN_BLOCK = 0, /* one compute and one TP task per pass, split only where work
                        * from elsewhere joins (buckets, all-to-all) */
  TRN_GRAIN_LAYER = 1, /* one compute and one TP task per layer */
} trn_grain_t;

/* The operations of one micro-batch, in forward order. A layer's ops repeat per
 * layer; embed runs on the first pipeline stage, final_ln, logits and loss on the
 * last. GEMMs: qkv, score, av, proj, router, fc1, fc2, logits; the others move
 * memory (their FLOPs are not counted). */
#define TRN_OPS(X)                                                                                 \
  X(EMBED, "embed", 0, 0)                                                                          \
  X(LN1, "ln1", 0, 1)                                                                              \
  X(QKV, "qkv", 1, 1)                                                                              \
  X(SCORE, "score", 1, 1)                                                                          \
  X(SOFTMAX, "softmax", 0, 1)                                                                      \
  X(AV, "av", 1, 1)                                                                                \
  X(PROJ, "proj", 1, 1)                                                                            \
  X(RESID1, "resid1", 0, 1)                                                                        \
  X(LN2, "ln2", 0, 1)                                                                              \
  X(ROUTER, "router", 1, 1)                                                                        \
  X(FC1, "fc1", 1, 1)                                                                              \
  X(ACT, "act", 0, 1)                                                                              \
  X(FC2, "fc2", 1, 1)                                                                              \
  X(RESID2, "resid2", 0, 1)                                                                        \
  X(FINAL_LN, "final_ln", 0, 0)                                                                    \
  X(LOGITS, "logits", 1, 0)                                                                        \
  X(LOSS, "loss", 0, 0)

typedef enum trn_op_id_t {
#define TRN_OP_ENUM(id, name, gemm, layer) TRN_OP_##id,
  TRN_OPS(TRN_OP_ENUM)
#undef TRN_OP_ENUM
      TRN_OP_COUNT
} trn_op_id_t;

const char *trn_op_name(int op);
int trn_op_is_gemm(int op);
int trn_op_in_layer(int op);
/* The op named `s`, or -1. */
int trn_op_find(const char *s);

/* A time set by the job for an op (training.op_time_us); -1: the model's. */
typedef struct trn_op_time_t {
  int64_t fwd_ps, bwd_ps;
} trn_op_time_t;

/* How one iteration is trained. Zero-initialised fields are not defaults: use
 * trn_plan_default(). */
typedef struct trn_plan_t {
  int64_t global_batch;        /* sequences per iteration */
  int64_t micro_batch;         /* sequences per micro-batch */
  int64_t tp, pp, dp;          /* tensor, pipeline, data parallel sizes */
  int64_t ep;                  /* expert parallel size, inside the data-parallel group */
  int64_t virtual_stages;      /* interleaved 1F1B model chunks per GPU */
  int32_t sequence_parallel;   /* Megatron sequence parallelism (a no-op when tp = 1) */
  int32_t recompute;           /* trn_recompute_t */
  int32_t zero;                /* ZeRO stage 0..3 (1 = Megatron's distributed optimizer) */
  int32_t dtype;               /* trn_dtype_t */
  double memory_reserve_gb;    /* framework reserve per GPU, 1e9 bytes; < 0: the GPU preset's */
  int32_t overlap_grad_reduce; /* DP buckets reduced during the last backward pass */
  int64_t bucket_params;       /* parameters per DP bucket; 0: max(4e7, 1e6 dp) (Megatron-Core) */
  int32_t grad_reduce_dtype;   /* trn_grad_dtype_t */
  int32_t task_grain;          /* trn_grain_t */
  int64_t micro_batches;       /* derived: global_batch / (micro_batch * dp) per iteration */
  trn_op_time_t op_time[TRN_OP_COUNT];
} trn_plan_t;

/* A GPU type (jobs/presets/gpus.json). */
typedef struct trn_gpu_t {
  char name[TRN_NAME_LEN];
  double peak_tflops;       /* dense BF16/FP16, 1e12 FLOP/s */
  double hbm_bytes;         /* capacity */
  double hbm_TBps;          /* specification, 1e12 bytes/s */
  double hbm_TBps_achieved; /* what copies reach; the roofline's memory term */
  double nvlink_GBps;       /* per GPU, per direction, 1e9 bytes/s */
  int64_t gpus_per_server, nics_per_server;
  double nic_gbps;                    /* per NIC, 1e9 bit/s */
  double overlap_slowdown;            /* compute time factor while communication overlaps it */
  double memory_reserve_gb;           /* default framework reserve */
  int32_t n_curve;                    /* efficiency curve of BF16/FP16 GEMMs: */
  double curve_flops[TRN_CURVE_MAX];  /* FLOPs of one GEMM, increasing */
  double curve_tflops[TRN_CURVE_MAX]; /* achieved 1e12 FLOP/s at that size */
} trn_gpu_t;

typedef struct trn_cluster_t {
  trn_gpu_t gpu;
  int64_t gpus_per_server, servers, nics_per_server;
  double nic_gbps;
  double overlap_slowdown;
  int64_t gpus; /* derived: gpus_per_server * servers */
} trn_cluster_t;

/* One experiment's training set-up. */
typedef struct trn_setup_t {
  trn_model_t model;
  trn_plan_t plan;
  trn_cluster_t cluster;
} trn_setup_t;

/* ---- presets ---- */

typedef struct trn_presets_t {
  int32_t n_models, n_gpus, n_aliases;
  trn_model_t *models;
  trn_gpu_t *gpus;
  char (*alias)[2][TRN_NAME_LEN]; /* (n_aliases) name, GPU it stands for */
} trn_presets_t;

/* Reads DIR/models.json and DIR/gpus.json (dir NULL: $MULTIVERSE_PRESETS, else the
 * source tree's jobs/presets) and checks every preset. 0, or -1 with a message. */
int trn_presets_load(trn_presets_t *p, const char *dir, char *err, size_t errlen);
void trn_presets_free(trn_presets_t *p);
const trn_model_t *trn_preset_model(const trn_presets_t *p, const char *name);
const trn_gpu_t *trn_preset_gpu(const trn_presets_t *p, const char *name); /* aliases too */

/* ---- the job file's objects ---- */

trn_plan_t trn_plan_default(void);

/* Each parser reads the object `o` (the job file's model, training or cluster; NULL:
 * absent), named `where` in messages (e.g. "job.json: base.training"), validates every
 * key, rejects unknown keys and bad values, and adds one problem per mistake. They
 * return the number of problems they added. The model takes `preset` and the keys
 * beside it override the preset's; the cluster takes its GPU from the presets. */
int trn_model_parse(const json_t *o, const trn_presets_t *p, const char *where, trn_model_t *m,
                    trn_problems_t *pr);
int trn_plan_parse(const json_t *o, const char *where, trn_plan_t *pl, trn_problems_t *pr);
int trn_cluster_parse(const json_t *o, const trn_presets_t *p, const char *where, trn_cluster_t *c,
                      trn_problems_t *pr);
/* Whether model, plan and cluster fit together (divisibility, GPU counts, ...); fills
 * the derived fields. `where` names the parent ("job.json: base"). */
int trn_setup_check(trn_setup_t *s, const char *where, trn_problems_t *pr);
/* The canonical objects of a set-up that trn_setup_check accepted: every key with
 * its value, defaults and derived values filled (dp, bucket_params,
 * memory_reserve_gb), the model's shape rather than its preset's name, the GPU by
 * its preset's name; parsing them back gives the same set-up. NULL when out of
 * memory. */
json_t *trn_model_json(const trn_model_t *m);
json_t *trn_plan_json(const trn_plan_t *pl);
json_t *trn_cluster_json(const trn_cluster_t *c);
/* All of the above: the objects model, training and cluster of parent `where`. */
int trn_setup_parse(const json_t *model, const json_t *training, const json_t *cluster,
                    const trn_presets_t *p, const char *where, trn_setup_t *s, trn_problems_t *pr);

/* ---- placement (Megatron's order: tp innermost, then dp, then pp) ---- */

typedef enum trn_group_t { TRN_GROUP_TP, TRN_GROUP_DP, TRN_GROUP_PP, TRN_GROUP_EP } trn_group_t;

typedef struct trn_coord_t {
  int64_t tp, dp, pp; /* indices within each dimension */
  int64_t ep;         /* dp mod ep: index within the expert-parallel group */
} trn_coord_t;

/* Global rank = tp + tp_size * (dp + dp_size * pp); GPU `rank` sits in server
 * rank / gpus_per_server, so a TP group (tp dividing gpus_per_server) stays inside
 * one server. */
int64_t trn_rank(const trn_plan_t *pl, trn_coord_t c);
trn_coord_t trn_coord(const trn_plan_t *pl, int64_t rank);
/* The ranks of `rank`'s group of kind g, in increasing order of their index in that
 * dimension, into members (room for that group's size); returns the size. */
int64_t trn_group_ranks(const trn_plan_t *pl, trn_group_t g, int64_t rank, int64_t *members);

/* ---- parameters ---- */

typedef struct trn_params_t {
  int64_t embedding;  /* word embedding (vocab x hidden) */
  int64_t positions;  /* learned position table (seq_len x hidden), 0 with rope */
  int64_t attention;  /* one layer: QKV (GQA-aware), output projection, their biases */
  int64_t mlp;        /* one layer: all experts' MLPs and biases */
  int64_t mlp_active; /* one layer: top_k experts' MLPs */
  int64_t router;     /* one layer: hidden x experts (0 when dense) */
  int64_t norms;      /* one layer: its two norms */
  int64_t final_norm;
  int64_t output; /* untied output matrix (0 when tied) */
  int64_t per_layer, total, active;
} trn_params_t;

void trn_params(const trn_model_t *m, trn_params_t *out);

/* Parameters held by one GPU of pipeline stage `stage` (one TP rank; experts of one
 * EP rank): `dense` replicated across data parallelism, `expert` across dp/ep. */
typedef struct trn_stage_params_t {
  int64_t dense, expert;
} trn_stage_params_t;
trn_stage_params_t trn_stage_params(const trn_setup_t *s, int64_t stage);

/* The parts of those: one layer's parameters on one GPU (dense, and its EP rank's
 * experts), the first stage's extras (embedding rows, position table) and the last
 * stage's (final norm, and the output matrix or the tied embedding's copy). */
typedef struct trn_part_params_t {
  int64_t layer_dense, layer_expert, first_extra, last_extra;
} trn_part_params_t;
trn_part_params_t trn_part_params(const trn_setup_t *s);

/* ---- operations: FLOPs, bytes and time ---- */

typedef struct trn_op_t {
  double flops;           /* forward, one micro-batch on one TP rank; 0 for memory ops */
  double bytes;           /* forward HBM traffic */
  int64_t m, n, k, batch; /* GEMMs: batch products of (m x k)(k x n); 0 otherwise */
  int64_t fwd_ps, bwd_ps; /* compute time; backward = 2x forward unless overridden */
  int32_t recomputed;     /* forward run again during backward under the plan's recompute */
} trn_op_t;

typedef struct trn_costs_t {
  trn_op_t op[TRN_OP_COUNT];
  double layer_flops;     /* forward FLOPs of one layer's ops (one micro-batch, one TP rank) */
  int64_t layer_fwd_ps;   /* one layer forward */
  int64_t layer_bwd_ps;   /* one layer backward, recomputation included */
  double iteration_flops; /* whole iteration, all GPUs, recomputation included */
  double model_flops;     /* the same without recomputation (for MFU) */
} trn_costs_t;

/* Costs of one micro-batch of the set-up's model and plan on its GPU; the set-up
 * must have passed trn_setup_check (which fills dp and micro_batches). */
void trn_costs(const trn_setup_t *s, trn_costs_t *c);

/* Achieved TFLOP/s of a BF16/FP16 GEMM of `flops` FLOPs on g: the curve interpolated
 * linearly in log(FLOPs) between its points, constant beyond its ends. */
double trn_gemm_tflops(const trn_gpu_t *g, double flops);
/* Roofline time of one op: max(flops / achieved GEMM rate, bytes / achieved HBM
 * bandwidth), rounded to the nearest ps; memory ops (gemm 0) take the second term. */
int64_t trn_op_time_ps(const trn_gpu_t *g, double flops, double bytes, int gemm);

/* ---- memory per GPU ---- */

/* Bytes of one layer's activations kept for backward for one micro-batch on one GPU
 * (Korthikanti et al. 2022, generalised to GQA, SwiGLU and experts). */
double trn_act_layer_bytes(const trn_model_t *m, const trn_plan_t *pl);

/* Model-state bytes of `params` parameters replicated over `dp` GPUs under ZeRO stage
 * `zero`, mixed-precision Adam: 2 (weights) + 2 (gradients) + 12 (fp32 master,
 * momentum, variance) bytes per parameter. */
void trn_model_states(double params, int64_t dp, int zero, double *weights, double *grads,
                      double *optimizer);

typedef struct trn_memory_t {
  int64_t stage;      /* pipeline stage described (trn_memory: the fullest) */
  double weights;     /* bytes */
  double grads;       /* bytes */
  double optimizer;   /* bytes */
  double activations; /* layers' activations of the micro-batches in flight */
  double act_extra;   /* embedding dropout (first stage), output layer and loss (last) */
  double reserve;     /* framework reserve */
  double total;
  double capacity;  /* the GPU's memory */
  double in_flight; /* micro-batches whose activations are held (interleaving factor in) */
  int32_t oom;      /* total > capacity */
} trn_memory_t;

/* Memory of one GPU of pipeline stage `stage` (a set-up that passed trn_setup_check). */
void trn_memory_stage(const trn_setup_t *s, int64_t stage, trn_memory_t *out);
/* The stage whose GPUs need the most memory. */
void trn_memory(const trn_setup_t *s, trn_memory_t *out);

#endif

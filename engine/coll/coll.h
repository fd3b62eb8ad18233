/* coll: NCCL collectives. The intra-server analytical model (t = alpha +
 * bytes / beta per size range, fitted to nccl-tests curves), the nccl-tests
 * log reader that feeds `multiverse calibrate`, and NCCL's algorithms expanded
 * into task graphs (engine/tg): flows between servers, model-timed steps
 * inside them. Host-side only. */
#ifndef COLL_H
#define COLL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "tg/tg.h"

typedef enum coll_kind_t {
  COLL_ALLREDUCE = 0,
  COLL_ALLGATHER = 1,
  COLL_REDUCESCATTER = 2,
  COLL_ALLTOALL = 3,
  COLL_BROADCAST = 4,
  COLL_REDUCE = 5,
  COLL_SENDRECV = 6,
  COLL_N_KINDS = 7,
} coll_kind_t;

/* "allreduce", "allgather", "reducescatter", "alltoall", "broadcast",
 * "reduce", "sendrecv". */
const char *coll_name(coll_kind_t k);
/* The kind named `s` (also nccl-tests' spellings "all_reduce", ...), or -1. */
int coll_kind_parse(const char *s);
/* nccl-tests' bus bandwidth factor busbw / algbw among n ranks: allreduce
 * 2(n-1)/n; allgather, reducescatter, alltoall (n-1)/n; broadcast, reduce,
 * sendrecv 1. */
double coll_busbw_factor(coll_kind_t k, int32_t n);

/* ---- Intra-server model ------------------------------------------------ */

#define COLL_MAX_RANGES 16
#define COLL_MAX_SERVER_GPUS 64
#define COLL_NAME_LEN 48

/* Sizes are nccl-tests' "size" column: the per-rank buffer of an allreduce,
 * broadcast, reduce or sendrecv; the gathered output of an allgather (n x each
 * rank's input); the scattered input of a reducescatter; the send buffer of an
 * alltoall (n x the block for each peer). */
typedef struct coll_range_t {
  uint64_t max_bytes; /* the range holds sizes up to this one; UINT64_MAX: no bound */
  double alpha_us;    /* us, >= 0 */
  double beta_gbps;   /* GB/s (1e9 bytes/s), > 0: algorithm bandwidth of the size term */
} coll_range_t;

/* One curve's piecewise fit: one GPU type, collective and GPU count. */
typedef struct coll_fit_t {
  char gpu[COLL_NAME_LEN]; /* GPU type, as in presets ("a100-80gb", "h100-sxm", "h200") */
  int32_t kind;            /* coll_kind_t */
  int32_t gpus;            /* ranks, all in one server */
  int32_t n_ranges;
  coll_range_t r[COLL_MAX_RANGES]; /* ascending max_bytes, the last unbounded */
  double max_err; /* largest |model - measured| / measured over the fitted points */
} coll_fit_t;

/* Bus bandwidths of one GPU type (GB/s), the scale of derived curves. */
typedef struct coll_gpu_bw_t {
  char gpu[COLL_NAME_LEN];
  double allreduce;                             /* any GPU count, 0: unknown */
  double allreduce_n[COLL_MAX_SERVER_GPUS + 1]; /* by GPU count, 0: use allreduce */
  double other;                                 /* other collectives, 0: unknown */
} coll_gpu_bw_t;

typedef struct coll_model_t {
  int32_t n_fits;
  coll_fit_t *fits; /* (n_fits) measured curves */
  int32_t n_gpus;
  coll_gpu_bw_t *gpus;         /* (n_gpus) */
  char ref_gpu[COLL_NAME_LEN]; /* the reference curve, shape of derivations ("" : none) */
  int32_t ref_kind, ref_gpus;
} coll_model_t;

/* Adds the "models", "gpus" and "reference" of a model file (the preset
 * jobs/presets/nccl_intra.json, or a `multiverse calibrate` output) to `m`:
 * a curve of a (GPU, collective, count) already present is replaced, so a
 * calibration loaded after the presets overrides them. Errors name the file
 * and the JSON path. 0 or -1. */
int coll_model_load(coll_model_t *m, const char *path, char *err, size_t errlen);
/* As coll_model_load on a parsed document; `where` names it in messages. */
int coll_model_from_json(coll_model_t *m, const json_t *root, const char *where, char *err,
                         size_t errlen);
/* Loads the presets (`presets`, else $MULTIVERSE_PRESETS/nccl_intra.json, else
 * the source tree's) and then `calibration` (NULL: none), as `--calibration
 * FILE.json` does. 0 or -1. */
int coll_model_load_default(coll_model_t *m, const char *presets, const char *calibration,
                            char *err, size_t errlen);

/* The curve for (gpu, kind, gpus): the measured one if present (returns 0),
 * else derived (returns 1) from a measured curve of the same GPU type (same
 * collective first, then allreduce; nearest GPU count) or else the reference
 * curve if the GPU type is in the bus bandwidth table: the same ranges and alpha, and a size term
 * rescaled to this collective's bus factor and this GPU's bus bandwidth, 1/beta = 1/beta_src *
 * (factor(kind, gpus) / factor(src)) * (busbw(src) / busbw(gpu, kind, gpus)), with a busbw ratio of
 * 1 where the table lacks one of them. A collective of one GPU without a curve takes no time. -1
 * with a message if nothing applies. */
int coll_model_get(const coll_model_t *m, const char *gpu, coll_kind_t kind, int32_t gpus,
                   coll_fit_t *out, char *err, size_t errlen);
/* Time of a fit at `bytes`: alpha + bytes / beta of the range holding bytes,
 * rounded to the nearest ps; INT64_MAX past 9e18 ps. */
int64_t coll_fit_time_ps(const coll_fit_t *f, uint64_t bytes);
/* The longest time coll_model_time gives: a task's longest wait (1e5 s,
 * TG_MAX_WAIT_PS). */
#define COLL_MAX_TIME_PS 100000000000000000LL /* ps */
/* coll_model_get then coll_fit_time_ps; 0 or -1 with a message (also for a
 * time past COLL_MAX_TIME_PS). */
int coll_model_time(const coll_model_t *m, const char *gpu, coll_kind_t kind, int32_t gpus,
                    uint64_t bytes, int64_t *ps, char *err, size_t errlen);
void coll_model_free(coll_model_t *m);

/* ---- Fitting ------------------------------------------------------------ */

typedef struct coll_point_t {
  uint64_t bytes; /* nccl-tests size */
  double time_us; /* us */
} coll_point_t;

/* Piecewise fit of measured points (any order; points of one size are
 * averaged; size 0 is skipped): the fewest ranges (at most 6, each of two
 * points or more, found by dynamic programming) whose weighted least-squares
 * lines (weights 1/t^2: relative errors; alpha >= 0, beta at most 10 TB/s)
 * keep every point within its tolerance, the tightest of 2, 3, ..., 10, 15,
 * 20, 30, 50 % from 1 MiB on, then the tightest below. One point: the line
 * through it and the origin; at most 512 distinct sizes. A range ends at its
 * largest point; the last range is unbounded. Fills out->r, n_ranges and max_err (not gpu, kind,
 * gpus). 0 or -1 with a message. */
int coll_fit(const coll_point_t *p, int32_t n, coll_fit_t *out, char *err, size_t errlen);

/* The fit as a model-file entry {"gpu", "collective", "gpus", "max_error",
 * "ranges": [{"max_bytes", "alpha_us", "beta_GBps"}, ...]}; NULL when out of
 * memory. */
json_t *coll_fit_to_json(const coll_fit_t *f);

/* ---- nccl-tests logs ---------------------------------------------------- */

typedef struct coll_log_t {
  int32_t kind;      /* coll_kind_t */
  int32_t ranks;     /* GPUs ("#  Rank" lines) */
  int32_t nodes;     /* distinct host names of those lines */
  char device[96];   /* device name of the Rank lines ("NVIDIA H200") */
  char version[128]; /* "# nccl-tests version ..." line, "" if absent */
  int32_t n;         /* points, in file order */
  coll_point_t *p;   /* (n) size and time */
} coll_log_t;

/* Reads the stdout of an nccl-tests binary (all_reduce_perf, all_gather_perf,
 * reduce_scatter_perf, alltoall_perf, broadcast_perf, reduce_perf,
 * sendrecv_perf): the device lines, then the table (size, count, type, redop,
 * root, then time, algbw, busbw, #wrong out-of-place and in-place, with the
 * per-iteration and timestamp columns of newer versions). The collective comes
 * from "# Collective test starting: NAME", else from `kind` (>= 0), else from
 * the file name. Times are the in-place column, or the out-of-place one with
 * `out_of_place`. Each row is checked: algbw must match size / time and busbw
 * algbw times the collective's bus factor (this catches a wrong collective or
 * rank count), #wrong must be 0 or N/A, one data type and reduction per log.
 * Lines of NCCL's debug output are skipped. Errors name file:line. 0 or -1. */
int coll_log_read(const char *path, int kind, int out_of_place, coll_log_t *log, char *err,
                  size_t errlen);
void coll_log_free(coll_log_t *log);
/* Preset-style GPU name of a device name: lower case, without "NVIDIA ",
 * spaces as '-' ("NVIDIA H200" -> "h200", "NVIDIA A100-SXM4-80GB" ->
 * "a100-sxm4-80gb"). */
void coll_gpu_name(const char *device, char *out, size_t outlen);

/* ---- Collectives as task graphs ----------------------------------------- */

/* Where GPUs are: GPU g (the experiment's GPU index) is local GPU
 * g % gpus_per_server of server g / gpus_per_server; its traffic leaves
 * through NIC gpu_nic[local] (default local * nics / gpus) of its server, which
 * is host server * nics_per_server + nic of the topology (hosts are numbered
 * first, NICs of a server consecutively: rail_optimized's numbering, and
 * fat_tree's with nics_per_server hosts per server). */
typedef struct coll_cluster_t {
  int32_t gpus_per_server;   /* 0: 1 */
  int32_t nics_per_server;   /* 0: gpus_per_server */
  const int32_t *gpu_nic;    /* (gpus_per_server) or NULL */
  const char *gpu;           /* GPU type of the intra-server model */
  const coll_model_t *model; /* needed when a server holds two members or more */
  int64_t sync_ps;           /* the experiment's sync (eng_params_t.sync, docs/model.md Tasks) */
} coll_cluster_t;

typedef enum coll_algo_t {
  COLL_RING = 0, /* allreduce, allgather, reducescatter; broadcast and reduce pipelines */
  COLL_TREE = 1, /* allreduce: NCCL's double binary tree between servers */
} coll_algo_t;

typedef struct coll_desc_t {
  coll_kind_t kind;
  coll_algo_t algo;
  uint64_t bytes;       /* nccl-tests size (see coll_range_t), >= members */
  int32_t root;         /* broadcast, reduce: index into the member list */
  int32_t channels;     /* rings (trees: per tree) per member pair; 0: 1 */
  uint64_t chunk_bytes; /* 0: rings move a channel's share in one loop; trees and
                         * broadcast/reduce pipelines use NCCL's 512 KiB chunks */
  int32_t window;       /* flows in flight per connection; 0: unlimited for one-loop
                         * rings, NCCL_STEPS / chunk steps otherwise (2 rings, 8 others) */
  int32_t a2a_window;   /* alltoall: rounds in flight per member; 0: all */
  int64_t start;        /* ps: earliest start of every task */
  uint32_t prio;        /* flows' traffic class */
  const char *label;    /* label of every task, NULL: none */
} coll_desc_t;

/* Appends one collective among the n GPUs `gpus` (distinct; the same number
 * in every server they occupy) to g. Member i waits for the end of task
 * after[i] (-1: none; after NULL: none); done[i] receives the join task, on
 * member i's host, that ends when every task member i owns has ended and every
 * flow to it has arrived. Inside a server the members' steps are coll tasks
 * timed by the model; between servers the data moves as flows (docs/collectives.md,
 * "Collectives"). 0, or -1 with a message (g may then hold a partial graph). */
int coll_append(tg_t *g, const coll_cluster_t *cl, const coll_desc_t *d, int32_t n,
                const int32_t *gpus, const int32_t *after, int32_t *done, char *err, size_t errlen);

#endif

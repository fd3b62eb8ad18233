/* driver: `multiverse collective`, what its set-up and its output share. */
#ifndef DRV_COLL_H
#define DRV_COLL_H

#include "coll/coll.h"
#include "driver/drv.h"

typedef struct drv_coll_args_t {
  int kind;        /* coll_kind_t, -1 until --op */
  uint64_t *sizes; /* (n_sizes) nccl-tests sizes, bytes */
  int n_sizes;
  int32_t gpus, gps, nics; /* GPUs; per server: GPUs, NICs (0: the GPU preset's) */
  double nic_gbps;         /* Gb/s per NIC (0: the GPU preset's) */
  const char *gpu_name;    /* as given */
  char gpu[COLL_NAME_LEN]; /* preset name of the GPU type */
  int32_t servers, per;    /* derived: servers, members per server */
  const char *topo;        /* --topology, or NULL: the default */
  char *topo_json;         /* the default topology's object, compact */
  int algo;                /* coll_algo_t */
  int32_t channels;
  uint64_t chunk; /* bytes, 0: NCCL's defaults */
  const char *sets[DRV_MAX_SETS];
  int n_sets;
  const char *sweeps[DRV_MAX_SWEEPS];
  int n_sweeps;
  const char *calibration, *presets;
  eng_backend_t backend;
  int32_t threads;
  int json;
} drv_coll_args_t;

/* A finished batch: experiment e is combination e / n_sizes, size e % n_sizes. */
typedef struct drv_coll_report_t {
  const drv_coll_args_t *a;
  const coll_model_t *model;
  const eng_batch_t *b;
  const tg_t *tasks;   /* (experiments) */
  const int32_t *done; /* (experiments * gpus) each member's done join */
  const uint64_t *ids; /* (experiments) experiment ids */
  char *const *labels; /* (n_combo) the --sweep values, "" without */
  int n_combo;
  double wall_s; /* the batch's */
} drv_coll_report_t;

/* Prints one line (or JSON object) per experiment; 0 if every one is ok,
 * else 1. */
int drv_coll_print(const drv_coll_report_t *r);

#endif

/* driver: `multiverse collective`, what its set-up and its output share. */
#ifndef DRV_COLL_H
#define DRV_COLL_H

#include "coll/coll.h"
#include "driver/drv.h"
#include "driver/drv_run.h"
#include "jobs/job_coll.h"

typedef struct drv_coll_args_t {
  drv_pipe_t *pipe; /* its options: --run-dir, --results, --memory, --max-batch, --grace */
  int kind;         /* coll_kind_t, -1 until --op */
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

/* What one built collective experiment holds (drv_exp_t.own). */
typedef struct drv_coll_own_t {
  job_coll_t c;
  tg_t g;
  int32_t *done; /* (c.gpus) each member's done join */
  const topo_t *topo;
  const coll_model_t *model;
} drv_coll_own_t;

/* X(name, type, units, long_name): the `collective` kind's result columns. */
#define DRV_COLL_COLS(X)                                                                           \
  X(time, ANA_DOUBLE, "s", "the collective's time: from 0 to the last member's end")               \
  X(algbw, ANA_DOUBLE, "GB/s", "algorithm bandwidth: size over time (nccl-tests)")                 \
  X(busbw, ANA_DOUBLE, "GB/s", "bus bandwidth: algbw times nccl-tests' bus factor")                \
  X(flows, ANA_INT64, "1", "flows of its task graph")                                              \
  DRV_COUNTER_COLS(X)                                                                              \
  X(paused_time, ANA_DOUBLE, "s", "time ports spent paused by PFC, summed over ports")             \
  X(windows, ANA_INT64, "1", "simulation windows stepped")

enum {
#define DRV_COLL_ENUM(name, type, units, long_name) DRV_COLL_##name,
  DRV_COLL_COLS(DRV_COLL_ENUM)
#undef DRV_COLL_ENUM
      DRV_COLL_N_COLS
};

/* The collective's time: from 0 to the last member's done join, ps; -1 unless
 * the experiment ended ok. */
int64_t drv_coll_time(const drv_coll_own_t *o, const eng_batch_t *b, int32_t e);
/* Its results, one value per column. */
void drv_coll_results(const drv_coll_own_t *o, const eng_batch_t *b, int32_t e, ana_value_t *v);

/* `multiverse collective`'s sink: per experiment id, RUNDIR/out/ID.json (the
 * time in ps, the status, the counters). 0 or -1 with a message. */
int drv_coll_sink(const drv_sink_exp_t *ev, char *err, size_t errlen);

/* What the output needs besides each experiment's file. */
typedef struct drv_coll_report_t {
  const drv_coll_args_t *a;
  const coll_model_t *model;
  const drv_job_t *job; /* experiment e: combination e / n_sizes, size e % n_sizes */
  const char *out;      /* RUNDIR/out */
} drv_coll_report_t;

/* Prints one line (or JSON object) per experiment; 0 if every one is ok, 1
 * if not, 2 when a file cannot be read. */
int drv_coll_print(const drv_coll_report_t *r);

#endif

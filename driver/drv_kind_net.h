/* driver: the `network` kind's result columns, declared once: the summary
 * `multiverse net` prints, per experiment, in SI units. */
#ifndef DRV_KIND_NET_H
#define DRV_KIND_NET_H

#include "driver/drv_kind.h"

/* X(name, type, units, long_name) */
#define DRV_NET_COLS(X)                                                                            \
  X(max_fct, ANA_DOUBLE, "s", "largest flow completion time")                                      \
  X(p99_fct, ANA_DOUBLE, "s", "99th percentile flow completion time (nearest rank)")               \
  X(mean_fct, ANA_DOUBLE, "s", "mean flow completion time")                                        \
  X(p50_slowdown, ANA_DOUBLE, "1", "median of FCT over the flow's standalone FCT")                 \
  X(p99_slowdown, ANA_DOUBLE, "1", "99th percentile of FCT over standalone FCT")                   \
  X(mean_slowdown, ANA_DOUBLE, "1", "mean of FCT over standalone FCT")                             \
  X(flows, ANA_INT64, "1", "flows")                                                                \
  X(flows_done, ANA_INT64, "1", "flows that completed")                                            \
  X(bytes, ANA_INT64, "bytes", "bytes of every flow")                                              \
  DRV_COUNTER_COLS(X)                                                                              \
  X(paused_time, ANA_DOUBLE, "s", "time ports spent paused by PFC, summed over ports")             \
  X(sim_end, ANA_DOUBLE, "s", "simulated time of the last task end")                               \
  X(windows, ANA_INT64, "1", "simulation windows stepped")                                         \
  X(max_queue, ANA_INT64, "bytes", "largest data queue of any port")                               \
  X(max_util, ANA_DOUBLE, "1", "busiest port's busy time over the experiment's duration")

enum {
#define DRV_NET_ENUM(name, type, units, long_name) DRV_NET_##name,
  DRV_NET_COLS(DRV_NET_ENUM)
#undef DRV_NET_ENUM
      DRV_NET_N_COLS
};

/* What one built network experiment holds (drv_exp_t.own). */
typedef struct drv_net_own_t {
  eng_params_t params;
  const topo_t *topo;
  const tg_t *tasks;
  int graph; /* a task graph (.cm, JSON): flows in task order, a tasks file */
} drv_net_own_t;

/* FCT statistics of the flows of experiment e that finished: one code for the
 * result columns and net's summary (times in ps; slowdowns FCT over the flow's
 * standalone FCT, nearest-rank percentiles). Undefined when done is 0. */
typedef struct drv_fct_stats_t {
  int32_t flows, done; /* flow tasks, of which finished */
  int64_t bytes;       /* of every flow but the long-lived ones (open) */
  int64_t max_fct, p99_fct;
  double mean_fct; /* ps: the exact sum over done */
  double p50_slow, p99_slow, mean_slow;
} drv_fct_stats_t;
void drv_fct_stats(const drv_net_own_t *o, const eng_batch_t *b, int32_t e, drv_fct_stats_t *s);

/* Its results, one value per column. */
void drv_net_results(const drv_exp_t *x, const eng_batch_t *b, int32_t e, ana_value_t *v);

#endif

/* flw: the flow-level network model (docs/model.md, The flow-level model).
 * The packet level's topology, ECMP paths, task graphs and intra-server model,
 * with each flow sent as a fluid at the max-min fair share of its path's links
 * (recomputed at each flow arrival and departure) plus the latency of an idle
 * path: no packets, queues or congestion control. eng_batch.c runs the
 * experiments whose `model` is flow through this face, so callers see only
 * eng.h. */
#ifndef FLW_H
#define FLW_H

#include <stddef.h>
#include <stdint.h>

#include "sim/eng.h"

typedef struct flw_world_t flw_world_t;

/* What the flow level cannot take beyond the engine's common checks
 * (parameters, tasks, tg_check): a time series, a path it cannot follow,
 * tables past int32. 0, or -1 with a message. */
int flw_exp_check(const eng_exp_desc_t *x, char *err, size_t errlen);
/* Bytes of tables the experiment needs (host and device alike); -1 if it
 * cannot be sized. */
int64_t flw_exp_memory(const eng_exp_desc_t *x);

/* Its work in packet-hop equivalents (eng_flow_work). */
double flw_exp_work(const eng_exp_desc_t *x);

/* Tables of n checked experiments. 0 or an eng_err_t with a message. */
int flw_world_create(int32_t n, const eng_exp_desc_t *x, flw_world_t **out, char *err,
                     size_t errlen);
/* Runs every experiment to its end. 0 or an eng_err_t with a message. */
int flw_world_run(flw_world_t *w, const eng_run_desc_t *r, char *err, size_t errlen);
void flw_world_destroy(flw_world_t *w);
int64_t flw_world_bytes(const flw_world_t *w);

void flw_world_result(const flw_world_t *w, int32_t e, eng_result_t *r);
/* Times of task i of experiment e (start, end; a flow's reception). */
void flw_world_task_times(const flw_world_t *w, int32_t e, int32_t i, eng_task_times_t *t);

#endif

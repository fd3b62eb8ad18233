/* The flow level's tables: every experiment of a batch in one set of columns,
 * declared once in FLW_COLUMNS (struct, allocation, device copies and the
 * per-experiment view are generated from it). Rows of an experiment are
 * contiguous in each table and every index stored in a row is local to its
 * experiment, so a batch has no row limit beyond int64 offsets. Internal to
 * engine/flow. */
#ifndef FLW_WORLD_H
#define FLW_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "flow/flw.h"
#include "sim/eng.h"
#include "base/base_hd.h"

/* Per-experiment tables (rows of one experiment are contiguous):
 *   task  its task graph's tasks, in task order (and the event heap's slots)
 *   pred  predecessor events of each task (the stream's previous member first)
 *   succ  successor events of each task
 *   flow  its flow tasks, in task order
 *   hop   the links of each flow's path, flow by flow
 *   link  link directions (topology port p: the link leaving p's node)
 *   gpu   its GPUs (compute slowed by communication) */
#define FLW_TABLES(X) X(task) X(pred) X(succ) X(flow) X(hop) X(link) X(gpu)

/* Remaining data of a flow: wire bits x 10^12, so that a rate in bit/s takes
 * `rate` units per ps (docs/model.md, The flow-level model). */
typedef unsigned __int128 flw_u128_t;

/* X(table, type, name): the column table_name. exp columns are indexed by
 * experiment; the others by the experiment's offset plus a local index. */
#define FLW_COLUMNS(X)                                                                             \
  /* ---- experiments: sizes, parameters, outcome ---- */                                          \
  X(exp, int64_t, sync)        /* ps: an event of one host is known at another */                  \
  X(exp, int64_t, overlap_q16) /* compute slowdown while communication runs, x 2^16 */             \
  X(exp, int64_t, max_time)    /* ps: past this the experiment is timed_out */                     \
  X(exp, int32_t, status)      /* eng_status_t */                                                  \
  X(exp, int32_t, fail)        /* eng_fail_t */                                                    \
  X(exp, int64_t, now)         /* ps: the instant being processed */                               \
  X(exp, int64_t, first)       /* ps: the earliest task start; INT64_MAX: none */                  \
  X(exp, int32_t, done)        /* tasks ended */                                                   \
  X(exp, int32_t, heap_n)      /* pending events */                                                \
  X(exp, int32_t, epoch)       /* instants so far: marks of the component search */                \
  X(exp, int32_t, n_touch)     /* links whose flow set changed in this instant */                  \
  X(exp, int64_t, events)      /* events processed */                                              \
  X(exp, int64_t, rerates)     /* flows given a rate (progressive filling) */                      \
  /* ---- tasks ---- */                                                                            \
  X(task, uint8_t, kind)     /* tg_kind_t */                                                       \
  X(task, uint8_t, spred)    /* 1: its first predecessor is its stream's previous member */        \
  X(task, uint8_t, started)  /* its start event ran */                                             \
  X(task, int32_t, host)     /* owner's node id (a flow's source) */                               \
  X(task, int32_t, gpu)      /* its GPU (local), -1 */                                             \
  X(task, int32_t, need)     /* tg need: 0 all, else the k-th known predecessor event */           \
  X(task, int32_t, npred)    /* predecessor events */                                              \
  X(task, int32_t, pred_off) /* first in pred (local) */                                           \
  X(task, int32_t, nsucc)    /* successor events */                                                \
  X(task, int32_t, succ_off) /* first in succ (local) */                                           \
  X(task, int32_t, flow)     /* its flow row (local), -1 */                                        \
  X(task, int64_t, tmin)     /* ps: earliest start */                                              \
  X(task, int64_t, delay)    /* ps after its predecessors are known */                             \
  X(task, int64_t, dur)      /* ps: compute and coll */                                            \
  X(task, int64_t, start)    /* ps: its (planned) start; -1 */                                     \
  X(task, int64_t, end)      /* ps; -1 */                                                          \
  X(task, int32_t, pcur)     /* need 0: predecessors known so far, in order */                     \
  X(task, int64_t, kmax)     /* need 0: the latest of their known times */                         \
  X(task, int64_t, hkey)     /* its pending event: time * 4 + class; INT64_MAX none */             \
  X(task, int32_t, hpos)     /* its slot in the heap, -1 */                                        \
  X(task, int32_t, heap)     /* the event heap: slot -> task */                                    \
  X(task, int64_t, rem)      /* a slowed compute task's work left (time x 2^16 units) */           \
  X(task, int32_t, rate)     /* its units per ps */                                                \
  X(task, int64_t, tupd)     /* ps: when rem was last brought up to date */                        \
  X(task, int32_t, gnext)    /* next running compute task of its GPU, -1 */                        \
  /* ---- edges: task * 2 + tg_on_t, local ---- */                                                 \
  X(pred, int32_t, e)                                                                              \
  X(succ, int32_t, e)                                                                              \
  /* ---- flows ---- */                                                                            \
  X(flow, int32_t, task)    /* its task (local) */                                                 \
  X(flow, int32_t, dst)     /* destination node id */                                              \
  X(flow, int32_t, hop_off) /* first hop (local) */                                                \
  X(flow, int32_t, nhop)    /* links on its path */                                                \
  X(flow, int64_t, bits)    /* wire bits: payload and a header per packet, x 8 */                  \
  X(flow, int64_t, lat)     /* ps from its last bit sent to received (per hop latency) */          \
  X(flow, int64_t, ack)     /* ps for the last ACK to return */                                    \
  X(flow, int64_t, recv)    /* ps; -1 */                                                           \
  X(flow, flw_u128_t, rem)  /* data left, wire bits x 10^12 */                                     \
  X(flow, int64_t, rate)    /* bit/s while it sends */                                             \
  X(flow, int64_t, tupd)    /* ps: when rem was last brought up to date */                         \
  X(flow, int32_t, mark)    /* epoch it last joined a component */                                 \
  X(flow, uint8_t, frozen)  /* progressive filling: its rate is set */                             \
  /* ---- hops: one link of a flow's path ---- */                                                  \
  X(hop, int32_t, link) /* local */                                                                \
  X(hop, int32_t, flow) /* local */                                                                \
  X(hop, int32_t, next) /* the link's list of sending flows' hops, -1 */                           \
  X(hop, int32_t, prev)                                                                            \
  /* ---- link directions ---- */                                                                  \
  X(link, int64_t, cap)  /* bit/s */                                                               \
  X(link, uint8_t, tier) /* tier of the node it leaves (hosts 0) */                                \
  X(link, int32_t, nact) /* flows sending over it */                                               \
  X(link, int32_t, head) /* first hop of its list, -1 */                                           \
  X(link, int64_t, rc)   /* progressive filling: capacity left, bit/s */                           \
  X(link, int32_t, nu)   /* flows on it without a rate yet */                                      \
  X(link, int64_t, krc)  /* its share when queued: krc / knu */                                    \
  X(link, int32_t, knu)                                                                            \
  X(link, int32_t, lpos)     /* its slot in the link heap, -1 */                                   \
  X(link, int32_t, lheap)    /* the link heap: slot -> link */                                     \
  X(link, int32_t, mark)     /* epoch it last joined a component */                                \
  X(link, int32_t, queue)    /* component search: links to visit, then its links */                \
  X(link, uint64_t, carried) /* wire bits of the flows that crossed it */                          \
  X(flow, int32_t, queue)    /* component search: its flows */                                     \
  /* ---- GPUs ---- */                                                                             \
  X(gpu, int32_t, comm) /* communication tasks running */                                          \
  X(gpu, int32_t, run)  /* first running compute task, -1 */

typedef enum flw_table_t {
#define FLW_TABLE_ENUM(t) FLW_T_##t,
  FLW_TABLES(FLW_TABLE_ENUM)
#undef FLW_TABLE_ENUM
      FLW_T_COUNT,
  FLW_T_exp = FLW_T_COUNT /* indexed by experiment, no offsets */
} flw_table_t;

/* Column pointers (host or device memory, same layout). */
typedef struct flw_cols_t {
#define FLW_DECL(tab, type, name) type *tab##_##name;
  FLW_COLUMNS(FLW_DECL)
#undef FLW_DECL
  /* (n_exps) first row and row count of each experiment in each table
   * (FLW_T_exp: none) */
  int64_t *off[FLW_T_COUNT + 1];
  int32_t *cnt[FLW_T_COUNT + 1];
} flw_cols_t;

struct flw_world_t {
  int32_t n_exps;
  int64_t rows[FLW_T_COUNT + 1]; /* per table, all experiments (FLW_T_exp: n_exps) */
  flw_cols_t c;                  /* host copies */
  int32_t threads;               /* CPU: OpenMP threads; 0 = as many as the work merits */
};

/* Rows experiment x needs in each table. 0, or -1 when a count does not fit
 * an int32 (the message says which). */
int flw_exp_rows(const eng_exp_desc_t *x, int64_t rows[FLW_T_COUNT], char *err, size_t errlen);
/* Bytes of one row of a table, every column (experiment columns and offsets
 * counted per experiment as table FLW_T_exp). */
int64_t flw_row_bytes(int table);

/* Backends: every experiment to its end. */
void flw_run_cpu(flw_world_t *w);
/* 0, or an eng_err_t with a message (ENG_E_NOMEM: one experiment alone does
 * not fit in the device's memory). */
int flw_run_cuda(flw_world_t *w, char *err, size_t errlen);

#endif

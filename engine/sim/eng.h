/* eng: the engine as its callers see it. Describe experiments (a topology, a
 * task graph, parameters, a seed), validate and size each one before building,
 * build a batch, run it on a backend, read each experiment's results. How a
 * batch is laid out and stepped (eng_world.h) is internal to engine/sim. */
#ifndef ENG_H
#define ENG_H

#include <stddef.h>
#include <stdint.h>

#include "sim/eng_params.h"
#include "tg/tg.h"
#include "topo/topo.h"

typedef enum eng_status_t {
  ENG_RUNNING = 0,
  ENG_OK = 1,
  ENG_FAILED = 2,    /* the simulation broke down (eng_fail_t says why) */
  ENG_TIMED_OUT = 3, /* max_time_s of simulated time passed */
  ENG_INVALID = 4,   /* rejected before building (eng_result_t.message) */
} eng_status_t;

/* Why an experiment failed (lowest code wins when several nodes report). */
typedef enum eng_fail_t {
  ENG_FAIL_NONE = 0,
  ENG_FAIL_RING = 1,     /* a link ring overflowed (raise ring_cap) */
  ENG_FAIL_PFC_RING = 2, /* too many PFC frames in flight on one link */
  ENG_FAIL_ROUTE = 3,    /* a packet reached a node with no route onward */
  ENG_FAIL_DEADLOCK = 4, /* nothing pending, tasks unfinished */
  ENG_FAIL_POOL = 5,     /* a node's compact descriptor pool overflowed (run again, worst-case) */
} eng_fail_t;

/* Errors of batch-level calls (negative), with a message. */
typedef enum eng_err_t {
  ENG_E_INPUT = -1,   /* a description the engine cannot take */
  ENG_E_NOMEM = -2,   /* host or device memory ran out: split the batch */
  ENG_E_TOO_BIG = -3, /* more rows than one world addresses: split the batch */
  ENG_E_DEVICE = -4,  /* no such backend, or the device failed */
} eng_err_t;

typedef enum eng_backend_t { ENG_BACKEND_CPU = 0, ENG_BACKEND_CUDA = 1 } eng_backend_t;

typedef enum eng_trace_kind_t {
  ENG_TR_TIME = 0,      /* the sample's time, ps (the end of a window) */
  ENG_TR_DELIVERED = 1, /* a flow's bytes received in order */
  ENG_TR_CC = 2,        /* a flow's CC state: DCQCN rate (bit/s), DCTCP window (bytes) */
  ENG_TR_QUEUE = 3,     /* a port's data queue, bytes */
} eng_trace_kind_t;

/* Time series of one experiment: sampled at the end of the first window that
 * ends at or after every multiple of `every`. Series: the time, then per
 * traced flow its delivered bytes and CC state, then per traced port its
 * queue. */
typedef struct eng_trace_desc_t {
  int64_t every; /* ps; 0: no time series */
  int32_t max_samples;
  int32_t n_flows;
  const int32_t *flows; /* task indices of traced flows */
  int32_t n_ports;
  const int32_t *ports; /* topology port indices (topo_t.ports) */
} eng_trace_desc_t;

/* One experiment. Everything it points to must outlive the batch built from
 * it (an experiment may be built again during a run). */
typedef struct eng_exp_desc_t {
  const topo_t *topo;
  const tg_t *tasks; /* its work (tg_check against topo is part of validation) */
  const eng_params_t *params;
  uint64_t seed;                 /* of its random numbers: the experiment id */
  const eng_trace_desc_t *trace; /* NULL: no time series */
  /* 1: the caller's eng_exp_check (or eng_exp_validate) accepted it as it is:
   * eng_batch_create and eng_batch_memory do not check it again. */
  int32_t validated;
} eng_exp_desc_t;

typedef struct eng_batch_desc_t {
  int32_t n_exps;
  const eng_exp_desc_t *exps;
  int32_t threads; /* host threads that build its worlds; 0: one (the worlds are the same) */
} eng_batch_desc_t;

typedef struct eng_run_desc_t {
  eng_backend_t backend;
  int32_t threads;     /* CPU: OpenMP threads; 0: as many as the work merits (one per
                          experiment, one per ~2048 nodes of a lone one) up to max_threads */
  int32_t max_threads; /* CPU, threads 0: at most this many; 0: OpenMP's limit */
  /* NULL, or a counter the run raises (relaxed atomic adds, from any thread)
   * as experiments end: within half a second on the CPU backend, at each
   * look at the device on CUDA (about every half second while a counter is
   * given), and by what was left at the end of each world. An experiment run
   * again (docs/engine.md: compact rings) may count twice: for progress only. */
  int32_t *finished;
} eng_run_desc_t;

#define ENG_TIERS 8

/* Queues and links of one tier (the tier of the node a port belongs to). */
typedef struct eng_tier_stats_t {
  int32_t ports;
  int64_t max_queue; /* bytes, largest data queue of any of its ports */
  double mean_util;  /* busy time / experiment duration, averaged over its ports */
  double max_util;
} eng_tier_stats_t;

/* MULTIVERSE_PHASES (sim/eng_phase.h; exp_phases): 0, 1, or unset, each
 * backend's default: the CPU's port phases on switches of fewer than
 * ENG_TREE_PORTS ports (eng_step.h), the GPU's wherever a warp steps a switch
 * alone. eng_env_int("MULTIVERSE_PHASES", 0, 1, ENG_PHASES_AUTO, &v) reads it. */
#define ENG_PHASES_OFF 0
#define ENG_PHASES_ON 1
#define ENG_PHASES_AUTO 2

/* Per-experiment outcome. */
typedef struct eng_result_t {
  eng_status_t status;
  eng_fail_t fail;
  const char *message; /* ENG_INVALID: why (owned by the batch); else "" */
  int64_t drops, pfc_pauses, ecn_marks, packet_hops, retransmits, timeouts, cnps;
  int64_t retx_bytes; /* payload bytes sent again */
  int64_t events;     /* events the nodes stepped (their work, whatever the backend) */
  int64_t phased;     /* switch steps taken in port phases (MULTIVERSE_PHASES) */
  int64_t paused_ps;  /* summed over ports: time spent paused by PFC */
  int64_t windows;
  int64_t end_ps;      /* last task end, ps */
  int64_t duration_ps; /* first task start to last event */
  int32_t n_tiers;
  eng_tier_stats_t tier[ENG_TIERS];
} eng_result_t;

/* When a task ran, ps; -1 where it did not happen (or is not recorded). */
typedef struct eng_task_times_t {
  int64_t start;
  int64_t end;  /* a flow: its last byte acknowledged at the sender */
  int64_t recv; /* a flow: its last byte at the receiver; other tasks: -1 */
} eng_task_times_t;

/* Whether the engine can run the experiment: everything building it would
 * reject (parameters, topology, tasks, trace selection, sizes), with a
 * message. 0 or -1. */
int eng_exp_validate(const eng_exp_desc_t *x, char *err, size_t errlen);

/* What a task graph adds to a world's rows on its topology, whatever the
 * parameters: experiments that share a graph and a topology count it once
 * (the plan's describe step). */
typedef struct eng_graph_size_t {
  int64_t tasks, edges, streamed, flows, gpus;
  int64_t rbit, poke; /* receive bitmaps (a host's ports x its flows / 64), task pokes */
} eng_graph_size_t;
/* 0, or -1 when out of memory. */
int eng_graph_size(const topo_t *t, const tg_t *g, eng_graph_size_t *s);
/* eng_exp_validate, and when x is valid its memory (eng_exp_memory_valid's
 * bytes; NULL: not wanted) and its graph's size (NULL: not wanted; zeros at
 * the flow level) from the one count of its rows the validation makes. */
int eng_exp_check(const eng_exp_desc_t *x, char *err, size_t errlen, int64_t *bytes,
                  eng_graph_size_t *size);
/* The memory of a packet-level experiment whose task graph has `size` on
 * x->topo (x->tasks is not read, x->trace must be NULL) and passed
 * eng_exp_validate's checks of its tasks with x's mtu, classes and
 * overlap_slowdown (an experiment of the same graph, topology and those
 * values did): the checks that read only its parameters and topology
 * (parameters, link rings, rows per table), then its bytes as
 * eng_exp_memory_valid counts them; -1 with a message. */
int64_t eng_exp_memory_sized(const eng_exp_desc_t *x, const eng_graph_size_t *size, char *err,
                             size_t errlen);

/* Bytes of world tables the experiment needs alone (host and device alike),
 * without building it; -1 if it is invalid (or out of memory). A batch needs
 * the sum of its experiments' (eng_batch_memory) except that experiments on
 * one topology share its routing tables, and HPCC telemetry is held for every
 * experiment once one runs HPCC. An experiment whose compact link rings
 * overflow runs again in a world of its own (docs/engine.md). */
int64_t eng_exp_memory(const eng_exp_desc_t *x);
/* The same for an experiment eng_exp_validate has accepted (it is not checked
 * again). */
int64_t eng_exp_memory_valid(const eng_exp_desc_t *x);
/* Bytes of world tables the batch will hold (its valid experiments). */
int64_t eng_batch_memory(const eng_batch_desc_t *d);

typedef struct eng_batch_t eng_batch_t;

/* Builds a batch: each experiment is validated (unless its `validated` says
 * it was), an invalid one becomes an ENG_INVALID result and the others are
 * built, in one world or, where one
 * would have more rows in a table than a world addresses (2^30, or
 * MULTIVERSE_WORLD_ROWS if set and smaller), in several run one after the
 * other. 0, or an eng_err_t with a message (*out NULL). */
int eng_batch_create(const eng_batch_desc_t *d, eng_batch_t **out, char *err, size_t errlen);
/* Runs every valid experiment to its end. 0 or an eng_err_t with a message;
 * after an error the batch holds no results and can only be destroyed. */
int eng_batch_run(eng_batch_t *b, const eng_run_desc_t *r, char *err, size_t errlen);
/* The most CPU threads a world of the batch ran with (0: none ran on the CPU). */
int32_t eng_batch_threads(const eng_batch_t *b);
void eng_batch_destroy(eng_batch_t *b);
/* Bytes of world tables the batch holds, and in how many worlds. */
int64_t eng_batch_bytes(const eng_batch_t *b);
int32_t eng_batch_worlds(const eng_batch_t *b);

void eng_exp_result(const eng_batch_t *b, int32_t e, eng_result_t *r);
/* Times of task `task` of experiment e; 0, or -1 if there is no such task. */
int eng_task_times(const eng_batch_t *b, int32_t e, int32_t task, eng_task_times_t *t);
/* Payload bytes the receiver of flow `task` holds in order (its next expected packet
 * times the MTU, at most the flow's bytes): what a long-lived flow (tg_task_t.open)
 * delivered by the end. 0, or -1 if there is no such flow. */
int eng_task_delivered(const eng_batch_t *b, int32_t e, int32_t task, uint64_t *bytes);
/* Samples taken of experiment e's time series, and value `series` of sample k. */
int32_t eng_trace_samples(const eng_batch_t *b, int32_t e);
double eng_trace_value(const eng_batch_t *b, int32_t e, int32_t k, int32_t series);

/* Packet transmissions of a packet-level experiment, roughly: every flow's
 * data packets over its path's links, and as many ACKs back as ack_every
 * lets. The plan's cost feature "hops" and the CUDA backend's weight of an
 * experiment (eng_shape_work). */
double eng_exp_hops(const eng_exp_desc_t *x);

/* Work of a flow-level experiment (model flow) in packet-hops of the packet
 * level that take as long on one CPU thread: the planner's cost unit
 * (jobs/presets/batching.json), from its tasks, edges and flows. */
double eng_flow_work(const eng_exp_desc_t *x);

/* FCT of a flow task alone in the network on its ECMP path (docs/model.md,
 * Outputs), ps from its start to the arrival of its last ACK; -1 if
 * unroutable. */
int64_t eng_flow_standalone(const topo_t *t, const eng_params_t *p, const tg_task_t *flow);
/* The largest base RTT between two hosts of the topology over their shortest
 * paths (hpcc_global_t; base_rtt_ns3 chooses the definition), ps; -1 if no two
 * hosts are connected. */
int64_t eng_largest_base_rtt(const topo_t *t, const eng_params_t *p);

/* 1 if this build has the CUDA backend and a device is present; else why not. */
int eng_cuda_available(void);
const char *eng_cuda_unavailable_reason(void);

const char *eng_status_name(eng_status_t s);
const char *eng_fail_text(eng_fail_t f);
/* Why an experiment is not ok, for every status but ok (""): the invalid
 * message, the time limit, the failure. Never empty otherwise. */
const char *eng_result_reason(const eng_result_t *r);

#endif

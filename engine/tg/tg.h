/* tg: task graphs, the work of one experiment as the engine consumes it. A
 * directed acyclic graph of flows (bytes over the packet network), compute and
 * intra-server collective steps (durations) and joins, each owned by a host of
 * the topology; docs/model.md (Tasks) defines when each starts and ends.
 * Everything that produces work (ns-3 flow files, htsim connection matrices,
 * JSON task graphs, NCCL collectives, the training generator, imported
 * workloads) builds one of these. Host-side only. */
#ifndef TG_H
#define TG_H

#include <stddef.h>
#include <stdint.h>

#include "topo/topo.h"

/* What a task may be (docs/formats.md "Limits"). The clock is int64 ps and event keys pack
 * time * 8 + class, so times stay below 2^60 ps; max_time_s is at most 1e6 s. A task
 * starts by then, and what it adds to the time it is known (delay + duration) stays
 * within the 1.5e5 s left below 2^60. */
#define TG_MAX_START_PS 1000000000000000000LL /* 1e6 s */
#define TG_MAX_WAIT_PS 100000000000000000LL   /* 1e5 s: delay + duration */
#define TG_MAX_BYTES ((uint64_t)1 << 40)      /* per flow: 1 TiB */
/* Largest GPU and stream index (2^24 - 1): arrays are indexed by them. */
#define TG_MAX_ID 16777215

typedef enum tg_kind_t {
  TG_FLOW = 0,    /* `bytes` from `host` to `dst` over the packet network */
  TG_COMPUTE = 1, /* `dur` ps of work on `host` (a GPU's compute) */
  TG_COLL = 2,    /* `dur` ps: one member's share of an intra-server collective */
  TG_JOIN = 3,    /* no work: ends when it starts */
} tg_kind_t;

/* Which event of a predecessor an edge waits for. */
typedef enum tg_on_t {
  TG_ON_END = 0,  /* its end (a flow's end: the sender has every byte acknowledged) */
  TG_ON_RECV = 1, /* flows only: the receiver holds every byte */
} tg_on_t;

typedef struct tg_task_t {
  int32_t kind;   /* tg_kind_t */
  int32_t host;   /* owner: a host node id (not a switch); a flow's source */
  int32_t dst;    /* flow: destination host node id */
  uint64_t bytes; /* flow: > 0 */
  uint32_t sport; /* flow: source port (0: assigned as ns-3 does, tg_assign_ports) */
  uint32_t dport; /* flow: destination port (0: 100) */
  uint32_t prio;  /* flow: traffic class as read (ns-3 PRIORITY column) */
  int64_t start;  /* ps: earliest start */
  int64_t delay;  /* ps added after the predecessors are known */
  int64_t dur;    /* ps: compute and coll */
  int32_t gpu;    /* GPU index in the experiment, -1: none (traces; compute slowed while
                   * communication of its GPU runs); a GPU's tasks share one host */
  int32_t stream; /* >= 0: tasks of one stream run one at a time, in task order
                   * (all on the same host); -1: none */
  int32_t need;   /* predecessors that must be known before it starts; 0: all */
  int32_t label;  /* index into tg_t.labels, -1: none */
  int32_t line;   /* line of the input it came from (messages), 0: none */
  int32_t open;   /* flow: long-lived (htsim's size 0): it sends until the experiment's end
                   * (max_time_s), bytes TG_MAX_BYTES; the experiment ends ok when only such
                   * flows are left (the driver reports their delivered bytes) */
} tg_task_t;

/* An edge: `task` waits for event `on` of `pred`. */
typedef struct tg_edge_t {
  int32_t task;
  int32_t pred;
  int32_t on; /* tg_on_t */
} tg_edge_t;

typedef struct tg_t {
  int32_t n, cap;
  int32_t max;  /* tasks tg_add accepts (a generator's size limit); 0: INT32_MAX */
  tg_task_t *t; /* (n) */
  int32_t n_edges, cap_edges;
  tg_edge_t *e; /* (n_edges) in any order */
  int32_t n_labels, cap_labels;
  char **labels; /* (n_labels) owned strings */
} tg_t;

/* A task with every field at its default: a flow of 0 bytes from host 0, no
 * GPU, no stream, all predecessors needed. */
tg_task_t tg_task_default(tg_kind_t kind);

/* Appends a task; returns its index, or -1 when out of memory or at g->max. */
int32_t tg_add(tg_t *g, const tg_task_t *t);
/* Task `task` waits for event `on` of `pred`; 0 or -1 when out of memory. */
int tg_edge(tg_t *g, int32_t task, int32_t pred, tg_on_t on);
/* Index of label `s` (added if new), or -1 when out of memory. */
int32_t tg_label(tg_t *g, const char *s);

/* Gives every flow with sport 0 the source port ns-3 would (10000 upwards per
 * (source, destination) pair, in task order) and dport 0 the value 100. */
void tg_assign_ports(tg_t *g);

/* Checks the graph against a topology: owners are hosts, flows go to another
 * reachable host with 0 < bytes <= TG_MAX_BYTES, 0 <= start <= TG_MAX_START_PS,
 * delay and duration >= 0 with delay + duration <= TG_MAX_WAIT_PS, edges name
 * existing tasks (never the task itself), `on` recv only on flows, need within
 * the predecessor count, stream members share their host, so do a GPU's
 * tasks, and the graph is
 * acyclic (stream order included). `where` prefixes messages (a file name);
 * a task with a line is named by it. 0 or -1 with a message. */
int tg_check(const tg_t *g, const topo_t *t, const char *where, char *err, size_t errlen);

void tg_free(tg_t *g);

#endif

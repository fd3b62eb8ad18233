/* ref: the independent reference simulator. A plain sequential discrete-event
 * simulation of docs/model.md (packet network and task graphs) with one global
 * event heap; the engine must match its results to the picosecond. */
#ifndef REF_H
#define REF_H

#include <stdint.h>

#include "sim/eng_params.h"
#include "tg/tg.h"
#include "topo/topo.h"

typedef enum { REF_OK = 0, REF_FAILED = 1, REF_TIMED_OUT = 2 } ref_status_t;

typedef struct ref_result_t {
  int32_t n_tasks;
  int64_t *start_ps;   /* (n_tasks) ps of the task's start event; -1 if it never started */
  int64_t *end_ps;     /* (n_tasks) ps of its end (a flow: snd_una reached n); -1 if never */
  int64_t *recv_ps;    /* (n_tasks) flows: ps at which rcv_nxt first reached n; else -1 */
  int64_t drops;       /* admission (buffer, descriptor) + link loss + host control drops */
  int64_t pfc_pauses;  /* PAUSE frames sent (RESUME not counted) */
  int64_t ecn_marks;   /* positive CE marking decisions at switch egress */
  int64_t packet_hops; /* transmissions on any port (lost ones included) */
  int64_t retransmits; /* data packets sent with psn < max_sent */
  int64_t timeouts;    /* RTO expiries that reset snd_nxt */
  int64_t cnps;        /* CNPs sent by receivers */
  int64_t last_end_ps; /* ps: the latest end of a task (0 if none ended) */
  ref_status_t status;
} ref_result_t;

/* Runs one experiment: the task graph `g` on topology `t` (finished, topo_finish).
 * Flows use their sport/dport as given (tg_assign_ports fills zeros). Returns 0
 * (the outcome is in out->status) or -1 on bad input (a message on stderr). A
 * cyclic graph is not rejected: its tasks never start and the run ends failed. */
int ref_run(const topo_t *t, const tg_t *g, const eng_params_t *p, uint64_t seed,
            ref_result_t *out);

void ref_result_free(ref_result_t *r);

/* The flow level of docs/model.md ("The flow-level model"): the same inputs,
 * task times and status in `out` (packet counters 0), written apart from
 * engine/flow. Returns 0. */
int ref_flow_run(const topo_t *t, const tg_t *g, const eng_params_t *p, ref_result_t *out);

/* Routing of docs/model.md computed from the topology's links and node kinds
 * alone (not from topo's tables): ports numbered in link order, the edge switch
 * of each host, hop distances by breadth-first search. */
typedef struct ref_routing_t {
  const topo_t *t;
  int32_t *port0;     /* (n_nodes + 1) offsets of each node's ports */
  int32_t *peer;      /* (n_ports) node at the other end */
  int32_t *peer_port; /* (n_ports) local port of the peer on the same link */
  int32_t *link;      /* (n_ports) index into t->links */
  int32_t *anchor;    /* (n_nodes) hosts: the edge switch it hangs from, or itself; else -1 */
  int32_t *edge_port; /* (n_nodes) hosts with an edge switch: that switch's port to it; -1 */
  int32_t **dist;     /* (n_nodes) per anchor, hops of every node to it (NULL until used) */
  int32_t *queue;     /* (n_nodes) breadth-first search scratch */
} ref_routing_t;

int ref_routing_init(ref_routing_t *r, const topo_t *t);
void ref_routing_free(ref_routing_t *r);
/* Equal-cost next-hop local ports of node x towards host dst (model.md Routing,
 * rules 1-3), ascending; returns how many (0: unreachable or x == dst). */
int ref_next_hops(ref_routing_t *r, int32_t x, int32_t dst, uint16_t *out, int cap);
/* Hops of a shortest path from x to host dst; -1 if unreachable. */
int ref_distance(ref_routing_t *r, int32_t x, int32_t dst);
/* Base RTT of a flow (ps): one MTU packet out along its ECMP path and its ACK
 * back along the ACK's ECMP path, on an idle network; -1 if unroutable. */
int64_t ref_base_rtt(ref_routing_t *r, const eng_params_t *p, const tg_task_t *flow);

/* ECN thresholds of a port of rate_bps: each of ecn_kmin/kmax/pmax if >= 0, else
 * from the ecn_table row with the largest gbps not above the rate (the lowest row
 * if none). Returns 0, or -1 when a value is needed and the table is empty. */
int ref_ecn_for(const eng_params_t *p, int64_t rate_bps, int64_t *kmin, int64_t *kmax,
                double *pmax);

/* ser(w, r) = ceil(w * 8 * 10^12 / r) ps: serialisation of w bytes at r bit/s. */
int64_t ref_ser(int64_t wire_bytes, int64_t rate_bps);
/* The serialisation on the experiment's clock: ref_ser, or with ser_floor_ns
 * ns-3's whole ns (model.md, Units), ps. */
int64_t ref_ser_at(const eng_params_t *p, int64_t wire_bytes, int64_t rate_bps);
/* The largest base RTT between two hosts over their shortest paths
 * (hpcc_global_t); -1 if none. */
int64_t ref_max_base_rtt(ref_routing_t *r, const eng_params_t *p);

#endif

/* ref internals: the simulation state, the event heap and the packet FIFOs
 * shared by ref_heap.c, ref_net.c and ref_sim.c. */
#ifndef REF_INT_H
#define REF_INT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc/cc.h"
#include "ref/ref.h"

/* Broken invariant: print file:line and stop. */
#define REF_CHECK(cond)                                                                            \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: ref invariant failed: %s\n", __FILE__, __LINE__, #cond);             \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

enum { REF_DATA = 0, REF_ACK = 1, REF_NACK = 2, REF_CNP = 3 };

/* Event classes, in their order at one node and instant (docs/model.md). */
enum { REF_EV_PFC = 0, REF_EV_ARRIVE = 1, REF_EV_TIMER = 2, REF_EV_TX = 3 };

typedef struct ref_pkt_t {
  int32_t flow;      /* index in file order */
  int32_t kind;      /* REF_DATA, REF_ACK, REF_NACK */
  int64_t seq;       /* psn (data) or the number carried (ACK/NACK) */
  int32_t wire;      /* bytes on the wire */
  int32_t in_port;   /* ingress local port while queued at a forwarding node */
  uint8_t ce;        /* CE mark (data) or its echo (ACK) */
  uint8_t host_slot; /* 1: holds a host control descriptor, 0: a pool descriptor */
  cc_int_t tel;      /* HPCC telemetry: hops appended by relays (data), echoed (ACK) */
} ref_pkt_t;

/* FIFO of packets: a growable ring. */
typedef struct ref_fifo_t {
  ref_pkt_t *buf;
  int64_t head, len, cap;
} ref_fifo_t;

typedef struct ref_event_t {
  int64_t t;     /* ps */
  int32_t node;  /* only makes the global order total */
  int32_t cls;   /* REF_EV_* */
  int32_t index; /* local port, or flow rank for timers */
  uint64_t seq;  /* insertion order: equal keys run in the order they were created */
  int32_t pause; /* PFC: 1 PAUSE, 0 RESUME */
  ref_pkt_t pkt; /* ARRIVE: the packet */
} ref_event_t;

typedef struct ref_heap_t {
  ref_event_t *ev;
  int64_t n, cap;
  uint64_t next_seq;
} ref_heap_t;

/* One egress port (and, for the same link end, the ingress counters). */
typedef struct ref_port_t {
  int64_t rate;      /* bit/s */
  int64_t delay;     /* ps */
  uint64_t loss_q32; /* floor(error_rate * 2^32); 0: lossless */
  int32_t peer, peer_port;
  int64_t busy_until; /* ps */
  uint8_t paused;     /* data paused by a PAUSE from the peer */
  uint8_t pause_out;  /* as ingress: a PAUSE we sent is outstanding */
  ref_fifo_t ctrl, data;
  int64_t q;          /* bytes in the data queue */
  int64_t in_bytes;   /* as ingress: buffered bytes that arrived on this port */
  uint64_t n_deq;     /* data packets dequeued (ECN draw counter) */
  uint64_t n_tx;      /* transmissions (loss draw counter) */
  uint64_t tx_bytes;  /* bytes transmitted (HPCC telemetry) */
  int64_t kmin, kmax; /* ECN thresholds, bytes */
  uint64_t pmax_q32;  /* floor(pmax * 2^32), at most 2^32 */
  uint8_t ecn_ok;     /* thresholds resolved */
} ref_port_t;

/* One entry of a relay's flowlet table (lb = adaptive). */
typedef struct ref_flowlet_t {
  int used;
  int64_t key;  /* 2 * flow + direction */
  int64_t last; /* ps */
  int32_t port;
} ref_flowlet_t;

typedef struct ref_node_t {
  int32_t port0, n_ports;   /* global index of local port 0; port count */
  uint8_t is_switch, relay; /* relay: a host that forwards (torus) */
  int64_t buf_used;         /* bytes of relayed data buffered */
  int64_t pool_free;        /* free forwarding descriptors */
  int64_t host_free;        /* free control descriptors for own ACK/NACK */
  int32_t rr;               /* rank of the flow served last */
  int32_t n_flows;          /* flows this host sends */
  int32_t *flows;           /* (n_flows) flow index by rank */
  ref_flowlet_t flowlets[ENG_FLOWLETS];
} ref_node_t;

typedef struct ref_flow_t {
  int64_t n; /* data packets */
  int64_t snd_nxt, snd_una, max_sent;
  int64_t rto_at;   /* ps; -1: timer stopped */
  int64_t rcv_nxt;  /* receiver side */
  int64_t nack_for; /* rcv_nxt for which a NACK was sent; -1: none */
  int32_t rank;     /* among the source's flows */
  uint8_t finished;
  cc_state_t cc;    /* sender: congestion control (the shared engine/cc code) */
  int64_t cnp_last; /* receiver: ps of its last CNP; -1: none */
  uint8_t *held;    /* receiver, reorder on: held[psn] for packets beyond rcv_nxt */
} ref_flow_t;

typedef struct ref_sim_t {
  const topo_t *t;
  const trf_flows_t *fl;
  const eng_params_t *p;
  uint64_t seed;
  int64_t pfc_a16; /* llround(pfc_alpha * 2^16) */
  ref_node_t *nodes;
  ref_port_t *ports; /* (2 * n_links) by global port index */
  ref_flow_t *flows;
  ref_heap_t heap;
  uint16_t *hops; /* scratch for topo_next_hops */
  int32_t max_ports;
  int64_t unfinished;
  ref_result_t *res;
} ref_sim_t;

/* ref_heap.c */
void ref_heap_push(ref_heap_t *h, const ref_event_t *e);
void ref_heap_pop(ref_heap_t *h, ref_event_t *out);
void ref_heap_free(ref_heap_t *h);
void ref_fifo_push(ref_fifo_t *f, const ref_pkt_t *p);
void ref_fifo_pop(ref_fifo_t *f, ref_pkt_t *out);
void ref_fifo_free(ref_fifo_t *f);

/* ref_net.c */
int ref_net_init(ref_sim_t *s);
void ref_net_free(ref_sim_t *s);
int32_t ref_route(ref_sim_t *s, int32_t x, const ref_pkt_t *pkt, int relay, int64_t now);
int32_t ref_wire(const ref_sim_t *s, int32_t flow, int64_t psn);

#endif

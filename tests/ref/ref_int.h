/* ref internals: the simulation state, the event heap and the packet FIFOs
 * shared by ref_heap.c, ref_net.c, ref_route.c, ref_task.c and ref_sim.c. */
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
enum { REF_EV_PFC = 0, REF_EV_ARRIVE = 1, REF_EV_TIMER = 2, REF_EV_TASK = 3, REF_EV_TX = 4 };

typedef struct ref_pkt_t {
  int32_t flow;      /* the flow's task index */
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
  int32_t index; /* local port, flow rank (timers), task number among the node's (tasks) */
  uint64_t seq;  /* insertion order: equal keys run in the order they were created */
  int32_t aux;   /* PFC: class * 2 + (1 PAUSE, 0 RESUME); TASK: 1 a compute or coll task's end */
  ref_pkt_t pkt; /* ARRIVE: the packet */
} ref_event_t;

typedef struct ref_heap_t {
  ref_event_t *ev;
  int64_t n, cap;
  uint64_t next_seq;
} ref_heap_t;

/* One egress port (and, for the same link end, the ingress counters). Class
 * queues are indexed by class (0 only, without `classes`). */
typedef struct ref_port_t {
  int64_t rate;      /* bit/s */
  int64_t delay;     /* ps */
  uint64_t loss_q32; /* floor(error_rate * 2^32); 0: lossless */
  int32_t peer, peer_port;
  int64_t busy_until;             /* ps */
  uint8_t paused[ENG_CLASSES];    /* class paused by a PAUSE from the peer */
  uint8_t pause_out[ENG_CLASSES]; /* as ingress: a PAUSE we sent for the class is outstanding */
  ref_fifo_t ctrl, data[ENG_CLASSES];
  int32_t rr;                      /* class served last */
  int64_t q;                       /* bytes in the class queues */
  int64_t qc[ENG_CLASSES];         /* bytes in each class queue */
  int64_t in_bytes[ENG_CLASSES];   /* as ingress: bytes it brought, queued, not in headroom */
  int64_t hdrm_bytes[ENG_CLASSES]; /* as ingress: bytes it brought held in headroom */
  int64_t hdrm_cap;                /* as ingress: headroom, bytes */
  int64_t alpha16;                 /* as ingress: PFC threshold factor x 2^16 */
  uint64_t n_deq;                  /* data packets dequeued (ECN draw counter) */
  uint64_t n_tx;                   /* transmissions (loss draw counter) */
  uint64_t tx_bytes;               /* bytes transmitted (HPCC telemetry) */
  int64_t kmin, kmax;              /* ECN thresholds, bytes */
  uint64_t pmax_q32;               /* floor(pmax * 2^32), at most 2^32 */
  uint8_t ecn_ok;                  /* thresholds resolved */
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
  int64_t buf_used;         /* bytes of relayed packets in class queues */
  int64_t shared;           /* of which in the shared buffer (above reserves, not headroom) */
  int64_t held;             /* bytes of buffer kept for reserves and headroom */
  int64_t pool_free;        /* free forwarding descriptors */
  int64_t host_free;        /* free control descriptors for own ACK/NACK */
  int32_t rr;               /* rank of the flow served last */
  int32_t max_flows;        /* flow tasks this host owns: ranks are taken modulo this */
  int32_t n_flows;          /* flows started so far: ranks 0..n_flows-1 */
  int32_t *flows;           /* (max_flows) flow task index by rank */
  int32_t task0, n_tasks;   /* its tasks: task_of[task0 + number] */
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
  cc_alg_t alg;     /* sender: the state of the experiment's algorithm */
  int64_t cnp_last; /* receiver: ps of its last CNP; -1: none */
  uint8_t *held;    /* receiver, reorder on: held[psn] for packets beyond rcv_nxt */
} ref_flow_t;

/* A task's progress through docs/model.md "Tasks and dependencies". */
typedef struct ref_task_t {
  int32_t number;      /* among its owner's tasks, in task order: its TASK event index */
  int32_t n_pred;      /* edges into it */
  int32_t need;        /* events of those edges it waits for (need, or n_pred for 0) */
  int32_t n_known;     /* edge events known so far */
  int64_t k_max;       /* ps: latest known time (need == n_pred) */
  int64_t *k_low;      /* (need) the smallest known times, ascending (need < n_pred) */
  int32_t stream_prev; /* previous member of its stream, -1 */
  int32_t stream_next; /* next member of its stream, -1 */
  int64_t stream_at;   /* ps: end of stream_prev; -1 until it ends */
  int64_t sched;       /* ps of its pending start event; -1 none */
  uint8_t started, ended;
  /* A compute task slowed while communication of its GPU runs (model.md). */
  int64_t work;   /* units of work left (ps x Q) as of work_t */
  int64_t work_t; /* ps */
  int64_t rate;   /* units done per ps: Q at full speed, 2^16 slowed */
  int64_t end_at; /* ps of its pending end event (compute and coll); -1 none */
} ref_task_t;

typedef struct ref_edge_out_t {
  int32_t task; /* successor */
  int32_t on;   /* tg_on_t */
} ref_edge_out_t;

typedef struct ref_sim_t {
  const topo_t *t;
  const tg_t *g;
  const eng_params_t *p;
  cc_params_t ccp; /* p->ccp, on the experiment's clock (ser_floor_ns) */
  int32_t n_cls;   /* class queues per port */
  uint64_t seed;
  ref_routing_t rt;
  ref_node_t *nodes;
  ref_port_t *ports; /* (2 * n_links) by global port index (rt.port0) */
  ref_flow_t *flows; /* (g->n) by task index; used for flow tasks */
  ref_task_t *tasks; /* (g->n) */
  int32_t *gpu_comm; /* (GPUs) communication tasks of each GPU running now */
  int32_t n_gpus;
  int32_t *task_of;  /* (g->n) task indices grouped by owner (ref_node_t.task0) */
  int32_t *succ_off; /* (g->n + 1) into succ */
  ref_edge_out_t *succ;
  ref_heap_t heap;
  uint16_t *hops; /* scratch for ref_next_hops */
  int32_t max_ports;
  int64_t unfinished; /* tasks that have not ended */
  ref_result_t *res;
} ref_sim_t;

/* ref_heap.c */
void ref_heap_push(ref_heap_t *h, const ref_event_t *e);
void ref_heap_pop(ref_heap_t *h, ref_event_t *out);
void ref_heap_free(ref_heap_t *h);
void ref_fifo_push(ref_fifo_t *f, const ref_pkt_t *p);
void ref_fifo_pop(ref_fifo_t *f, ref_pkt_t *out);
void ref_fifo_free(ref_fifo_t *f);

/* ref_mmu.c: class queues and PFC (docs/model.md, PFC) */
void ref_mmu_init(ref_sim_t *s);
int32_t ref_class(const ref_sim_t *s, int32_t flow);
int ref_in_class(const ref_sim_t *s, int32_t kind);
/* Admits w bytes of class cl from ingress i of relay x (0: dropped), PAUSE check. */
int ref_admit(ref_sim_t *s, int32_t x, int32_t i, int32_t cl, int64_t w, int64_t t);
/* w bytes of class cl from ingress i left relay x; RESUME check. */
void ref_release(ref_sim_t *s, int32_t x, int32_t i, int32_t cl, int64_t w, int64_t t);

/* ref_net.c */
/* ECMP hash of model.md (or ns-3's, ecmp_ns3) and the candidate it picks. */
uint32_t ref_hash_ecmp(const eng_params_t *p, int32_t x, int32_t s, int32_t d, uint32_t sp,
                       uint32_t dp);
uint32_t ref_ecmp_index(const eng_params_t *p, uint32_t h, uint32_t n);
int ref_net_init(ref_sim_t *s);
void ref_net_free(ref_sim_t *s);
int32_t ref_route(ref_sim_t *s, int32_t x, const ref_pkt_t *pkt, int relay, int64_t now);
int32_t ref_wire(const ref_sim_t *s, int32_t flow, int64_t psn);

/* ref_task.c */
int ref_tasks_init(ref_sim_t *s);
void ref_tasks_free(ref_sim_t *s);
int ref_task_stale(const ref_sim_t *s, const ref_event_t *ev);
void ref_task_event(ref_sim_t *s, const ref_event_t *ev);
/* Event `on` of task i happened at host h at t (an end; a flow's recv, at its
 * destination): its successors learn it, at once on h, sync later elsewhere. */
void ref_task_happened(ref_sim_t *s, int32_t i, int32_t on, int32_t h, int64_t t);
/* Task i ends at t (bookkeeping, then its successors). */
void ref_task_end(ref_sim_t *s, int32_t i, int64_t t);

/* ref_sim.c */
void ref_push(ref_sim_t *s, int64_t t, int32_t node, int32_t cls, int32_t index, int32_t aux,
              const ref_pkt_t *pkt);
/* Port lp of x may have something to send: a TX at max(t, busy_until). */
void ref_kick(ref_sim_t *s, int32_t x, int32_t lp, int64_t t);
/* Flow task f starts at t: it takes its source's next rank and may send. */
void ref_flow_start(ref_sim_t *s, int32_t f, int64_t t);

#endif

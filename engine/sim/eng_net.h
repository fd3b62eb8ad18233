/* Building blocks of the network systems, shared by both backends: the per-node
 * step context, routing, descriptor pools and queues, putting packets and PFC
 * frames on links. docs/model.md is the specification. */
#ifndef ENG_NET_H
#define ENG_NET_H

#include <assert.h>

#include "cc/cc_types.h"
#include "base/base_clock.h"
#include "sim/eng_hash.h"
#include "sim/eng_world.h"

/* What one node's step works with: its row, its experiment, its clock. */
typedef struct eng_ctx_t {
  eng_cols_t *c;
  int32_t x;   /* node row */
  int32_t e;   /* experiment row */
  int32_t xid; /* node id within the experiment (hash and RNG key) */
  uint64_t seed;
  int64_t now;      /* ps */
  int64_t emit_min; /* earliest arrival this step put on a link, ps */
  int32_t pfc_busy; /* a PFC frame took transmission time on a port (pfc_frame_bytes) */
  int32_t events;   /* events this step took (added to its node's c_events at its end) */
  int *lock;        /* the node's ports on threads of their own (port phases on the GPU): the
                     * descriptor pool's lock, and shared counts change atomically; NULL: one thread */
  int32_t p0;       /* the node's first port row (node[x].port_off): on the GPU a read each port's
                     * row would otherwise wait for, after any write */
  int32_t hpcc;     /* its experiment runs HPCC: packets carry telemetry (eng_int) */
  int32_t settle;   /* a certified window whose end settles the shared buffer's count
                     * (MULTIVERSE_CUDA_SETTLE, eng_cuda_pool.cuh): its packets leave it */
} eng_ctx_t;

/* Event classes, in their order at one node and instant (docs/model.md). */
enum { ENG_EV_PFC = 0, ENG_EV_ARRIVE = 1, ENG_EV_TIMER = 2, ENG_EV_TASK = 3, ENG_EV_TX = 4 };

/* Times saturate at ENG_TMAX (past any max_time, so such events never run);
 * an event key packs (time, class) as time * 8 + class and stays below ENG_INF. */
#define ENG_TMAX (((int64_t)1 << 60) - 2)

ENG_INLINE int64_t eng_key(int64_t t, int32_t cls) {
  return t == ENG_INF ? ENG_INF : t * 8 + cls;
}

/* a + b for times a, b >= 0, saturating at ENG_TMAX. */
ENG_INLINE int64_t eng_time_add(int64_t a, int64_t b) {
  return b >= ENG_TMAX - a ? ENG_TMAX : a + b;
}

ENG_INLINE int64_t eng_ser(int64_t bytes, int64_t rate) {
  return base_ser_ps(bytes, (uint64_t)rate);
}

/* Payload bytes of packet psn of a flow of `bytes`. */
ENG_INLINE int32_t eng_payload(uint64_t bytes, uint32_t psn, int32_t mtu) {
  uint64_t left = bytes - (uint64_t)psn * (uint64_t)mtu;
  return left < (uint64_t)mtu ? (int32_t)left : mtu;
}

/* A packet record with every field set; cls is its flow's class. */
ENG_INLINE eng_pkt_t eng_pkt_make(uint32_t flow, uint32_t psn, uint8_t type, int32_t wire,
                                  uint8_t flags, int32_t cls) {
  eng_pkt_t pk;
  pk.t = 0;
  pk.flow = flow;
  pk.psn = psn;
  pk.next = -1;
  pk.wire = (uint16_t)wire;
  pk.type = type;
  pk.flags = flags;
  pk.in_port = 0;
  pk.cls = (uint8_t)cls;
  pk.pad8 = 0;
  pk.pad32 = 0;
  return pk;
}

ENG_INLINE void eng_fail(const eng_ctx_t *k, eng_fail_t why) {
  eng_atomic_min_i64(&k->c->exp_fail[k->e], (int64_t)why);
}

/* Flow f's state of its experiment's congestion-control algorithm (NULL with
 * none). */
ENG_INLINE void *eng_cca(const eng_cols_t *c, int32_t e, int32_t f) {
  switch (c->exp_ccp[e].kind) {
  case CC_DCQCN:
    return &c->dcqcn_s[c->flow[f].ccx];
  case CC_DCTCP:
    return &c->dctcp_s[c->flow[f].ccx];
  case CC_HPCC:
    return &c->hpcc_s[c->flow[f].ccx];
  default:
    return NULL;
  }
}

/* The end of flow f a packet heads for: the destination for data, the source
 * for ACK/NACK/CNP. */
ENG_INLINE const eng_fend_t *eng_flow_to(const eng_cols_t *c, int32_t f, int data) {
  return &c->flow[f].hdr.end[data ? 1 : 0];
}

/* Node row of flow f's destination. */
ENG_INLINE int32_t eng_flow_dst(const eng_cols_t *c, int32_t f) {
  return c->flow[f].hdr.end[1].node;
}

/* Rules 1 and 2 of model.md: node x's port for a packet heading for end d
 * where it has one port or is d's edge switch; else -1. */
ENG_INLINE int32_t eng_route_direct(const eng_cols_t *c, int32_t x, const eng_fend_t *d) {
  if (c->node[x].n_ports == 1) return 0;
  return d->edge_node == x ? d->edge_port : -1;
}

/* Equal-cost candidates of node x for a packet heading for end d, where
 * eng_route_direct gives no port: writes the first setport row and the
 * count; returns -1, or -2 when there is no route. */
ENG_INLINE int32_t eng_route_table(const eng_cols_t *c, int32_t x, const eng_fend_t *d,
                                   uint32_t *lo, uint32_t *n) {
  int32_t row = c->node[x].route_row;
  if (row < 0) return -2;
  uint32_t sid = c->route_set[row + d->group];
  if (sid == TOPO_NO_ROUTE) return -2;
  int32_t set = c->node[x].set_base + (int32_t)sid;
  *lo = c->set_off[set];
  *n = c->set_off[set + 1] - *lo;
  return -1;
}

/* Equal-cost candidates of node x for a packet heading for end d: writes the
 * first setport row and the count; returns a port directly (rules 1 and 2 of
 * model.md), -1 when there is a set, -2 when there is no route. */
ENG_INLINE int32_t eng_route_set(const eng_cols_t *c, int32_t x, const eng_fend_t *d, uint32_t *lo,
                                 uint32_t *n) {
  const int32_t direct = eng_route_direct(c, x, d);
  return direct >= 0 ? direct : eng_route_table(c, x, d, lo, n);
}

/* Position among n equal-cost candidates (ascending local ports) that ECMP
 * hash h picks: h mod n, or with ecmp_ns3 counted from the last candidate (the
 * ns-3 HPCC simulator lists next hops in the order its breadth-first search
 * from the destination finds them, visiting neighbours by object address:
 * hosts first, then switches by descending id; on fat trees numbered and
 * linked in ascending order that is descending local ports). */
ENG_INLINE uint32_t eng_ecmp_pick(int32_t ns3, uint32_t h, uint32_t n) {
  return ns3 ? n - 1 - h % n : h % n;
}

/* The flow's ECMP hash at node x in the packet's direction (ns3: ecmp_ns3). */
ENG_INLINE uint32_t eng_route_hash(const eng_cols_t *c, int32_t x, const eng_fhdr_t *h, int data,
                                   int32_t ns3) {
  const eng_fend_t *s = &h->end[data ? 0 : 1], *d = &h->end[data ? 1 : 0];
  if (ns3) return eng_hash_ecmp_ns3(c->node[x].id, s->id, d->id, s->port, d->port);
  return eng_hash_ecmp(c->node[x].id, s->id, d->id, s->port, d->port);
}

/* Local egress port of node x for a packet of flow f (type, psn); -1: no
 * route. ECMP or spraying; a pure function (adaptive load balancing applies
 * to relayed packets only, eng_route_relay; a host's own packets use ECMP). */
ENG_INLINE int32_t eng_route(const eng_cols_t *c, int32_t x, int32_t f, uint8_t type,
                             uint32_t psn) {
  int data = type == ENG_PKT_DATA;
  const eng_fhdr_t *hd = &c->flow[f].hdr;
  const int32_t direct = eng_route_direct(c, x, &hd->end[data]);
  if (direct >= 0) return direct;
  const eng_fhops_t *way = &c->flow_way[f].dir[data]; /* the sets' answer, where built */
  for (int32_t h = 0; h < ENG_WAY_HOPS; h++)
    if (way->node[h] == x) return way->port[h];
  uint32_t lo = 0, n = 0;
  if (eng_route_table(c, x, &hd->end[data], &lo, &n) == -2) return -1;
  int32_t e = c->node_exp[x];
  if (c->exp_lb[e] == ENG_LB_SPRAY)
    return (int32_t)
        c->setport_port[lo +
                        eng_hash_spray(c->node[x].id, (uint32_t)hd->idx, psn, data ? 0u : 1u) % n];
  int32_t ns3 = c->exp_ecmp_ns3[e];
  return (int32_t)c->setport_port[lo + eng_ecmp_pick(ns3, eng_route_hash(c, x, hd, data, ns3), n)];
}

/* Adaptive load balancing is flowlet switching: a flow (per direction) keeps
 * its port while its packets come closer than flowlet_gap; a new flowlet
 * takes the candidate with the fewest bytes queued (ties: the first from
 * ECMP's pick on). Each relay keeps ENG_FLOWLETS entries, indexed by a hash of
 * the flow. */
ENG_COLD int32_t eng_route_flowlet(eng_cols_t *c, int32_t x, int32_t f, uint8_t type, int64_t now) {
  int32_t e = c->node_exp[x];
  int data = type == ENG_PKT_DATA;
  const eng_fhdr_t *hd = &c->flow[f].hdr;
  uint32_t lo = 0, n = 0;
  int32_t direct = eng_route_set(c, x, &hd->end[data ? 1 : 0], &lo, &n);
  if (direct != -1) return direct < 0 ? -1 : direct;
  int32_t ns3 = c->exp_ecmp_ns3[e];
  uint32_t h = eng_route_hash(c, x, hd, data, ns3);
  uint32_t key = (uint32_t)hd->idx * 2u + (data ? 0u : 1u);
  eng_flowlet_t *fl = &c->flet_entry[c->node[x].flet_off + (int32_t)(h % ENG_FLOWLETS)];
  if (fl->key == key && fl->port >= 0 && now - fl->last <= c->exp_flowlet_gap[e]) {
    fl->last = now;
    return fl->port;
  }
  uint32_t first = eng_ecmp_pick(ns3, h, n);
  int32_t best = (int32_t)c->setport_port[lo + first];
  int64_t q = c->port[c->node[x].port_off + best].q_bytes;
  for (uint32_t j = 1; j < n; j++) {
    int32_t lp = (int32_t)c->setport_port[lo + (first + j) % n];
    if (c->port[c->node[x].port_off + lp].q_bytes < q) {
      q = c->port[c->node[x].port_off + lp].q_bytes;
      best = lp;
    }
  }
  fl->key = key;
  fl->last = now;
  fl->port = best;
  return best;
}

/* Egress of a packet relayed by node x at `now`: eng_route, or with adaptive
 * load balancing eng_route_flowlet. */
ENG_INLINE int32_t eng_route_relay(eng_cols_t *c, int32_t x, int32_t f, uint8_t type, uint32_t psn,
                                   int64_t now) {
  if (c->exp_lb[c->node_exp[x]] != ENG_LB_ADAPTIVE) return eng_route(c, x, f, type, psn);
  return eng_route_flowlet(c, x, f, type, now);
}

/* Descriptor pool of a node: returned descriptors form a free list through
 * eng_pkt_t.next; rows never used yet are handed out in order, so memory is
 * touched only as deep as queues grow. The callers check the sw_free /
 * host_free budgets first; a compact pool (eng_world_desc_t.worst_storage)
 * holds fewer rows than the budget: past its last one, -1. */
ENG_INLINE int32_t eng_pool_take(const eng_ctx_t *k) {
  eng_cols_t *c = k->c;
  int32_t x = k->x;
  eng_lock(k->lock);
  int32_t s = c->node[x].free_head;
  if (s >= 0)
    c->node[x].free_head = c->pool_pkt[s].next;
  else if (c->node[x].pool_next < c->node[x].pool_end)
    s = c->node[x].pool_next++;
  eng_unlock(k->lock);
  return s;
}

ENG_INLINE void eng_pool_give(const eng_ctx_t *k, int32_t s) {
  eng_cols_t *c = k->c;
  int32_t x = k->x;
  if (c->pool_pkt[s].flags & ENG_F_HOSTSLOT)
    eng_node_add_i32(k->lock, &c->node[x].host_free, 1);
  else
    eng_node_add_i32(k->lock, &c->node[x].sw_free, 1);
  eng_lock(k->lock);
  c->pool_pkt[s].next = c->node[x].free_head;
  c->node[x].free_head = s;
  eng_unlock(k->lock);
}

ENG_INLINE void eng_q_push(eng_cols_t *c, int32_t *head, int32_t *tail, int32_t s) {
  c->pool_pkt[s].next = -1;
  if (*tail < 0)
    *head = s;
  else
    c->pool_pkt[*tail].next = s;
  *tail = s;
}

ENG_INLINE int32_t eng_q_pop(eng_cols_t *c, int32_t *head, int32_t *tail) {
  int32_t s = *head;
  *head = c->pool_pkt[s].next;
  if (*head < 0) *tail = -1;
  return s;
}

/* Telemetry of a packet in ring slot or pool row `row` of table (rint_v,
 * pint_v), or NULL when k's experiment does not run HPCC. */
ENG_INLINE cc_int_t *eng_int(const eng_ctx_t *k, cc_int_t *table, int32_t row) {
  return k->hpcc ? &table[row] : NULL;
}

/* Row of class `cl` of port p (global) in the class table. */
ENG_INLINE int32_t eng_cls(const eng_cols_t *c, int32_t p, int32_t cl) {
  return c->port[p].cls_off + cl;
}

/* Copies pk (and its telemetry `in`, if any) into a descriptor of node x and
 * queues it at egress p (global): in class row q, or the control queue (q < 0).
 * Returns 0, or -1 where the node's compact pool has no row left: the
 * experiment fails (ENG_FAIL_POOL) and eng_world_run runs it again with
 * worst-case pools. */
ENG_INLINE int eng_enqueue(const eng_ctx_t *k, int32_t p, eng_pkt_t pk, const cc_int_t *in,
                           int32_t q) {
  eng_cols_t *c = k->c;
  int32_t s = eng_pool_take(k);
  if (s < 0) {
    eng_fail(k, ENG_FAIL_POOL);
    return -1;
  }
  c->pool_pkt[s] = pk;
  if (in) c->pint_v[s] = *in;
  if (q >= 0) {
    eng_q_push(c, &c->cls[q].dq_head, &c->cls[q].dq_tail, s);
    c->port[p].cls_live |= (uint8_t)(1u << (q - c->port[p].cls_off));
  } else
    eng_q_push(c, &c->port[p].cq_head, &c->port[p].cq_tail, s);
  return 0;
}

/* Starts transmitting pk (telemetry `in`, NULL: none) on port p (global) at
 * k->now: the port is busy for its serialisation; unless the link loses it,
 * the peer receives it after the delay. */
ENG_INLINE void eng_emit(eng_ctx_t *k, int32_t p, eng_pkt_t pk, const cc_int_t *in) {
  eng_cols_t *c = k->c;
  /* a full data packet's and a control packet's (ctrl_bytes) serialisation
   * were computed when the port was built (a 64-bit division: on the GPU a
   * chain of some 70 dependent instructions); the last packet of a flow's here */
  const int64_t ser = (pk.flags & ENG_F_FULL)   ? c->port[p].ser_full
                      : pk.type != ENG_PKT_DATA ? c->port[p].ser_ctrl
                                                : base_ser_clock(pk.wire, (uint64_t)c->port[p].rate,
                                                                 c->exp_ser_floor_ns[k->e]);
  assert(!(pk.flags & ENG_F_FULL) || pk.wire == c->exp_mtu[k->e] + c->exp_header[k->e]);
  assert(pk.type == ENG_PKT_DATA || pk.wire == c->exp_ctrl_bytes[k->e]);
  uint64_t n = c->port[p].tx_count++;
  c->port[p].busy_until = k->now + ser;
  eng_node_add_i64(k->lock, &c->node[k->x].c_hops, 1);
  c->port[p].busy_ps += ser;
  c->port[p].tx_bytes += pk.wire;
  if (c->port[p].err_q32 && eng_rng_u32(k->seed, (uint32_t)k->xid, 0x10000u + (uint32_t)(p - k->p0),
                                        n) < c->port[p].err_q32) {
    eng_node_add_i64(k->lock, &c->node[k->x].c_drops, 1);
    return;
  }
  uint32_t tail = c->port[p].ring_tail;
  if (tail - c->port[p].ring_hsnap > c->port[p].ring_mask) {
    eng_fail(k, ENG_FAIL_RING);
    return;
  }
  pk.t = k->now + ser + c->port[p].delay;
  pk.next = -1;
  int32_t slot = c->port[p].ring_off + (int32_t)(tail & c->port[p].ring_mask);
  c->ring_pkt[slot] = pk;
  if (k->hpcc) {
    if (in)
      c->rint_v[slot] = *in;
    else
      c->rint_v[slot].nhop = 0;
  }
  c->port[p].ring_tail = tail + 1;
  if (pk.t < k->emit_min) k->emit_min = pk.t;
}

#endif

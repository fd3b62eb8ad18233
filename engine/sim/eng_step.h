/* The systems of one window, written once for both backends:
 *   eng_node_step   each node processes its events of [t, t_end) in key order
 *   eng_port_commit each link publishes what was sent and consumed
 *   eng_exp_advance each experiment samples its time series, then ends, fails
 *                   or moves to its next window (ENG_SYSTEMS at the end gives
 *                   the order)
 * Nodes touch only their own rows, their own flows' sender or receiver
 * columns, and the consumer side of their incoming links (pull). */
#ifndef ENG_STEP_H
#define ENG_STEP_H

#include "sim/eng_host.h"
#include "sim/eng_mmu.h"

/* Packet pk, from ingress lp, as a relaying node queues it (in no host's slot). */
ENG_INLINE eng_pkt_t eng_relayed(eng_pkt_t pk, int32_t lp) {
  pk.in_port = (uint16_t)lp;
  pk.flags = (uint8_t)(pk.flags & ~ENG_F_HOSTSLOT);
  return pk;
}

/* `wire` bytes join class row q of egress ep (global): its queue's and port's
 * bytes, and the port's most. */
ENG_INLINE void eng_queue_bytes(eng_cols_t *c, int32_t ep, int32_t q, int64_t wire) {
  c->cls[q].q_bytes += wire;
  c->port[ep].q_bytes += wire;
  if (c->port[ep].q_bytes > c->port[ep].q_max) c->port[ep].q_max = c->port[ep].q_bytes;
}

/* Queues relayed packet pk (from ingress lp, telemetry `in`) at egress ep
 * (global) of k->x, in class row q or the control queue (q < 0): it takes a
 * descriptor. */
ENG_INLINE void eng_relay_queue(eng_ctx_t *k, int32_t lp, int32_t ep, eng_pkt_t pk,
                                const cc_int_t *in, int32_t q) {
  eng_cols_t *c = k->c;
  eng_node_add_i32(k->lock, &c->node[k->x].sw_free, -1);
  if (eng_enqueue(k, ep, eng_relayed(pk, lp), in, q) || q < 0) return;
  eng_queue_bytes(c, ep, q, pk.wire);
}

/* A packet from ingress lp reached relaying node k->x (key order): route it
 * at k->now, then admit it to an egress queue (its class queue or the control
 * queue) or drop it. Returns the egress it joined, else -1; a packet with no
 * route fails its experiment. */
ENG_INLINE int32_t eng_relay(eng_ctx_t *k, int32_t lp, eng_pkt_t pk, const cc_int_t *in) {
  eng_cols_t *c = k->c;
  int32_t x = k->x;
  int32_t out = eng_route_relay(c, x, (int32_t)pk.flow, pk.type, pk.psn, k->now);
  if (out < 0) {
    eng_fail(k, ENG_FAIL_ROUTE);
    return -1;
  }
  int32_t ep = k->p0 + out, ip = k->p0 + lp;
  if (c->node[x].sw_free == 0) {
    eng_node_add_i64(k->lock, &c->node[x].c_drops, 1);
    return -1;
  }
  if (!eng_in_class(c, k->e, pk.type)) {
    eng_relay_queue(k, lp, ep, pk, in, -1);
    return out;
  }
  int32_t cl = pk.cls;
  if (!eng_admit(k, ip, cl, pk.wire)) {
    eng_node_add_i64(k->lock, &c->node[x].c_drops, 1);
    return -1;
  }
  eng_relay_queue(k, lp, ep, pk, in, eng_cls(c, ep, cl));
  eng_pause_check(k, ip, cl);
  return out;
}

/* RED's draw between the thresholds (lo < q <= hi): whether draw u marks,
 * u < floor(pmax_q32 (q - lo) / (hi - lo)) (docs/model.md), tested as
 * (u + 1) (hi - lo) <= pmax_q32 (q - lo) without the 64-bit division (on the
 * GPU some 70 dependent instructions); both sides stay below 2^63 (kmax <= 2^31
 * bytes, pmax_q32 <= 2^32). tests/unit/test_red.c checks it against the
 * division. */
ENG_INLINE int eng_red_draw(uint32_t u, int64_t q, int64_t lo, int64_t hi, uint64_t pmax_q32) {
  return ((uint64_t)u + 1u) * (uint64_t)(hi - lo) <= pmax_q32 * (uint64_t)(q - lo);
}

/* Packet pk leaves class row q of egress p (global), telemetry `tel` (NULL:
 * none): buffer accounting and PFC resume, then for data ECN and telemetry.
 * Returns it, marked. */
ENG_HOT_INLINE eng_pkt_t eng_dequeue_acct(eng_ctx_t *k, int32_t p, int32_t q, eng_pkt_t pk,
                                          cc_int_t *tel) {
  eng_cols_t *c = k->c;
  int32_t x = k->x, e = k->e;
  c->cls[q].q_bytes -= pk.wire;
  c->port[p].q_bytes -= pk.wire;
  eng_release(k, k->p0 + pk.in_port, pk.cls, pk.wire);
  if (pk.type != ENG_PKT_DATA) return pk;
  uint64_t draw = c->port[p].deq_count++;
  if (c->exp_ecn[e]) {
    int64_t qb = c->cls[q].q_bytes, lo = c->port[p].kmin, hi = c->port[p].kmax;
    int mark = qb > hi;
    if (!mark && qb > lo) {
      uint32_t lpo = (uint32_t)(p - k->p0);
      mark = eng_red_draw(eng_rng_u32(k->seed, (uint32_t)k->xid, lpo, draw), qb, lo, hi,
                          c->port[p].pmax_q32);
    }
    if (mark) {
      pk.flags |= ENG_F_CE;
      eng_node_add_i64(k->lock, &c->node[x].c_ecn, 1);
    }
  }
  if (tel && tel->nhop < CC_INT_HOPS) { /* this egress's hop, as the packet leaves */
    cc_int_hop_t *h = &tel->hop[tel->nhop++];
    /* ns-3's telemetry (hpcc_int_multi) counts the bytes sent before it */
    uint64_t tx = c->port[p].tx_bytes + (c->exp_ccp[e].int_multi > 0 ? 0u : pk.wire);
    h->ts = k->now;
    h->qlen = (uint32_t)c->port[p].q_bytes;
    h->tx = (uint32_t)tx;
    h->tx_hi = (uint32_t)(tx >> 32);
    h->rate_mbps = (uint32_t)(c->port[p].rate / 1000000);
  }
  return pk;
}

/* Dequeues the head packet of class row q of egress p (global)
 * (eng_dequeue_acct). *slot receives its descriptor row, which holds the
 * telemetry until the caller has sent it and gives the row back (with port
 * phases on the GPU, another egress could take a row given back earlier). */
ENG_INLINE eng_pkt_t eng_dequeue_class(eng_ctx_t *k, int32_t p, int32_t q, int32_t *slot) {
  eng_cols_t *c = k->c;
  int32_t s = eng_q_pop(c, &c->cls[q].dq_head, &c->cls[q].dq_tail);
  if (c->cls[q].dq_head < 0) c->port[p].cls_live &= (uint8_t) ~(1u << (q - c->port[p].cls_off));
  *slot = s;
  return eng_dequeue_acct(k, p, q, c->pool_pkt[s], eng_int(k, c->pint_v, s));
}

/* Whether the head of port p's control queue must wait: with ack_pause, a
 * host's ACK/NACK while its flow's class is paused. */
ENG_INLINE int eng_ctrl_held(const eng_cols_t *c, int32_t e, int32_t x, int32_t p) {
  if (!c->exp_ack_pause[e] || !c->port[p].paused || c->node[x].is_switch) return 0;
  const eng_pkt_t *h = &c->pool_pkt[c->port[p].cq_head];
  return h->type != ENG_PKT_CNP && c->cls[eng_cls(c, p, h->cls)].paused;
}

/* The class queue of port p (global) to serve next: round robin among the
 * classes after the one served last that hold packets and are not paused;
 * -1 if none. The classes holding packets are the set bits of cls_live,
 * visited from the one after rr_cls on. */
ENG_INLINE int32_t eng_next_class(const eng_cols_t *c, int32_t e, int32_t p) {
  const uint32_t live = c->port[p].cls_live;
  if (live == 0) return -1; /* every class queue is empty */
  if (!(live & (live - 1u)) && !c->port[p].paused) return eng_ctz32(live); /* the one live class */
  const int32_t n = c->exp_n_cls[e], q0 = c->port[p].cls_off;
  const int32_t from = c->port[p].rr_cls + 1 == n ? 0 : c->port[p].rr_cls + 1;
  /* the live classes, rotated so that bit j is class from + j (mod n) */
  uint32_t rot = ((live >> from) | (live << (n - from))) & ((1u << n) - 1u);
  for (; rot; rot &= rot - 1u) {
    int32_t cl = from + eng_ctz32(rot);
    if (cl >= n) cl -= n;
    if (!c->port[p].paused || !c->cls[q0 + cl].paused) return cl;
  }
  return -1;
}

/* Whether host port p (global) has an own flow eligible in a class not paused. */
ENG_INLINE int eng_host_can_send(const eng_cols_t *c, int32_t e, int32_t p) {
  if (c->port[p].n_ready == 0) return 0;
  if (!c->port[p].paused) return 1;
  for (int32_t q = c->port[p].cls_off; q < c->port[p].cls_off + c->exp_n_cls[e]; q++)
    if (c->cls[q].n_ready > 0 && !c->cls[q].paused) return 1;
  return 0;
}

/* Whether port p (global) of node x, some class of it paused, has something
 * it may send. (Out of line, it takes values, not the context: on the GPU a
 * context whose address a call takes lives in local memory.) */
ENG_COLD int eng_tx_some_paused(const eng_cols_t *c, int32_t e, int32_t x, int32_t p) {
  return (c->port[p].cq_head >= 0 && !eng_ctrl_held(c, e, x, p)) || eng_next_class(c, e, p) >= 0 ||
         eng_host_can_send(c, e, p);
}

/* Time port lp of node k->x may next start a transmission, or ENG_INF. The
 * port's columns are read at once, not one after another as a chain of ||
 * would read them: on the GPU each read waits for the one before. */
ENG_INLINE int64_t eng_tx_time(const eng_ctx_t *k, int32_t lp) {
  const eng_cols_t *c = k->c;
  const int32_t p = k->p0 + lp;
  const int64_t busy = c->port[p].busy_until, qb = c->port[p].q_bytes;
  const int32_t cq = c->port[p].cq_head, nr = c->port[p].n_ready;
  const int can = c->port[p].paused /* none paused: any packet or eligible flow will do */
                      ? eng_tx_some_paused(c, k->e, k->x, p)
                      : (cq >= 0) | (qb > 0) | (nr > 0);
  if (!can) return ENG_INF;
  return busy > k->now ? busy : k->now;
}

/* Takes the packet port p (global) of node k->x sends next from its queues:
 * the control queue's head, unless it must wait (eng_ctrl_held, asked only
 * where `may_wait`: not by a switch's port phases), else the head of the next
 * class in round robin; *s receives its descriptor row. Returns 0 when neither
 * queue has one. */
ENG_INLINE int eng_tx_queued(eng_ctx_t *k, int32_t p, int may_wait, eng_pkt_t *pk, int32_t *s) {
  eng_cols_t *c = k->c;
  int32_t cl;
  if (c->port[p].cq_head >= 0 && !(may_wait && eng_ctrl_held(c, k->e, k->x, p))) {
    *s = eng_q_pop(c, &c->port[p].cq_head, &c->port[p].cq_tail);
    *pk = c->pool_pkt[*s];
  } else if ((cl = eng_next_class(c, k->e, p)) >= 0) {
    c->port[p].rr_cls = cl;
    *pk = eng_dequeue_class(k, p, eng_cls(c, p, cl), s);
  } else {
    return 0;
  }
  return 1;
}

/* A TX event of port lp: send the best packet there is (one eng_emit for the
 * three kinds: on the GPU each inlined copy is code every event fetches). */
ENG_INLINE void eng_tx(eng_ctx_t *k, int32_t lp) {
  eng_cols_t *c = k->c;
  int32_t p = k->p0 + lp, s = -1, f = -1;
  eng_pkt_t pk;
  if (!eng_tx_queued(k, p, 1, &pk, &s)) {
    f = eng_host_pick(k, lp);
    if (f < 0) return;
    pk = eng_host_next_packet(k, f);
  }
  eng_emit(k, p, pk, s >= 0 ? eng_int(k, c->pint_v, s) : NULL);
  if (s >= 0)
    eng_pool_give(k, s); /* after its telemetry went with it */
  else
    eng_flow_eval(k, f);
}

/* An ARRIVE event on local port lp: consume the head of the incoming link.
 * Returns the egress port a relayed packet joined, else -1. */
ENG_INLINE int32_t eng_arrive(eng_ctx_t *k, int32_t lp) {
  eng_cols_t *c = k->c;
  int32_t in = c->port[k->p0 + lp].peer;
  uint32_t h = c->port[in].ring_head;
  int32_t slot = c->port[in].ring_off + (int32_t)(h & c->port[in].ring_mask);
  eng_pkt_t pk = c->ring_pkt[slot];
  const cc_int_t *tel = eng_int(k, c->rint_v, slot);
  c->port[in].ring_head = h + 1;
  int32_t f = (int32_t)pk.flow;
  int32_t dest = eng_flow_to(c, f, pk.type == ENG_PKT_DATA)->node;
  if (dest != k->x) return eng_relay(k, lp, pk, tel);
  if (pk.type == ENG_PKT_DATA)
    eng_host_recv_data(k, &pk, tel);
  else
    eng_host_recv_ctrl(k, &pk, tel);
  return -1;
}

/* The smaller of `best` and the key of the earliest event on the incoming
 * link of port lp: a PFC frame or a packet arriving. The link's columns are
 * read at once (eng_tx_time). */
ENG_INLINE int64_t eng_link_key(const eng_ctx_t *k, int32_t lp, int64_t best) {
  const eng_cols_t *c = k->c;
  const int32_t in = c->port[k->p0 + lp].peer;
  const uint32_t h = c->port[in].ring_head, pub = c->port[in].ring_pub;
  const uint32_t fh = c->port[in].pfc_head, fpub = c->port[in].pfc_pub;
  const int32_t slot = c->port[in].ring_off + (int32_t)(h & c->port[in].ring_mask);
  if (h != pub) {
    const eng_pkt_t *pk = &c->ring_pkt[slot];
    ENG_PREFETCH(&c->flow[pk->flow].hdr); /* its arrival reads the header */
    if (eng_key(pk->t, ENG_EV_ARRIVE) < best) best = eng_key(pk->t, ENG_EV_ARRIVE);
  }
  if (fh != fpub) {
    int64_t t = c->pfc_t[c->port[in].pfc_off + (int32_t)(fh & c->port[in].pfc_mask)];
    if (eng_key(t, ENG_EV_PFC) < best) best = eng_key(t, ENG_EV_PFC);
  }
  return best;
}

/* Key of the earliest event of port lp: a PFC frame or a packet arriving on its
 * incoming link, or a transmission. */
ENG_INLINE int64_t eng_port_key(const eng_ctx_t *k, int32_t lp) {
  return eng_link_key(k, lp, eng_key(eng_tx_time(k, lp), ENG_EV_TX));
}

/* The first smallest of keys key[0 .. n) from key `best` at index *idx on:
 * *idx becomes the first index of a key below `best` that no earlier key
 * beats, and that key is returned (`best` and *idx unchanged when none is).
 * The plain scan (the CPU's form). */
ENG_INLINE int64_t eng_keys_min_scan(const int64_t *key, int32_t n, int64_t best, int32_t *idx) {
  ENG_ROLLED
  for (int32_t i = 0; i < n; i++)
    if (key[i] < best) {
      best = key[i];
      *idx = i;
    }
  return best;
}

/* The same, four keys read at once and matched in pairs, a tie to the lower
 * index at every match (the GPU's form: a thread's reads do not wait for one
 * another's compares). test_eng_tree checks it against the scan. */
ENG_INLINE int64_t eng_keys_min_fours(const int64_t *key, int32_t n, int64_t best, int32_t *idx) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const int64_t a = key[i], b = key[i + 1], d = key[i + 2], e = key[i + 3];
    const int64_t ab = b < a ? b : a, de = e < d ? e : d;
    const int32_t iab = b < a ? i + 1 : i, ide = e < d ? i + 3 : i + 2;
    const int64_t m = de < ab ? de : ab;
    const int32_t im = de < ab ? ide : iab;
    if (m < best) {
      best = m;
      *idx = im;
    }
  }
  int32_t tail = -1; /* the last n mod 4 keys */
  best = eng_keys_min_scan(key + i, n - i, best, &tail);
  if (tail >= 0) *idx = i + tail;
  return best;
}

/* The first smallest port key of a node (*idx unchanged when every key is
 * ENG_INF), in its processor's form. */
ENG_INLINE int64_t eng_keys_min(const int64_t *key, int32_t n, int32_t *idx) {
  return ENG_GPU ? eng_keys_min_fours(key, n, ENG_INF, idx)
                 : eng_keys_min_scan(key, n, ENG_INF, idx);
}

ENG_INLINE void eng_port_keys_all(const eng_ctx_t *k) {
  int32_t p0 = k->p0, np = k->c->node[k->x].n_ports;
  ENG_ROLLED /* a host's one or two ports, or a switch after a PFC frame */
  for (int32_t lp = 0; lp < np; lp++)
    k->c->port_key[p0 + lp] = eng_port_key(k, lp);
}

/* A switch of ENG_TREE_PORTS ports or more finds its next event through a
 * tournament tree over its ports' cached keys: tree node i (1 <= i < np,
 * stored in port_twin of its i-th port) holds the winner of nodes 2i and
 * 2i+1, where node np + lp is port lp; the winner is the smaller key, on a tie
 * the lower port, so the root names the port a scan for the first smallest key
 * names. An event changes one or two keys: log2(np) matches each instead of a
 * scan of np. Smaller switches scan: on a k=8 fat-tree the tree's matches cost
 * more than 8 compares (tests/bench/RESULTS.md: the all-to-all). */
#define ENG_TREE_PORTS 32

ENG_INLINE int32_t eng_tree_win(const eng_cols_t *c, int32_t p0, int32_t np, int32_t i) {
  return i >= np ? i - np : c->port_twin[p0 + i];
}

ENG_INLINE void eng_tree_play(eng_cols_t *c, int32_t p0, int32_t np, int32_t i) {
  int32_t a = eng_tree_win(c, p0, np, 2 * i), b = eng_tree_win(c, p0, np, 2 * i + 1);
  int64_t ka = c->port_key[p0 + a], kb = c->port_key[p0 + b];
  c->port_twin[p0 + i] = kb < ka || (kb == ka && b < a) ? b : a;
}

ENG_INLINE void eng_tree_build(eng_cols_t *c, int32_t p0, int32_t np) {
  for (int32_t i = np - 1; i >= 1; i--)
    eng_tree_play(c, p0, np, i);
}

/* Port lp's key changed: replay the matches on its way to the root. */
ENG_INLINE void eng_tree_update(eng_cols_t *c, int32_t p0, int32_t np, int32_t lp) {
  for (int32_t i = (np + lp) / 2; i >= 1; i /= 2)
    eng_tree_play(c, p0, np, i);
}

/* Between two steps of a node only its incoming links change (the peers
 * published packets and frames), and only by adding to them: a port's cached
 * key needs just the heads of its links, and only when they were empty. */
ENG_INLINE void eng_port_key_input(const eng_ctx_t *k, int32_t lp) {
  int64_t *key = &k->c->port_key[k->p0 + lp];
  *key = eng_link_key(k, lp, *key);
}

ENG_INLINE void eng_port_keys_inputs(const eng_ctx_t *k) {
  int32_t np = k->c->node[k->x].n_ports;
  for (int32_t lp = 0; lp < np; lp++)
    eng_port_key_input(k, lp);
}

/* Certified port phases: a switch's window stepped port by port where it
 * gives the same state (it uses the queues' and the MMU's pieces above). */
#include "sim/eng_phase.h"

/* The context of node x's step from `now`. */
ENG_INLINE eng_ctx_t eng_node_ctx(eng_cols_t *c, int32_t x, int64_t now) {
  const int32_t e = c->node_exp[x];
  eng_ctx_t k = {c,       x, e, c->node[x].id, c->exp_seed[e],      now,
                 ENG_INF, 0, 0, NULL,          c->node[x].port_off, c->exp_ccp[e].kind == CC_HPCC,
                 0};
  return k;
}

/* Whether node x of running experiment e has nothing to do in this window:
 * nothing new came in and its own next event lies beyond the window. */
ENG_INLINE int eng_node_idle(const eng_cols_t *c, int32_t x, int32_t e) {
  return !c->node_woken[x] && !eng_node_poked(c, x, e) && c->node_next[x] >= c->exp_t_end[e];
}

/* Node k->x processes its event of class cls at k->now: of its local port idx
 * (PFC frame, arrival, transmission) or of its heap's task idx (timer, task).
 * Returns the egress port a relayed packet joined, else -1. */
ENG_INLINE int32_t eng_node_event(eng_ctx_t *k, int32_t cls, int32_t idx) {
  eng_cols_t *c = k->c;
  if (cls == ENG_EV_PFC) {
    int32_t p = k->p0 + idx, in = c->port[p].peer;
    uint32_t h = c->port[in].pfc_head;
    uint8_t fr = c->pfc_pause[c->port[in].pfc_off + (int32_t)(h & c->port[in].pfc_mask)];
    int32_t q = eng_cls(c, p, fr >> 1);
    if ((fr & 1) && !c->cls[q].paused && c->port[p].paused++ == 0) c->port[p].paused_since = k->now;
    if (!(fr & 1) && c->cls[q].paused && --c->port[p].paused == 0)
      c->port[p].paused_ps += k->now - c->port[p].paused_since;
    c->cls[q].paused = fr & 1;
    c->port[in].pfc_head = h + 1;
    return -1;
  }
  if (cls == ENG_EV_ARRIVE) return eng_arrive(k, idx);
  if (cls == ENG_EV_TIMER)
    eng_host_timer(k, c->task[idx].flow);
  else if (cls == ENG_EV_TASK)
    eng_task_event(k, idx);
  else
    eng_tx(k, idx);
  return -1;
}

/* The node's heap (task starts and ends, flows' timers) goes first where its
 * top key is below the ports' best: *best and *idx (a port, or a task row)
 * become its. */
ENG_INLINE void eng_node_heap_first(const eng_cols_t *c, int32_t x, int64_t *best, int32_t *idx) {
  int64_t hk = eng_heap_top(c, x);
  if (hk < *best) {
    *best = hk;
    *idx = c->heap_task[c->node[x].task_off];
  }
}

/* The end of node k->x's step, its next event's key `best` not yet due: it
 * keeps the time it reached and says when it has something to do next (its
 * next event, or a packet it sent that arrives earlier). */
ENG_INLINE void eng_node_end(eng_ctx_t *k, int64_t best) {
  eng_cols_t *c = k->c;
  c->node[k->x].now = k->now;
  c->node[k->x].c_events += k->events;
  int64_t next = best == ENG_INF ? ENG_INF : best >> 3;
  c->node_next[k->x] = next;
  if (k->emit_min < next) next = k->emit_min;
  if (next < ENG_INF) eng_atomic_min_i64(&c->exp_next_t[k->e], next);
}

/* System: node x processes all its events before its experiment's window end,
 * in key order: first the tasks poked by other hosts in the previous window
 * (the schedule part), then events of its ports (each caches the key of its
 * next event; an event refreshes only the ports it can change, a host's every
 * port) and of its heap (task starts and ends, flows' timers). */
ENG_INLINE void eng_node_step(eng_cols_t *c, int32_t x) {
  int32_t e = c->node_exp[x];
  if (c->exp_status[e] != ENG_RUNNING) return;
  if (eng_node_idle(c, x, e)) { /* it only says when it has something to do */
    if (c->node_next[x] < ENG_INF) eng_atomic_min_i64(&c->exp_next_t[e], c->node_next[x]);
    return;
  }
  c->node_woken[x] = 0;
  eng_ctx_t k = eng_node_ctx(c, x, c->node[x].now);
  eng_node_schedule(&k);
  const int64_t key_end = eng_key(c->exp_t_end[e], 0);
  const int32_t p0 = k.p0, np = c->node[x].n_ports;
  const int is_host = !c->node[x].is_switch, tree = !is_host && np >= ENG_TREE_PORTS;
  int64_t best;
  /* Port phases where asked, and by default on a switch that keeps no tree:
   * a larger one's tree touches only its busy ports, the phases every port. */
  const int phases = c->exp_phases[e] == ENG_PHASES_ON || (c->exp_phases[e] == ENG_PHASES_AUTO && !tree);
  if (ENG_PHASE_BACKEND && !is_host && phases && eng_phase_ok(&k, c->exp_t_end[e], ENG_PHASE_CPU_MAX)) {
    int32_t in_path = 0, span = eng_phase_step(&k, c->exp_t_end[e], &in_path);
    c->node[x].c_phased++;
    c->node[x].c_offpath += k.events - span;
    c->node[x].c_inpath += in_path;
    eng_port_keys_all(&k); /* what the serial step would have cached */
    c->node[x].keys_ok = 1;
    best = ENG_INF;
    for (int32_t lp = 0; lp < np; lp++)
      if (c->port_key[p0 + lp] < best) best = c->port_key[p0 + lp];
    eng_node_end(&k, best);
    return;
  }
  if (c->node[x].keys_ok) {
    eng_port_keys_inputs(&k);
  } else {
    eng_port_keys_all(&k);
    c->node[x].keys_ok = 1;
  }
  if (tree) eng_tree_build(c, p0, np);
  for (;;) {
    int32_t idx = 0;
    if (!tree) {
      best = eng_keys_min(&c->port_key[p0], np, &idx);
    } else {
      idx = np > 1 ? c->port_twin[p0 + 1] : 0;
      best = c->port_key[p0 + idx];
    }
    eng_node_heap_first(c, x, &best, &idx);
    if (best >= key_end) break;
    k.now = best >> 3;
    int32_t cls = (int32_t)(best & 7), out = eng_node_event(&k, cls, idx);
    k.events++;
    if (is_host || k.pfc_busy) { /* a host's every port; a frame moved a switch's keys */
      eng_port_keys_all(&k);
      if (tree) eng_tree_build(c, p0, np);
      k.pfc_busy = 0;
    } else if (cls != ENG_EV_TIMER && cls != ENG_EV_TASK) {
      c->port_key[p0 + idx] = eng_port_key(&k, idx);
      if (tree) eng_tree_update(c, p0, np, idx);
      if (out >= 0 && out != idx) {
        c->port_key[p0 + out] = eng_port_key(&k, out);
        if (tree) eng_tree_update(c, p0, np, out);
      }
    }
  }
  eng_node_end(&k, best);
}

/* Series s of a traced experiment records its value at the end of a window
 * that reached the next sample time (its experiment's advance calls it). */
ENG_INLINE void eng_trace_sample(eng_cols_t *c, int32_t s) {
  int32_t e = c->tser_exp[s];
  int32_t r = c->tser_row[s];
  double v = 0;
  switch (c->tser_kind[s]) {
  case ENG_TR_TIME:
    v = (double)c->exp_t_end[e];
    break;
  case ENG_TR_DELIVERED: {
    uint64_t b = (uint64_t)c->flow[r].rcv_nxt * (uint64_t)c->exp_mtu[e];
    v = (double)(b < c->flow[r].bytes ? b : c->flow[r].bytes);
    break;
  }
  case ENG_TR_CC: {
    const void *a = eng_cca(c, e, r);
    int32_t kind = c->exp_ccp[e].kind;
    v = kind == CC_DCTCP ? ((const cc_dctcp_t *)a)->cwnd
        : kind == CC_HPCC
            ? ((const cc_hpcc_t *)a)->w * 8e12 / (double)((const cc_hpcc_t *)a)->base_rtt
        : kind == CC_DCQCN ? ((const cc_dcqcn_t *)a)->rc
                           : 0.0;
    break;
  }
  default:
    v = (double)c->port[r].q_bytes;
  }
  c->tval_v[c->exp_tr_off[e] + c->exp_tr_count[e] * c->exp_tr_nser[e] + (s - c->exp_tr_ser[e])] = v;
}

/* System: link direction p publishes the packets and frames its owner sent and
 * the slots its peer consumed during the window. */
ENG_INLINE void eng_port_commit(eng_cols_t *c, int32_t p) {
  if (c->port[p].ring_pub != c->port[p].ring_tail || c->port[p].pfc_pub != c->port[p].pfc_tail)
    eng_flag_raise(&c->node_woken[c->port[c->port[p].peer].node]);
  c->port[p].ring_pub = c->port[p].ring_tail;
  c->port[p].ring_hsnap = c->port[p].ring_head;
  c->port[p].pfc_pub = c->port[p].pfc_tail;
  c->port[p].pfc_hsnap = c->port[p].pfc_head;
}

/* End of the window that starts at t: one lookahead later, but never past
 * max_time (events after it are not simulated). */
ENG_INLINE int64_t eng_window_end(const eng_cols_t *c, int32_t e, int64_t t) {
  int64_t end = t + c->exp_window[e];
  return end > c->exp_max_time[e] + 1 ? c->exp_max_time[e] + 1 : end;
}

/* System: experiment e samples its time series if due, then ends, or moves to
 * its next window (fast-forwarding over idle time). Returns 1 while it is
 * running. */
ENG_INLINE int eng_exp_advance(eng_cols_t *c, int32_t e) {
  if (c->exp_status[e] != ENG_RUNNING) return 0;
  c->exp_windows[e]++;
  if (c->exp_tr_every[e] && c->exp_t_end[e] >= c->exp_tr_next[e] &&
      c->exp_tr_count[e] < c->exp_tr_cap[e]) {
    for (int32_t s = c->exp_tr_ser[e]; s < c->exp_tr_ser[e] + c->exp_tr_nser[e]; s++)
      eng_trace_sample(c, s);
    c->exp_tr_count[e]++;
    c->exp_tr_next[e] = (c->exp_t_end[e] / c->exp_tr_every[e] + 1) * c->exp_tr_every[e];
  }
  int64_t next = c->exp_next_t[e];
  c->exp_next_t[e] = ENG_INF;
  if (c->exp_fail[e] != ENG_INF) {
    c->exp_status[e] = ENG_FAILED;
  } else if (c->exp_tasks_done[e] == c->exp_n_tasks[e] && next == ENG_INF) {
    c->exp_status[e] = ENG_OK; /* every task ended and the network drained */
  } else if (next == ENG_INF) {
    c->exp_fail[e] = ENG_FAIL_DEADLOCK;
    c->exp_status[e] = ENG_FAILED;
  } else if (next > c->exp_max_time[e]) {
    /* Past the limit: timed out, unless only the drain after the last task
     * was left. */
    c->exp_status[e] = c->exp_tasks_done[e] == c->exp_n_tasks[e] ? ENG_OK : ENG_TIMED_OUT;
  } else {
    int64_t t = c->exp_t_end[e];
    if (next > t) t = next;
    c->exp_t[e] = t;
    c->exp_t_end[e] = eng_window_end(c, e, t);
    return 1;
  }
  return 0;
}

/* Rows [lo, hi) of experiment e in each table a system runs over (for
 * backends that step one experiment at a time). */
ENG_INLINE int32_t eng_lo_node(const eng_cols_t *c, int32_t e) {
  return c->exp_node_off[e];
}
ENG_INLINE int32_t eng_hi_node(const eng_cols_t *c, int32_t e) {
  return c->exp_node_off[e] + c->exp_n_nodes[e];
}
ENG_INLINE int32_t eng_lo_port(const eng_cols_t *c, int32_t e) {
  return c->exp_port_off[e];
}
ENG_INLINE int32_t eng_hi_port(const eng_cols_t *c, int32_t e) {
  return c->exp_port_off[e] + c->exp_n_ports[e];
}
ENG_INLINE int32_t eng_lo_exp(const eng_cols_t *c, int32_t e) {
  (void)c;
  return e;
}
ENG_INLINE int32_t eng_hi_exp(const eng_cols_t *c, int32_t e) {
  (void)c;
  return e + 1;
}

/* The systems of one window, in order: every backend and launch mode is
 * generated from this list. X(phase, table, system): systems of one phase touch
 * disjoint cells and run together; a barrier separates phases. The `exp`
 * system returns whether its experiment is still running. */
#define ENG_SYSTEMS(X)                                                                             \
  X(0, node, eng_node_step)                                                                        \
  X(1, port, eng_port_commit)                                                                      \
  X(1, exp, eng_exp_advance)
#define ENG_PHASES 2

#endif

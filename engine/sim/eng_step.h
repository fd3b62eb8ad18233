/* The systems of one window, written once for both backends:
 *   eng_node_step   each node processes its events of [t, t_end) in key order
 *   eng_port_commit each link publishes what was sent and consumed
 *   eng_exp_advance each experiment ends, fails or moves to its next window
 * Nodes touch only their own rows, their own flows' sender or receiver
 * columns, and the consumer side of their incoming links (pull). */
#ifndef ENG_STEP_H
#define ENG_STEP_H

#include "sim/eng_host.h"

enum { ENG_EV_PFC = 0, ENG_EV_ARRIVE = 1, ENG_EV_TIMER = 2, ENG_EV_TX = 3, ENG_EV_NONE = 4 };

typedef struct eng_ev_t {
  int64_t t;
  int32_t cls;
  int32_t idx;
} eng_ev_t;

ENG_INLINE void eng_ev_offer(eng_ev_t *best, int64_t t, int32_t cls, int32_t idx) {
  if (t < best->t || (t == best->t && (cls < best->cls || (cls == best->cls && idx < best->idx)))) {
    best->t = t;
    best->cls = cls;
    best->idx = idx;
  }
}

/* A packet from ingress lp reached relaying node k->x: admit it to an egress
 * queue or drop it. */
ENG_INLINE void eng_relay(eng_ctx_t *k, int32_t lp, eng_pkt_t pk) {
  eng_cols_t *c = k->c;
  int32_t x = k->x, e = k->e;
  int32_t out = eng_route(c, x, (int32_t)pk.flow, pk.type, pk.psn);
  if (out < 0) {
    eng_fail(k, ENG_FAIL_ROUTE);
    return;
  }
  int32_t ep = c->node_port_off[x] + out, ip = c->node_port_off[x] + lp;
  if (c->node_sw_free[x] == 0) {
    c->node_c_drops[x]++;
    return;
  }
  pk.in_port = (uint16_t)lp;
  pk.flags = (uint8_t)(pk.flags & ~ENG_F_HOSTSLOT);
  if (pk.type != ENG_PKT_DATA) {
    c->node_sw_free[x]--;
    eng_enqueue(c, x, ep, pk);
    return;
  }
  if (c->node_buf_used[x] + pk.wire > c->exp_buffer[e]) {
    c->node_c_drops[x]++;
    return;
  }
  c->node_sw_free[x]--;
  eng_enqueue(c, x, ep, pk);
  c->node_buf_used[x] += pk.wire;
  c->port_in_bytes[ip] += pk.wire;
  c->port_q_bytes[ep] += pk.wire;
  if (c->exp_pfc[e] && !c->port_pause_sent[ip] && c->port_in_bytes[ip] >= eng_xoff(c, e, x))
    eng_pfc_send(k, ip, 1);
}

/* Dequeues the head data packet of egress p (global): buffer accounting, ECN,
 * PFC resume. */
ENG_INLINE eng_pkt_t eng_dequeue_data(eng_ctx_t *k, int32_t p) {
  eng_cols_t *c = k->c;
  int32_t x = k->x, e = k->e;
  int32_t s = eng_q_pop(c, &c->port_dq_head[p], &c->port_dq_tail[p]);
  eng_pkt_t pk = c->pool_pkt[s];
  eng_pool_give(c, x, s);
  int32_t ip = c->node_port_off[x] + pk.in_port;
  c->node_buf_used[x] -= pk.wire;
  c->port_in_bytes[ip] -= pk.wire;
  c->port_q_bytes[p] -= pk.wire;
  uint64_t draw = c->port_deq_count[p]++;
  if (c->exp_ecn[e]) {
    int64_t q = c->port_q_bytes[p], lo = c->port_kmin[p], hi = c->port_kmax[p];
    int mark = q > hi;
    if (!mark && q > lo) {
      uint64_t thr = c->port_pmax_q32[p] * (uint64_t)(q - lo) / (uint64_t)(hi - lo);
      uint32_t lpo = (uint32_t)(p - c->node_port_off[x]);
      mark = eng_rng_u32(k->seed, (uint32_t)k->xid, lpo, draw) < thr;
    }
    if (mark) {
      pk.flags |= ENG_F_CE;
      c->node_c_ecn[x]++;
    }
  }
  if (c->exp_pfc[e] && c->port_pause_sent[ip]) {
    int64_t in = c->port_in_bytes[ip];
    if (in == 0 || in + c->exp_pfc_resume[e] <= eng_xoff(c, e, x)) eng_pfc_send(k, ip, 0);
  }
  return pk;
}

/* Time port lp of node k->x may next start a transmission, or ENG_INF. */
ENG_INLINE int64_t eng_tx_time(const eng_ctx_t *k, int32_t lp) {
  const eng_cols_t *c = k->c;
  int32_t p = c->node_port_off[k->x] + lp;
  int64_t busy = c->port_busy_until[p];
  int64_t at = ENG_INF;
  if (c->port_cq_head[p] >= 0 || (!c->port_paused[p] && c->port_dq_head[p] >= 0))
    at = k->now;
  else if (!c->port_paused[p] && c->node_n_flows[k->x] > 0)
    at = eng_host_ready(k, lp);
  if (at == ENG_INF) return ENG_INF;
  return busy > at ? busy : at;
}

/* A TX event of port lp: send the best packet there is. */
ENG_INLINE void eng_tx(eng_ctx_t *k, int32_t lp) {
  eng_cols_t *c = k->c;
  int32_t p = c->node_port_off[k->x] + lp;
  if (c->port_cq_head[p] >= 0) {
    int32_t s = eng_q_pop(c, &c->port_cq_head[p], &c->port_cq_tail[p]);
    eng_pkt_t pk = c->pool_pkt[s];
    eng_pool_give(c, k->x, s);
    eng_emit(k, p, pk);
  } else if (c->port_paused[p]) {
    return;
  } else if (c->port_dq_head[p] >= 0) {
    eng_emit(k, p, eng_dequeue_data(k, p));
  } else {
    int32_t f = eng_host_pick(k, lp);
    if (f >= 0) eng_emit(k, p, eng_host_next_packet(k, f));
  }
}

/* An ARRIVE event on local port lp: consume the head of the incoming link. */
ENG_INLINE void eng_arrive(eng_ctx_t *k, int32_t lp) {
  eng_cols_t *c = k->c;
  int32_t in = c->port_peer[c->node_port_off[k->x] + lp];
  uint32_t h = c->port_ring_head[in];
  eng_pkt_t pk = c->ring_pkt[c->port_ring_off[in] + (int32_t)(h & c->port_ring_mask[in])];
  c->port_ring_head[in] = h + 1;
  int32_t f = (int32_t)pk.flow;
  int32_t dest = pk.type == ENG_PKT_DATA ? c->flow_dst[f] : c->flow_src[f];
  if (dest != k->x)
    eng_relay(k, lp, pk);
  else if (pk.type == ENG_PKT_DATA)
    eng_host_recv_data(k, &pk);
  else
    eng_host_recv_ctrl(k, &pk);
}

/* The earliest pending event of node k->x (ENG_EV_NONE if none). */
ENG_INLINE eng_ev_t eng_next_event(const eng_ctx_t *k) {
  const eng_cols_t *c = k->c;
  eng_ev_t best = {ENG_INF, ENG_EV_NONE, 0};
  int32_t p0 = c->node_port_off[k->x], np = c->node_n_ports[k->x];
  for (int32_t lp = 0; lp < np; lp++) {
    int32_t in = c->port_peer[p0 + lp];
    uint32_t h = c->port_pfc_head[in];
    if (h != c->port_pfc_pub[in])
      eng_ev_offer(&best, c->pfc_t[c->port_pfc_off[in] + (int32_t)(h & c->port_pfc_mask[in])],
                   ENG_EV_PFC, lp);
    h = c->port_ring_head[in];
    if (h != c->port_ring_pub[in])
      eng_ev_offer(&best, c->ring_pkt[c->port_ring_off[in] + (int32_t)(h & c->port_ring_mask[in])].t,
                   ENG_EV_ARRIVE, lp);
    eng_ev_offer(&best, eng_tx_time(k, lp), ENG_EV_TX, lp);
  }
  int32_t f0 = c->node_flow_off[k->x], nf = c->node_n_flows[k->x];
  for (int32_t r = 0; r < nf; r++) eng_ev_offer(&best, c->flow_rto_at[f0 + r], ENG_EV_TIMER, r);
  return best;
}

/* System: node x processes all its events before its experiment's window end. */
ENG_INLINE void eng_node_step(eng_cols_t *c, int32_t x) {
  int32_t e = c->node_exp[x];
  if (c->exp_status[e] != ENG_RUNNING) return;
  eng_ctx_t k = {c, x, e, c->node_id[x], c->exp_seed[e], c->node_now[x], ENG_INF};
  int64_t t_end = c->exp_t_end[e];
  eng_ev_t ev;
  for (;;) {
    ev = eng_next_event(&k);
    if (ev.t >= t_end) break;
    k.now = ev.t;
    if (ev.cls == ENG_EV_PFC) {
      int32_t p = c->node_port_off[x] + ev.idx, in = c->port_peer[p];
      uint32_t h = c->port_pfc_head[in];
      c->port_paused[p] = c->pfc_pause[c->port_pfc_off[in] + (int32_t)(h & c->port_pfc_mask[in])];
      c->port_pfc_head[in] = h + 1;
    } else if (ev.cls == ENG_EV_ARRIVE) {
      eng_arrive(&k, ev.idx);
    } else if (ev.cls == ENG_EV_TIMER) {
      eng_host_timer(&k, c->node_flow_off[x] + ev.idx);
    } else {
      eng_tx(&k, ev.idx);
    }
  }
  c->node_now[x] = k.now;
  int64_t next = ev.t < k.emit_min ? ev.t : k.emit_min;
  if (next < ENG_INF) eng_atomic_min_i64(&c->exp_next_t[e], next);
}

/* System: link direction p publishes the packets and frames its owner sent and
 * the slots its peer consumed during the window. */
ENG_INLINE void eng_port_commit(eng_cols_t *c, int32_t p) {
  c->port_ring_pub[p] = c->port_ring_tail[p];
  c->port_ring_hsnap[p] = c->port_ring_head[p];
  c->port_pfc_pub[p] = c->port_pfc_tail[p];
  c->port_pfc_hsnap[p] = c->port_pfc_head[p];
}

/* System: experiment e ends, or moves to its next window (fast-forwarding over
 * idle time). Returns 1 while it is running. */
ENG_INLINE int eng_exp_advance(eng_cols_t *c, int32_t e) {
  if (c->exp_status[e] != ENG_RUNNING) return 0;
  c->exp_windows[e]++;
  int64_t next = c->exp_next_t[e];
  c->exp_next_t[e] = ENG_INF;
  if (c->exp_fail[e] != ENG_INF) {
    c->exp_status[e] = ENG_FAILED;
  } else if (c->exp_flows_done[e] == c->exp_n_flows[e] && next == ENG_INF) {
    c->exp_status[e] = ENG_OK; /* every flow finished and the network drained */
  } else if (next == ENG_INF) {
    c->exp_fail[e] = ENG_FAIL_DEADLOCK;
    c->exp_status[e] = ENG_FAILED;
  } else if (next > c->exp_max_time[e]) {
    c->exp_status[e] = ENG_TIMED_OUT;
  } else {
    int64_t t = c->exp_t_end[e];
    if (next > t) t = next;
    c->exp_t[e] = t;
    c->exp_t_end[e] = t + c->exp_window[e];
    return 1;
  }
  return 0;
}

#endif

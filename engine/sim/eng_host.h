/* Host systems: flows starting and becoming eligible, choosing which flow
 * sends next, the receiver (ACK, NACK, reception complete), the sender
 * (go-back-N, retransmission timer, completion), task events. docs/model.md. */
#ifndef ENG_HOST_H
#define ENG_HOST_H

#include "cc/cc.h"
#include "sim/eng_task.h"

/* Payload bytes of flow f sent but not acknowledged. */
ENG_INLINE int64_t eng_inflight(const eng_cols_t *c, int32_t f, int32_t mtu) {
  uint64_t hi = (uint64_t)c->flow[f].snd_nxt * (uint64_t)mtu;
  if (hi > c->flow[f].bytes) hi = c->flow[f].bytes;
  return (int64_t)(hi - (uint64_t)c->flow[f].snd_una * (uint64_t)mtu);
}

/* Whether flow f has ended (its sender has every byte acknowledged). */
ENG_INLINE int eng_flow_done(const eng_cols_t *c, int32_t f) {
  return c->task[c->flow[f].task].end >= 0;
}

/* Time of flow f's next timer: retransmission or congestion control. */
ENG_INLINE int64_t eng_flow_timer(const eng_cols_t *c, int32_t e, int32_t f) {
  int64_t t = cc_timer_at(eng_cca(c, e, f), &c->exp_ccp[e]);
  return c->flow[f].rto_at < t ? c->flow[f].rto_at : t;
}

/* After any change to started flow f's sender state, at k->now: is it eligible
 * now (model.md: it has a packet to send, congestion control lets it send, and
 * that packet leaves by port lp), and when is its next timer (retransmission,
 * congestion control, or the pacing time at which it becomes eligible)? */
ENG_OUTLINE void eng_flow_eval(eng_ctx_t *k, int32_t f) {
  eng_cols_t *c = k->c;
  int32_t x = k->x, t = c->flow[f].task, lp = -1;
  int64_t wake = ENG_INF;
  if (!eng_flow_done(c, f) && c->flow[f].snd_nxt < c->flow[f].npkts) {
    int64_t r = cc_ready_at(&c->flow[f].cc, eng_cca(c, k->e, f), &c->exp_ccp[k->e],
                            eng_inflight(c, f, c->exp_mtu[k->e]));
    if (r <= k->now)
      lp = eng_route(c, x, f, ENG_PKT_DATA, c->flow[f].snd_nxt);
    else if (r != CC_NEVER)
      wake = r;
  }
  eng_ready_at(c, x, f, lp);
  int64_t at = eng_flow_timer(c, k->e, f);
  if (wake < at) at = wake;
  eng_heap_set(c, x, t, eng_key(at, ENG_EV_TIMER), c->flow[f].rank);
}

/* Flow f starts at k->now: it takes the next rank of its source. */
ENG_INLINE void eng_flow_begin(eng_ctx_t *k, int32_t f) {
  eng_cols_t *c = k->c;
  int32_t r = c->node[k->x].n_ranks++;
  c->flow[f].rank = r;
  c->rank_flow[c->node[k->x].flow_off + r] = f;
  c->flow[f].start = k->now;
  eng_flow_eval(k, f);
}

/* Round robin from the flow served last: the next flow eligible now at lp
 * whose class is not paused there, or -1 (ranks visited in the cyclic order
 * rr+1, rr+2, ...). */
ENG_INLINE int32_t eng_host_pick(eng_ctx_t *k, int32_t lp) {
  eng_cols_t *c = k->c;
  int32_t p = k->p0 + lp, first = -1, r = c->node[k->x].rr;
  for (;;) {
    r = eng_ready_next(c, k->x, lp, r);
    if (r < 0 || r == first) return -1;
    if (first < 0) first = r;
    int32_t f = c->rank_flow[c->node[k->x].flow_off + r];
    if (!c->port[p].paused || !c->cls[eng_cls(c, p, c->flow[f].cls)].paused) {
      c->node[k->x].rr = r;
      return f;
    }
  }
}

/* A task event (class TASK) of task t at k->now: its start (a flow begins, a
 * compute or coll task runs for dur, a join ends) or its end. */
ENG_OUTLINE void eng_task_event(eng_ctx_t *k, int32_t t) {
  eng_cols_t *c = k->c;
  if (!c->task[t].started) {
    int32_t kind = c->task[t].kind;
    c->task[t].started = 1;
    c->task[t].start = k->now;
    if ((kind == TG_FLOW || kind == TG_COLL) && eng_slows(k, t)) eng_comm_change(k, t, +1);
    if (kind == TG_FLOW) {
      eng_flow_begin(k, c->task[t].flow);
      return;
    }
    if (kind != TG_JOIN && c->task[t].dur > 0) {
      if (kind == TG_COMPUTE && eng_slows(k, t))
        eng_compute_begin(k, t);
      else
        eng_heap_set(c, k->x, t, eng_key(eng_time_add(k->now, c->task[t].dur), ENG_EV_TASK),
                     c->task[t].hidx);
      return;
    }
  }
  eng_heap_set(c, k->x, t, ENG_INF, 0);
  eng_task_end_now(k, t);
}

/* Builds the next data packet of flow f and advances its sender state. */
ENG_INLINE eng_pkt_t eng_host_next_packet(eng_ctx_t *k, int32_t f) {
  eng_cols_t *c = k->c;
  int32_t e = k->e;
  uint32_t psn = c->flow[f].snd_nxt;
  const int32_t pay = eng_payload(c->flow[f].bytes, psn, c->exp_mtu[e]);
  eng_pkt_t pk = eng_pkt_make((uint32_t)f, psn, ENG_PKT_DATA, pay + c->exp_header[e],
                              pay == c->exp_mtu[e] ? ENG_F_FULL : 0, c->flow[f].cls);
  c->flow[f].snd_nxt = psn + 1;
  if (psn < c->flow[f].max_sent) {
    c->node[k->x].c_retx++;
    c->node[k->x].c_retx_bytes += pk.wire - c->exp_header[e];
  }
  if (psn + 1 > c->flow[f].max_sent) c->flow[f].max_sent = psn + 1;
  if (c->flow[f].rto_at == ENG_INF) c->flow[f].rto_at = k->now + c->exp_rto[e];
  cc_on_send(&c->flow[f].cc, eng_cca(c, e, f), &c->exp_ccp[e], k->now, pk.wire);
  return pk;
}

/* The host queues a control packet (ACK/NACK carrying `a`, or a CNP) of flow f,
 * echoing telemetry `in` (NULL: none). */
ENG_OUTLINE void eng_host_ctrl(eng_ctx_t *k, int32_t f, uint8_t type, uint32_t a, uint8_t flags,
                               const cc_int_t *in) {
  eng_cols_t *c = k->c;
  int32_t lp = eng_route(c, k->x, f, type, a);
  if (lp < 0) {
    eng_fail(k, ENG_FAIL_ROUTE);
    return;
  }
  if (c->node[k->x].host_free == 0) {
    c->node[k->x].c_drops++;
    return;
  }
  c->node[k->x].host_free--;
  if ((flags & ENG_F_ECE) && cc_ack_is_cnp(&c->exp_ccp[k->e])) c->node[k->x].c_cnps++;
  eng_pkt_t pk = eng_pkt_make((uint32_t)f, a, type, c->exp_ctrl_bytes[k->e],
                              (uint8_t)(flags | ENG_F_HOSTSLOT), c->flow[f].cls);
  (void)eng_enqueue(k, k->p0 + lp, pk, in, -1);
}

/* Re-order tolerant receiver: psn >= rcv_nxt arrived. Holds it, advances
 * rcv_nxt over every held packet that follows, ACKs when a multiple of
 * ack_every (or the end) is passed; a packet beyond the window is dropped. */
ENG_INLINE void eng_host_recv_reorder(eng_ctx_t *k, int32_t f, uint32_t psn, uint8_t ece,
                                      const cc_int_t *in) {
  eng_cols_t *c = k->c;
  uint32_t rcv = c->flow[f].rcv_nxt, every = (uint32_t)c->exp_ack_every[k->e];
  eng_rxmap_t *m = &c->flow[f].rx_map;
  if (psn > rcv) {
    uint32_t i = psn - rcv - 1;
    if (i >= ENG_RX_WINDOW)
      c->node[k->x].c_drops++;
    else
      m->w[i / 64] |= 1ULL << (i % 64);
    return;
  }
  uint32_t old = rcv;
  rcv++;
  while (m->w[0] & 1ULL) { /* the next one is held: take it, shift the map */
    rcv++;
    for (int j = 0; j < ENG_RX_WORDS; j++)
      m->w[j] = (m->w[j] >> 1) | (j + 1 < ENG_RX_WORDS ? m->w[j + 1] << 63 : 0);
  }
  for (int j = 0; j < ENG_RX_WORDS; j++) /* drop the bit of rcv itself */
    m->w[j] = (m->w[j] >> 1) | (j + 1 < ENG_RX_WORDS ? m->w[j + 1] << 63 : 0);
  c->flow[f].rcv_nxt = rcv;
  if (rcv / every > old / every || rcv == c->flow[f].npkts)
    eng_host_ctrl(k, f, ENG_PKT_ACK, rcv, ece, in);
}

/* Receiver: data packet pk (telemetry `in`) of flow f arrived at its
 * destination. */
ENG_INLINE void eng_host_recv_data(eng_ctx_t *k, const eng_pkt_t *pk, const cc_int_t *in) {
  eng_cols_t *c = k->c;
  int32_t f = (int32_t)pk->flow;
  uint32_t rcv = c->flow[f].rcv_nxt;
  uint8_t ece = (pk->flags & ENG_F_CE) ? ENG_F_ECE : 0;
  if (c->exp_reorder[k->e] && pk->psn >= rcv) {
    eng_host_recv_reorder(k, f, pk->psn, ece, in);
  } else if (pk->psn == rcv) {
    rcv++;
    c->flow[f].rcv_nxt = rcv;
    if (rcv % (uint32_t)c->exp_ack_every[k->e] == 0 || rcv == c->flow[f].npkts)
      eng_host_ctrl(k, f, ENG_PKT_ACK, rcv, ece, in);
  } else if (pk->psn > rcv) {
    if (c->flow[f].nack_for != rcv) {
      c->flow[f].nack_for = rcv;
      eng_host_ctrl(k, f, ENG_PKT_NACK, rcv, ece, in);
    }
  } else {
    eng_host_ctrl(k, f, ENG_PKT_ACK, rcv, ece, in);
  }
  if (ece && cc_np_cnp(&c->exp_ccp[k->e], c->flow[f].cnp_last, k->now)) {
    c->flow[f].cnp_last = k->now;
    c->node[k->x].c_cnps++;
    eng_host_ctrl(k, f, ENG_PKT_CNP, 0, 0, NULL);
  }
  if (c->flow[f].rcv_nxt == c->flow[f].npkts && c->flow[f].recv < 0) { /* reception complete */
    eng_store_i64(&c->flow[f].recv, k->now);
    eng_task_notify(k, c->flow[f].task, TG_ON_RECV);
  }
}

/* Sender: ACK, NACK or CNP pk (telemetry `in`) of flow f arrived at its source. */
ENG_INLINE void eng_host_recv_ctrl(eng_ctx_t *k, const eng_pkt_t *pk, const cc_int_t *in) {
  eng_cols_t *c = k->c;
  int32_t f = (int32_t)pk->flow;
  if (pk->type == ENG_PKT_CNP) {
    if (!eng_flow_done(c, f)) {
      cc_on_cnp(eng_cca(c, k->e, f), &c->exp_ccp[k->e], k->now);
      eng_flow_eval(k, f);
    }
    return;
  }
  uint32_t a = pk->psn, una = c->flow[f].snd_una, n = c->flow[f].npkts;
  int64_t rto = c->exp_rto[k->e];
  if (pk->type == ENG_PKT_ACK) {
    if (a > una) {
      c->flow[f].snd_una = a;
      c->flow[f].rto_at = a < n ? k->now + rto : ENG_INF;
    }
  } else if (a >= una) {
    c->flow[f].snd_una = a;
    c->flow[f].snd_nxt = a;
    c->flow[f].rto_at = k->now + rto;
  }
  uint32_t una2 = c->flow[f].snd_una;
  if (c->flow[f].snd_nxt < una2) c->flow[f].snd_nxt = una2;
  cc_on_ack(&c->flow[f].cc, eng_cca(c, k->e, f), &c->exp_ccp[k->e], una2 - una,
            (pk->flags & ENG_F_ECE) != 0, una2, c->flow[f].snd_nxt, c->exp_mtu[k->e], a, in);
  if ((pk->flags & ENG_F_ECE) && cc_ack_is_cnp(&c->exp_ccp[k->e]) && !eng_flow_done(c, f))
    cc_on_cnp(eng_cca(c, k->e, f), &c->exp_ccp[k->e], k->now);
  if (una2 == n && !eng_flow_done(c, f)) {
    c->flow[f].rto_at = ENG_INF;
    cc_on_finish(eng_cca(c, k->e, f), &c->exp_ccp[k->e]);
    eng_task_end_now(k, c->flow[f].task);
  }
  eng_flow_eval(k, f);
}

/* A timer of flow f fired: the retransmission timer first, then the CC's;
 * or only its pacing time came. */
ENG_INLINE void eng_host_timer(eng_ctx_t *k, int32_t f) {
  eng_cols_t *c = k->c;
  if (c->flow[f].rto_at == k->now && c->flow[f].snd_una < c->flow[f].npkts) {
    c->flow[f].snd_nxt = c->flow[f].snd_una;
    c->flow[f].rto_at = k->now + c->exp_rto[k->e];
    c->node[k->x].c_timeouts++;
  }
  void *a = eng_cca(c, k->e, f);
  if (cc_timer_at(a, &c->exp_ccp[k->e]) == k->now)
    cc_on_timer(&c->flow[f].cc, a, &c->exp_ccp[k->e], k->now);
  eng_flow_eval(k, f);
}

#endif

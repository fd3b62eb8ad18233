/* cc: per-flow congestion control behind one small interface, called by the
 * host systems of the engine (both backends) and by the reference simulator.
 * Each algorithm lives in its own header (cc_dcqcn.h, cc_dctcp.h, cc_hpcc.h); this file
 * only dispatches. Rate-based algorithms pace through next_send, window-based
 * ones through cc_window. `none` sends at line rate with no window. */
#ifndef CC_H
#define CC_H

#include "cc/cc_dcqcn.h"
#include "cc/cc_dctcp.h"
#include "cc/cc_hpcc.h"
#include "cc/cc_types.h"

#define CC_NEVER INT64_MAX

/* A flow whose sender's NIC runs at `line` bit/s and whose base RTT is
 * `base_rtt` ps starts; `a` is its state of the experiment's algorithm (a
 * cc_dcqcn_t, cc_dctcp_t or cc_hpcc_t; NULL with none). */
ENG_INLINE void cc_init(cc_state_t *s, void *a, const cc_params_t *p, double line,
                        int64_t base_rtt) {
  s->line = line;
  s->win = p->window > 0 ? (double)p->window : p->window < 0 ? line * (double)base_rtt / 8e12 : 0.0;
  s->next_send = 0;
  if (p->kind == CC_DCQCN) cc_dcqcn_init(s, (cc_dcqcn_t *)a, p);
  if (p->kind == CC_DCTCP) cc_dctcp_init((cc_dctcp_t *)a, p);
  if (p->kind == CC_HPCC) cc_hpcc_init(s, (cc_hpcc_t *)a, p, base_rtt);
}

/* Bytes of an algorithm's per-flow state (0 for none). */
ENG_INLINE int32_t cc_alg_bytes(int32_t kind) {
  return kind == CC_DCQCN   ? (int32_t)sizeof(cc_dcqcn_t)
         : kind == CC_DCTCP ? (int32_t)sizeof(cc_dctcp_t)
         : kind == CC_HPCC  ? (int32_t)sizeof(cc_hpcc_t)
                            : 0;
}

/* Whether flows of this CC need their base RTT at set-up. */
ENG_INLINE int cc_needs_rtt(const cc_params_t *p) {
  return p->kind == CC_HPCC || (p->kind == CC_DCQCN && p->window < 0);
}

/* Earliest time (ps) the flow may send its next packet when `inflight` payload
 * bytes are unacknowledged; CC_NEVER while its window is full (an ACK reopens
 * it). */
ENG_INLINE int64_t cc_ready_at(const cc_state_t *s, const void *a, const cc_params_t *p,
                               int64_t inflight) {
  if (p->kind == CC_DCTCP && inflight > 0 && (double)inflight >= ((const cc_dctcp_t *)a)->cwnd)
    return CC_NEVER;
  if (p->kind == CC_DCQCN && s->win > 0 && inflight > 0 &&
      (double)inflight >= (p->var_window ? s->win * ((const cc_dcqcn_t *)a)->rc / s->line : s->win))
    return CC_NEVER;
  if (p->kind == CC_HPCC && inflight > 0 && (double)inflight >= ((const cc_hpcc_t *)a)->w)
    return CC_NEVER;
  return s->next_send;
}

/* The flow put a data packet of `wire` bytes on the wire at `now`. */
ENG_INLINE void cc_on_send(cc_state_t *s, void *a, const cc_params_t *p, int64_t now,
                           int32_t wire) {
  if (p->kind == CC_DCQCN) {
    cc_dcqcn_t *d = (cc_dcqcn_t *)a;
    s->next_send = now + cc_pace(wire, d->rc, p->clock_ns);
    cc_dcqcn_on_send(s, d, p, wire);
  }
  if (p->kind == CC_HPCC) {
    cc_hpcc_t *h = (cc_hpcc_t *)a;
    s->next_send = now + cc_pace(wire, cc_hpcc_rate(s, h, h->w), p->clock_ns);
    h->last_wire = wire;
  }
}

/* An ACK or NACK reached the sender: `acked` newly acknowledged packets, `ece`
 * its CE echo, `una`/`nxt` the sequence state after it, `ack` the number it
 * carried, `in` its telemetry (HPCC; NULL otherwise). */
ENG_INLINE void cc_on_ack(cc_state_t *s, void *a, const cc_params_t *p, uint32_t acked, int ece,
                          uint32_t una, uint32_t nxt, int32_t mtu, uint32_t ack,
                          const cc_int_t *in) {
  if (p->kind == CC_DCTCP) cc_dctcp_on_ack((cc_dctcp_t *)a, p, acked, ece, una, nxt, mtu);
  if (p->kind == CC_HPCC) cc_hpcc_on_ack(s, (cc_hpcc_t *)a, p, ack, nxt, in, mtu);
}

/* A congestion notification packet reached the sender at `now`. */
ENG_INLINE void cc_on_cnp(void *a, const cc_params_t *p, int64_t now) {
  if (p->kind == CC_DCQCN) cc_dcqcn_on_cnp((cc_dcqcn_t *)a, p, now);
}

/* Next CC timer of the flow (ps), CC_NEVER if none. */
ENG_INLINE int64_t cc_timer_at(const void *a, const cc_params_t *p) {
  return p->kind == CC_DCQCN ? cc_dcqcn_timer_at((const cc_dcqcn_t *)a) : CC_NEVER;
}

ENG_INLINE void cc_on_timer(const cc_state_t *s, void *a, const cc_params_t *p, int64_t now) {
  if (p->kind == CC_DCQCN) cc_dcqcn_on_timer(s, (cc_dcqcn_t *)a, p, now);
}

/* The flow finished: its timers stop. */
ENG_INLINE void cc_on_finish(void *a, const cc_params_t *p) {
  cc_dcqcn_t *d = (cc_dcqcn_t *)a;
  if (p->kind == CC_DCQCN) d->t_alpha = d->t_inc = d->t_dec = CC_NEVER;
}

/* Whether an ACK or NACK echoing CE is the sender's CNP (dcqcn_ns3: the ns-3
 * HPCC simulator's receiver flags its ACK instead of sending a CNP). */
ENG_INLINE int cc_ack_is_cnp(const cc_params_t *p) {
  return p->kind == CC_DCQCN && p->dcqcn_ns3;
}

/* Receiver: should a CE-marked data packet arriving at `now` make it send a
 * CNP, given its last CNP for this flow was at `last` (-1: never)? */
ENG_INLINE int cc_np_cnp(const cc_params_t *p, int64_t last, int64_t now) {
  return p->kind == CC_DCQCN && cc_dcqcn_np_send_cnp(p, last, now);
}

#endif

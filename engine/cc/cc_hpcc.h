/* HPCC (Li et al., SIGCOMM'19, Algorithm 1): from the in-band telemetry echoed
 * in ACKs the sender estimates each link's normalised inflight
 * u = min(qlen) / (B T) + txRate / B, keeps the largest as U (EWMA over tau/T),
 * and sets its window W = Wc / (U / eta) + W_AI (or Wc + W_AI for maxStage
 * additive stages while U < eta), bounded to [MTU, line-rate BDP]; the
 * reference window Wc takes the bounded W once per RTT, every ACK updates W
 * (fast reaction). Packets are paced at W / T. docs/model.md has the details. */
#ifndef CC_HPCC_H
#define CC_HPCC_H

#include "cc/cc_types.h"
#include "base/base_clock.h"
#include "base/base_hd.h"

/* Time to send `bytes` at `rate` bit/s (truncated to whole bit/s, as a rate
 * of the ns-3 HPCC simulator): ps, on the experiment's clock. */
ENG_INLINE int64_t cc_pace(int64_t bytes, double rate, int32_t clock_ns) {
  return base_ser_clock(bytes, (uint64_t)rate, clock_ns);
}

ENG_INLINE void cc_hpcc_init(const cc_state_t *s, cc_hpcc_t *h, const cc_params_t *p,
                             int64_t base_rtt) {
  h->base_rtt = base_rtt > 0 ? base_rtt : 1;
  h->w = h->wc = s->line * (double)h->base_rtt / 8e12; /* line-rate BDP, bytes */
  h->u = 1.0;
  double ai = p->hpcc_ai >= 0 ? p->hpcc_ai : 10e6 * s->line / 25e9;
  h->w_ai = ai * (double)h->base_rtt / 8e12;
  h->inc_stage = 0;
  h->last_update = 0;
  h->last_wire = h->pad = 0;
  h->last.nhop = 0;
}

/* The window's floor: one MTU, or hpcc_min_rate x T (bytes). */
ENG_INLINE double cc_hpcc_wmin(const cc_hpcc_t *h, const cc_params_t *p, int32_t mtu) {
  return p->hpcc_min_rate > 0 ? p->hpcc_min_rate * (double)h->base_rtt / 8e12 : (double)mtu;
}

/* The pacing rate of window w: W / T, at most line rate (bit/s). */
ENG_INLINE double cc_hpcc_rate(const cc_state_t *s, const cc_hpcc_t *h, double w) {
  double rate = w * 8e12 / (double)h->base_rtt;
  return rate < s->line ? rate : s->line;
}

/* Hop a of telemetry against the previous ACK's hop b: the queue (the smaller
 * of the two, bytes), the bytes sent between them and the time between them
 * (ps). With hpcc_int_multi m the values are the ns-3 HPCC simulator's
 * (int-header.h): queues in 80m-byte units (17 bits), bytes sent in 128m-byte
 * units (20 bits), times in whole ns (24 bits), differences modulo those widths. */
ENG_INLINE void cc_hpcc_hop(const cc_params_t *p, const cc_int_hop_t *a, const cc_int_hop_t *b,
                            double *q, double *tx, double *dt) {
  if (p->int_multi <= 0) {
    *q = (double)(a->qlen < b->qlen ? a->qlen : b->qlen);
    *tx = (double)(uint32_t)(a->tx - b->tx);
    *dt = (double)(a->ts - b->ts);
    return;
  }
  uint64_t qu = 80 * (uint64_t)p->int_multi, bu = 128 * (uint64_t)p->int_multi;
  uint64_t qa = (a->qlen / qu) & 0x1ffff, qb = (b->qlen / qu) & 0x1ffff;
  uint64_t ta = ((uint64_t)a->tx_hi << 32 | a->tx) / bu,
           tb = ((uint64_t)b->tx_hi << 32 | b->tx) / bu;
  *q = (double)((qa < qb ? qa : qb) * qu);
  *tx = (double)(((ta - tb) & 0xfffff) * bu);
  *dt = (double)((((uint64_t)(a->ts / 1000) - (uint64_t)(b->ts / 1000)) & 0xffffff) * 1000);
}

/* The window for normalised inflight u, bounded to [wmin, line rate x T]; with
 * `update` it also becomes the reference window. The reference is bounded as
 * the window is: unbounded, it grows by eta/U per RTT while the telemetry shows
 * the path underused but something else (the flow's shared NIC) holds the flow
 * back, and must later shrink through every one of those factors before the
 * window falls below line rate again, starving any flow that joins it. */
ENG_INLINE double cc_hpcc_window(const cc_state_t *s, cc_hpcc_t *h, const cc_params_t *p, double u,
                                 int update, double wmin) {
  int mult = u >= p->eta || h->inc_stage >= p->max_stage;
  double w = mult ? h->wc / (u / p->eta) + h->w_ai : h->wc + h->w_ai;
  double wmax = s->line * (double)h->base_rtt / 8e12; /* bytes */
  w = w > wmax ? wmax : (w < wmin ? wmin : w);
  if (update) {
    h->inc_stage = mult ? 0 : h->inc_stage + 1;
    h->wc = w;
  }
  return w;
}

/* An ACK carrying `ack` (the next expected sequence) and telemetry `in`;
 * `nxt` is the sender's next sequence; `mtu` bounds the window below. With
 * hpcc_ns3, as the ns-3 HPCC simulator's sender (rdma-hw.cc HandleAckHp): the
 * first ACK records the telemetry and makes the reference wait for `nxt`;
 * without fast reaction an ACK that updates nothing keeps the previous
 * telemetry; a new rate moves the pending pacing time by the difference of the
 * last packet's serialisation at the two rates (ChangeRate). */
ENG_INLINE void cc_hpcc_on_ack(cc_state_t *s, cc_hpcc_t *h, const cc_params_t *p, uint32_t ack,
                               uint32_t nxt, const cc_int_t *in, int32_t mtu) {
  if (!in || in->nhop == 0) return;
  int update = ack > h->last_update;
  if (p->hpcc_ns3 && h->last_update == 0) {
    h->last = *in;
    h->last_update = nxt;
    return;
  }
  if (p->hpcc_ns3 && !update && !p->fast_react) return;
  if (h->last.nhop == in->nhop) {
    double u = 0, tau = 0, T = (double)h->base_rtt;
    for (uint32_t i = 0; i < in->nhop; i++) {
      double q, tx, dt;
      cc_hpcc_hop(p, &in->hop[i], &h->last.hop[i], &q, &tx, &dt);
      if (dt <= 0) continue;
      double bw = (double)in->hop[i].rate_mbps * 1e6 / 8e12; /* bytes per ps */
      double ui = q / (bw * T) + tx / dt / bw;
      if (ui > u) {
        u = ui;
        tau = dt;
      }
    }
    if (tau > T) tau = T;
    if (tau > 0) {
      h->u = (1.0 - tau / T) * h->u + tau / T * u;
      if (update || p->fast_react) {
        double old = cc_hpcc_rate(s, h, h->w);
        h->w = cc_hpcc_window(s, h, p, h->u, update, cc_hpcc_wmin(h, p, mtu));
        if (p->hpcc_ns3)
          s->next_send += cc_pace(h->last_wire, cc_hpcc_rate(s, h, h->w), p->clock_ns) -
                          cc_pace(h->last_wire, old, p->clock_ns);
      }
      if (update) h->last_update = nxt;
    }
  }
  h->last = *in;
}

#endif

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
#include "sim/eng_hd.h"

ENG_INLINE void cc_hpcc_init(const cc_state_t *s, cc_hpcc_t *h, const cc_params_t *p,
                             int64_t base_rtt) {
  h->base_rtt = base_rtt > 0 ? base_rtt : 1;
  h->w = h->wc = s->line * (double)h->base_rtt / 8e12; /* line-rate BDP, bytes */
  h->u = 1.0;
  double ai = p->hpcc_ai >= 0 ? p->hpcc_ai : 10e6 * s->line / 25e9;
  h->w_ai = ai * (double)h->base_rtt / 8e12;
  h->inc_stage = 0;
  h->last_update = 0;
  h->last.nhop = 0;
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

/* An ACK carrying `ack` (the next expected sequence) and telemetry `in` at
 * `now`; `nxt` is the sender's next sequence; `mtu` bounds the window below. */
ENG_INLINE void cc_hpcc_on_ack(const cc_state_t *s, cc_hpcc_t *h, const cc_params_t *p,
                               uint32_t ack, uint32_t nxt, const cc_int_t *in, int32_t mtu) {
  if (!in || in->nhop == 0) return;
  if (h->last.nhop == in->nhop) {
    double u = 0, tau = 0, T = (double)h->base_rtt;
    for (uint32_t i = 0; i < in->nhop; i++) {
      const cc_int_hop_t *a = &in->hop[i], *b = &h->last.hop[i];
      double dt = (double)(a->ts - b->ts);
      if (dt <= 0) continue;
      double bw = (double)a->rate_mbps * 1e6 / 8e12; /* bytes per ps */
      double q = (double)(a->qlen < b->qlen ? a->qlen : b->qlen);
      double tx = (double)(uint32_t)(a->tx - b->tx) / dt;
      double ui = q / (bw * T) + tx / bw;
      if (ui > u) {
        u = ui;
        tau = dt;
      }
    }
    if (tau > T) tau = T;
    if (tau > 0) {
      h->u = (1.0 - tau / T) * h->u + tau / T * u;
      int update = ack > h->last_update;
      if (update || p->fast_react) h->w = cc_hpcc_window(s, h, p, h->u, update, (double)mtu);
      if (update) h->last_update = nxt;
    }
  }
  h->last = *in;
}

#endif

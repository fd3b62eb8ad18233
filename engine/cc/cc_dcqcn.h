/* DCQCN (Zhu et al., SIGCOMM'15): the reaction point at the sender (rate cut on
 * CNP, alpha decay, fast recovery / additive / hyper increase driven by a timer
 * and a byte counter) and the notification point's CNP pacing at the receiver;
 * with dcqcn_ns3, the variant of the ns-3 HPCC simulator (CNPs as flags on
 * ACKs, periodic alpha and rate-decrease checks, no byte counter).
 * Floating point without FMA contraction: identical on CPU and GPU. */
#ifndef CC_DCQCN_H
#define CC_DCQCN_H

#include <math.h>

#include "cc/cc_types.h"
#include "base/base_hd.h"

ENG_INLINE void cc_dcqcn_init(const cc_state_t *s, cc_dcqcn_t *d, const cc_params_t *p) {
  (void)p;
  d->rc = d->rt = s->line;
  d->alpha = 1.0;
  d->t_alpha = d->t_inc = d->t_dec = INT64_MAX;
  d->last_cut = -1;
  d->bytes = 0;
  d->stage_t = d->stage_b = d->cnp_seen = d->cnp_cut = 0;
}

/* One increase event (timer or byte counter fired). */
ENG_INLINE void cc_dcqcn_increase(const cc_state_t *s, cc_dcqcn_t *d, const cc_params_t *p) {
  int32_t lo = d->stage_t < d->stage_b ? d->stage_t : d->stage_b;
  int32_t hi = d->stage_t < d->stage_b ? d->stage_b : d->stage_t;
  if (hi >= p->fast_steps) {
    if (lo >= p->fast_steps)
      d->rt += (double)(lo - p->fast_steps + 1) * p->rate_hai; /* hyper increase */
    else
      d->rt += p->rate_ai; /* additive increase */
    if (d->rt > s->line) d->rt = s->line;
  }
  d->rc = (d->rt + d->rc) / 2.0; /* every stage halves the distance to the target */
  if (d->rc > s->line) d->rc = s->line;
}

ENG_INLINE void cc_dcqcn_on_send(const cc_state_t *s, cc_dcqcn_t *d, const cc_params_t *p,
                                 int32_t wire) {
  if (p->dcqcn_ns3 || d->last_cut < 0 || d->rc >= s->line) return; /* nothing to recover */
  d->bytes += wire;
  if (d->bytes >= p->byte_counter) {
    d->bytes -= p->byte_counter;
    d->stage_b++;
    cc_dcqcn_increase(s, d, p);
  }
}

/* The alpha updates of [t_alpha, now), taken late. They read and write only
 * alpha and cnp_seen, which nothing else reads before a CNP, a rate-decrease
 * check or the update itself, so those call this first and the updates need
 * no events: a flow that saw a CNP ticks every dcqcn_alpha_timer (1 us by
 * default) for the rest of its life, and with many flows per host those
 * ticks were most of the events (tests/bench/RESULTS.md: the all-to-all). The same
 * multiplications in the same order as one event per update: the same bits.
 * Once alpha is 0 and no CNP waits, the updates change nothing: skipped. */
ENG_INLINE void cc_dcqcn_alpha_until(cc_dcqcn_t *d, const cc_params_t *p, int64_t now) {
  while (d->t_alpha < now) {
    if (d->alpha == 0.0 && !d->cnp_seen) {
      d->t_alpha += ((now - 1 - d->t_alpha) / p->alpha_timer + 1) * p->alpha_timer;
      return;
    }
    if (p->dcqcn_ns3)
      d->alpha = d->cnp_seen ? (1.0 - p->g) * d->alpha + p->g : (1.0 - p->g) * d->alpha;
    else if (!d->cnp_seen)
      d->alpha = (1.0 - p->g) * d->alpha;
    d->cnp_seen = 0;
    d->t_alpha += p->alpha_timer;
  }
}

/* dcqcn_ns3: a CNP (an ACK or NACK with the CNP flag) as the ns-3 HPCC
 * simulator's sender takes it (rdma-hw.cc cnp_received_mlx): it is noted for
 * the next alpha update and the next rate-decrease check; the first one sets
 * alpha to 1, the target to the current rate, and starts the alpha timer and
 * the decrease checks (1 ns after a whole interval, as ns-3 schedules them). */
ENG_INLINE void cc_dcqcn_ns3_cnp(cc_dcqcn_t *d, const cc_params_t *p, int64_t now) {
  d->cnp_seen = d->cnp_cut = 1;
  if (d->t_alpha != INT64_MAX) return;
  d->alpha = 1.0;
  d->cnp_seen = 0;
  d->rt = d->rc;
  d->t_alpha = now + p->alpha_timer;
  d->t_dec = now + p->dec_interval + 1000;
}

ENG_INLINE void cc_dcqcn_on_cnp(cc_dcqcn_t *d, const cc_params_t *p, int64_t now) {
  cc_dcqcn_alpha_until(d, p, now); /* an update at `now` comes after (a timer event) */
  if (p->dcqcn_ns3) {
    cc_dcqcn_ns3_cnp(d, p, now);
    return;
  }
  d->cnp_seen = 1;
  if (d->last_cut >= 0 && now - d->last_cut < p->dec_interval) return;
  if (p->clamp_target || d->stage_t > 0) d->rt = d->rc;
  d->rc = d->rc * (1.0 - d->alpha / 2.0);
  if (d->rc < p->min_rate) d->rc = p->min_rate;
  d->alpha = (1.0 - p->g) * d->alpha + p->g;
  d->last_cut = now;
  d->stage_t = d->stage_b = 0;
  d->bytes = 0;
  d->t_inc = now + p->inc_timer;
  if (d->t_alpha == INT64_MAX) d->t_alpha = now + p->alpha_timer;
  d->cnp_seen = 0; /* this CNP already raised alpha */
}

/* The next timer that needs an event: the increase or the decrease check
 * (alpha's updates are taken late, cc_dcqcn_alpha_until). */
ENG_INLINE int64_t cc_dcqcn_timer_at(const cc_dcqcn_t *d) {
  return d->t_dec < d->t_inc ? d->t_dec : d->t_inc;
}

/* dcqcn_ns3's rate-increase event (rdma-hw.cc RateIncEventMlx): by the stage
 * count since the last cut, fast recovery (below F), additive (at F) or hyper
 * (above F, R_HAI per event) increase of the target, then RC moves half way;
 * rates stay whole bit/s as ns-3's DataRate truncates them. */
ENG_INLINE void cc_dcqcn_ns3_increase(const cc_state_t *s, cc_dcqcn_t *d, const cc_params_t *p) {
  if (d->stage_t >= p->fast_steps) {
    d->rt += d->stage_t == p->fast_steps ? p->rate_ai : p->rate_hai;
    if (d->rt > s->line) d->rt = s->line;
  }
  d->rc = floor(d->rc / 2.0) + floor(d->rt / 2.0);
}

/* dcqcn_ns3's timers at `now`, in the order ns-3 runs them when they meet:
 * the increase timer (every dcqcn_rate_inc_timer from the last cut, forever),
 * the decrease check (every dcqcn_dec_interval: a cut if a CNP came since the
 * last check; the target follows the rate unless no increase came since the
 * last cut and dcqcn_clamp_target is off), the alpha update (every
 * dcqcn_alpha_timer: raised if a CNP came since the last one, else decayed). */
ENG_INLINE void cc_dcqcn_ns3_timer(const cc_state_t *s, cc_dcqcn_t *d, const cc_params_t *p,
                                   int64_t now) {
  if (d->t_inc == now) {
    d->t_inc = now + p->inc_timer;
    cc_dcqcn_ns3_increase(s, d, p);
    d->stage_t++;
  }
  if (d->t_dec == now) {
    d->t_dec = now + p->dec_interval;
    if (d->cnp_cut) {
      if (p->clamp_target || d->stage_t != 0) d->rt = d->rc;
      d->rc = floor(d->rc * (1.0 - d->alpha / 2.0));
      if (d->rc < p->min_rate) d->rc = p->min_rate;
      d->stage_t = 0;
      d->cnp_cut = 0;
      d->t_inc = now + p->inc_timer;
    }
  }
  cc_dcqcn_alpha_until(d, p, now + 1); /* the alpha update at `now`, last */
}

/* Timers due at `now`: alpha decays unless a CNP came since the last update;
 * the increase timer steps while the rate is below line rate. */
ENG_INLINE void cc_dcqcn_on_timer(const cc_state_t *s, cc_dcqcn_t *d, const cc_params_t *p,
                                  int64_t now) {
  if (p->dcqcn_ns3) {
    cc_dcqcn_alpha_until(d, p, now); /* the update at `now` comes after the checks */
    cc_dcqcn_ns3_timer(s, d, p, now);
    return;
  }
  cc_dcqcn_alpha_until(d, p, now + 1); /* the updates up to `now`, then the increase */
  if (d->t_inc == now) {
    d->stage_t++;
    cc_dcqcn_increase(s, d, p);
    d->t_inc = d->rc < s->line ? now + p->inc_timer : INT64_MAX;
  }
}

/* Notification point: a CE-marked packet arrived at `now`; `last` is when this
 * flow's receiver last sent a CNP (-1: never). */
ENG_INLINE int cc_dcqcn_np_send_cnp(const cc_params_t *p, int64_t last, int64_t now) {
  return !p->dcqcn_ns3 && (last < 0 || now - last >= p->cnp_interval);
}

#endif

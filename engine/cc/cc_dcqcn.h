/* DCQCN (Zhu et al., SIGCOMM'15): the reaction point at the sender (rate cut on
 * CNP, alpha decay, fast recovery / additive / hyper increase driven by a timer
 * and a byte counter) and the notification point's CNP pacing at the receiver.
 * Floating point without FMA contraction: identical on CPU and GPU. */
#ifndef CC_DCQCN_H
#define CC_DCQCN_H

#include "cc/cc_types.h"
#include "sim/eng_hd.h"

ENG_INLINE void cc_dcqcn_init(cc_state_t *s, const cc_params_t *p) {
  (void)p;
  s->rc = s->rt = s->line;
  s->alpha = 1.0;
  s->t_alpha = s->t_inc = INT64_MAX;
  s->last_cut = -1;
}

/* One increase event (timer or byte counter fired). */
ENG_INLINE void cc_dcqcn_increase(cc_state_t *s, const cc_params_t *p) {
  int32_t lo = s->stage_t < s->stage_b ? s->stage_t : s->stage_b;
  int32_t hi = s->stage_t < s->stage_b ? s->stage_b : s->stage_t;
  if (hi >= p->fast_steps) {
    if (lo >= p->fast_steps)
      s->rt += (double)(lo - p->fast_steps + 1) * p->rate_hai; /* hyper increase */
    else
      s->rt += p->rate_ai; /* additive increase */
    if (s->rt > s->line) s->rt = s->line;
  }
  s->rc = (s->rt + s->rc) / 2.0; /* every stage halves the distance to the target */
  if (s->rc > s->line) s->rc = s->line;
}

ENG_INLINE void cc_dcqcn_on_send(cc_state_t *s, const cc_params_t *p, int32_t wire) {
  if (s->last_cut < 0 || s->rc >= s->line) return; /* nothing to recover */
  s->bytes += wire;
  if (s->bytes >= p->byte_counter) {
    s->bytes -= p->byte_counter;
    s->stage_b++;
    cc_dcqcn_increase(s, p);
  }
}

ENG_INLINE void cc_dcqcn_on_cnp(cc_state_t *s, const cc_params_t *p, int64_t now) {
  s->cnp_seen = 1;
  if (s->last_cut >= 0 && now - s->last_cut < p->dec_interval) return;
  if (p->clamp_target || s->stage_t > 0) s->rt = s->rc;
  s->rc = s->rc * (1.0 - s->alpha / 2.0);
  if (s->rc < p->min_rate) s->rc = p->min_rate;
  s->alpha = (1.0 - p->g) * s->alpha + p->g;
  s->last_cut = now;
  s->stage_t = s->stage_b = 0;
  s->bytes = 0;
  s->t_inc = now + p->inc_timer;
  if (s->t_alpha == INT64_MAX) s->t_alpha = now + p->alpha_timer;
  s->cnp_seen = 0; /* this CNP already raised alpha */
}

ENG_INLINE int64_t cc_dcqcn_timer_at(const cc_state_t *s) {
  return s->t_alpha < s->t_inc ? s->t_alpha : s->t_inc;
}

/* Timers due at `now`: alpha decays unless a CNP came since the last update;
 * the increase timer steps while the rate is below line rate. */
ENG_INLINE void cc_dcqcn_on_timer(cc_state_t *s, const cc_params_t *p, int64_t now) {
  if (s->t_alpha == now) {
    if (!s->cnp_seen) s->alpha = (1.0 - p->g) * s->alpha;
    s->cnp_seen = 0;
    s->t_alpha = now + p->alpha_timer;
  }
  if (s->t_inc == now) {
    s->stage_t++;
    cc_dcqcn_increase(s, p);
    s->t_inc = s->rc < s->line ? now + p->inc_timer : INT64_MAX;
  }
}

/* Notification point: a CE-marked packet arrived at `now`; `last` is when this
 * flow's receiver last sent a CNP (-1: never). */
ENG_INLINE int cc_dcqcn_np_send_cnp(const cc_params_t *p, int64_t last, int64_t now) {
  return last < 0 || now - last >= p->cnp_interval;
}

#endif

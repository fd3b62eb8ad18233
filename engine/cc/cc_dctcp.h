/* DCTCP (Alizadeh et al., SIGCOMM'10) on RoCE-style per-packet ACKs: a window
 * in bytes; alpha = (1-g) alpha + g F once per window of data, F the fraction of
 * ACKs echoing CE; the first echo of a window cuts cwnd by alpha/2; otherwise
 * slow start below ssthresh and one MTU per window above it. */
#ifndef CC_DCTCP_H
#define CC_DCTCP_H

#include "cc/cc_types.h"
#include "sim/eng_hd.h"

ENG_INLINE void cc_dctcp_init(cc_state_t *s, const cc_params_t *p) {
  s->cwnd = (double)p->init_cwnd;
  s->ssthresh = 1e300;
  s->d_alpha = 1.0;
  s->win_end = 0;
}

/* `acked` packets newly acknowledged, `ece` the ACK's echo, `una` and `nxt` the
 * sender's sequence state after the ACK, `mtu` bytes. */
ENG_INLINE void cc_dctcp_on_ack(cc_state_t *s, const cc_params_t *p, uint32_t acked, int ece,
                                uint32_t una, uint32_t nxt, int32_t mtu) {
  s->acked += acked;
  if (ece) s->marked += acked;
  if (ece && !s->cut) {
    s->cwnd = s->cwnd * (1.0 - s->d_alpha / 2.0);
    if (s->cwnd < (double)mtu) s->cwnd = (double)mtu;
    s->ssthresh = s->cwnd;
    s->cut = 1;
  } else if (!ece && acked) {
    if (s->cwnd < s->ssthresh)
      s->cwnd += (double)acked * (double)mtu; /* slow start */
    else
      s->cwnd += (double)acked * (double)mtu * (double)mtu / s->cwnd; /* one MTU a window */
  }
  if (una >= s->win_end) { /* a window of data was acknowledged */
    double f = s->acked ? (double)s->marked / (double)s->acked : 0.0;
    s->d_alpha = (1.0 - p->dctcp_g) * s->d_alpha + p->dctcp_g * f;
    s->acked = s->marked = 0;
    s->cut = 0;
    s->win_end = nxt > una ? nxt : una + 1;
  }
}

#endif

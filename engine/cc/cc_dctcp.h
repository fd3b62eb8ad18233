/* DCTCP (Alizadeh et al., SIGCOMM'10) on RoCE-style per-packet ACKs: a window
 * in bytes; alpha = (1-g) alpha + g F once per window of data, F the fraction of
 * ACKs echoing CE; the first echo of a window cuts cwnd by alpha/2; otherwise
 * slow start below ssthresh and one MTU per window above it. */
#ifndef CC_DCTCP_H
#define CC_DCTCP_H

#include "cc/cc_types.h"
#include "base/base_hd.h"

ENG_INLINE void cc_dctcp_init(cc_dctcp_t *d, const cc_params_t *p) {
  d->cwnd = (double)p->init_cwnd;
  d->ssthresh = 1e300;
  d->alpha = 1.0;
  d->win_end = d->acked = d->marked = 0;
  d->cut = 0;
}

/* `acked` packets newly acknowledged, `ece` the ACK's echo, `una` and `nxt` the
 * sender's sequence state after the ACK, `mtu` bytes. */
ENG_INLINE void cc_dctcp_on_ack(cc_dctcp_t *d, const cc_params_t *p, uint32_t acked, int ece,
                                uint32_t una, uint32_t nxt, int32_t mtu) {
  d->acked += acked;
  if (ece) d->marked += acked;
  if (ece && !d->cut) {
    d->cwnd = d->cwnd * (1.0 - d->alpha / 2.0);
    if (d->cwnd < (double)mtu) d->cwnd = (double)mtu;
    d->ssthresh = d->cwnd;
    d->cut = 1;
  } else if (!ece && acked) {
    if (d->cwnd < d->ssthresh)
      d->cwnd += (double)acked * (double)mtu; /* slow start */
    else
      d->cwnd += (double)acked * (double)mtu * (double)mtu / d->cwnd; /* one MTU a window */
  }
  if (una >= d->win_end) { /* a window of data was acknowledged */
    double f = d->acked ? (double)d->marked / (double)d->acked : 0.0;
    d->alpha = (1.0 - p->dctcp_g) * d->alpha + p->dctcp_g * f;
    d->acked = d->marked = 0;
    d->cut = 0;
    d->win_end = nxt > una ? nxt : una + 1;
  }
}

#endif

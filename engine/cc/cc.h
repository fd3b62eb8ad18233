/* cc: per-flow congestion control behind one small interface, called by the
 * host systems of both backends. A flow's CC state is its cc_* columns; pacing
 * is generic (cc_rate > 0 spaces packets at that rate). `none` leaves cc_rate at
 * 0: line rate. DCQCN, HPCC and DCTCP plug in here, each in its own header,
 * without touching the others. */
#ifndef CC_H
#define CC_H

#include "sim/eng_net.h"

/* Earliest time (ps) flow f may put its next packet on the wire. */
ENG_INLINE int64_t cc_ready_at(const eng_cols_t *c, int32_t f) {
  return c->flow_cc_rate[f] > 0 ? c->flow_cc_next[f] : 0;
}

/* Flow f put a data packet of `wire` bytes on the wire at `now`. */
ENG_INLINE void cc_on_send(eng_cols_t *c, int32_t f, int64_t now, int32_t wire) {
  if (c->flow_cc_rate[f] > 0) c->flow_cc_next[f] = now + eng_ser(wire, c->flow_cc_rate[f]);
}

/* An ACK or NACK of flow f reached its sender at `now`: `ece` echoes a CE mark,
 * `acked` counts newly acknowledged packets. */
ENG_INLINE void cc_on_ack(eng_cols_t *c, int32_t f, int64_t now, int ece, uint32_t acked) {
  switch (c->exp_cc[c->flow_exp[f]]) {
  case ENG_CC_NONE:
  default:
    (void)now;
    (void)ece;
    (void)acked;
    break;
  }
}

#endif

/* A relay's buffer (docs/model.md, PFC): admission of packets to class queues,
 * the shared buffer with reserves and headroom, the PFC threshold, PAUSE and
 * RESUME per ingress port and class, and frames on the wire. */
#ifndef ENG_MMU_H
#define ENG_MMU_H

#include "sim/eng_net.h"

/* Whether a relayed packet of this type joins its flow's class queue (data,
 * and ACK/NACK with ack_with_data); otherwise the control queue. */
ENG_INLINE int eng_in_class(const eng_cols_t *c, int32_t e, uint8_t type) {
  return type == ENG_PKT_DATA ||
         (c->exp_ack_with_data[e] && (type == ENG_PKT_ACK || type == ENG_PKT_NACK));
}

/* Bytes of an ingress class's `in` bytes that use the shared buffer. */
ENG_INLINE int64_t eng_shared_of(const eng_cols_t *c, int32_t e, int64_t in) {
  int64_t v = in - c->exp_pfc_reserve[e];
  return v > 0 ? v : 0;
}

/* PFC threshold of ingress port ip (global) of node x now (bytes). */
ENG_INLINE int64_t eng_xoff(const eng_cols_t *c, int32_t e, int32_t x, int32_t ip) {
  if (c->exp_pfc_xoff[e] > 0) return c->exp_pfc_xoff[e];
  int64_t free_b = c->exp_buffer[e] - c->node[x].mmu_fixed - c->node[x].shared;
  return free_b > 0 ? (free_b * c->port[ip].pfc_a16) >> 16 : 0;
}

/* Whether ingress port ip (global) has a PAUSE of class cl outstanding. */
ENG_INLINE int eng_pause_sent(const eng_cols_t *c, int32_t ip, int32_t cl) {
  return (c->port[ip].cls_psent >> cl) & 1u;
}

/* Sends a PAUSE (1) or RESUME (0) frame of class cl upstream on port p (global)
 * of k->x. With pfc_frame_bytes the frame goes before any queued packet but
 * after the one on the wire, and holds the port for its serialisation. */
ENG_INLINE void eng_pfc_send(eng_ctx_t *k, int32_t p, int32_t cl, uint8_t pause) {
  eng_cols_t *c = k->c;
  uint32_t tail = c->port[p].pfc_tail;
  if (tail - c->port[p].pfc_hsnap > c->port[p].pfc_mask) {
    eng_fail(k, ENG_FAIL_PFC_RING);
    return;
  }
  int64_t at = k->now;
  int32_t bytes = c->exp_pfc_frame_bytes[k->e];
  if (bytes > 0) {
    int64_t ser = base_ser_clock(bytes, (uint64_t)c->port[p].rate, c->exp_ser_floor_ns[k->e]);
    if (c->port[p].busy_until > at) at = c->port[p].busy_until;
    at += ser;
    c->port[p].busy_until = at;
    c->port[p].busy_ps += ser;
    c->port[p].tx_bytes += (uint64_t)bytes;
    k->pfc_busy = 1;
  }
  at += c->port[p].delay;
  int32_t slot = c->port[p].pfc_off + (int32_t)(tail & c->port[p].pfc_mask);
  c->pfc_t[slot] = at;
  c->pfc_pause[slot] = (uint8_t)(cl * 2 + pause);
  c->port[p].pfc_tail = tail + 1;
  c->port[p].cls_psent =
      (uint8_t)(pause ? c->port[p].cls_psent | 1u << cl : c->port[p].cls_psent & ~(1u << cl));
  if (pause) c->node[k->x].c_pauses++;
  if (at < k->emit_min) k->emit_min = at;
}

/* The shared buffer's bytes of ingress port ip's (global) classes. In a
 * certified window nothing reads the node's count (`shared`: only the PFC
 * threshold and the certificate do), and its changes telescope per ingress
 * class (eng_shared_of of the new count less of the old), so the window's end
 * may settle it at once: plus this sum over the node's ports at the end, less
 * at the start (k->settle; eng_cuda_pool.cuh). */
ENG_INLINE int64_t eng_shared_port(const eng_cols_t *c, int32_t e, int32_t ip) {
  int64_t s = 0;
  for (int32_t cl = 0; cl < c->exp_n_cls[e]; cl++)
    s += eng_shared_of(c, e, c->cls[eng_cls(c, ip, cl)].in_bytes);
  return s;
}

/* In a window that settles the shared buffer's count (k->settle): `w` bytes
 * (negative: leaving) join ingress class row q's bytes and the buffer's, by
 * atomics whose answers nobody waits for. */
ENG_INLINE void eng_settled_bytes(eng_ctx_t *k, int32_t q, int64_t w) {
  eng_node_add_i64(k->lock, &k->c->cls[q].in_bytes, w);
  eng_node_add_i64(k->lock, &k->c->node[k->x].buf_used, w);
}

/* An admitted packet's `w` bytes join ingress class row q's bytes, the
 * shared buffer's beyond its reserve (unless the window settles it), and the
 * buffer's. */
ENG_INLINE void eng_admit_shared(eng_ctx_t *k, int32_t q, int64_t w) {
  eng_cols_t *c = k->c;
  if (k->settle) {
    eng_settled_bytes(k, q, w);
    return;
  }
  /* `in` read here: with k->lock, other egresses may change it meanwhile */
  int64_t in = eng_node_add_i64(k->lock, &c->cls[q].in_bytes, w);
  eng_node_add_i64(k->lock, &c->node[k->x].shared,
                   eng_shared_of(c, k->e, in + w) - eng_shared_of(c, k->e, in));
  eng_node_add_i64(k->lock, &c->node[k->x].buf_used, w);
}

/* A packet of `w` bytes of class cl from ingress ip (global) asks to be
 * queued at node k->x. Without headroom (pfc_headroom_bdp < 0) it fits if the
 * buffer has room; with headroom, unless both the ingress class's headroom
 * and the shared room under the threshold are exceeded, and bytes beyond the
 * threshold go to headroom. Returns 0 (dropped) or 1 (accounted). */
ENG_INLINE int eng_admit(eng_ctx_t *k, int32_t ip, int32_t cl, int64_t w) {
  eng_cols_t *c = k->c;
  int32_t x = k->x, e = k->e, q = eng_cls(c, ip, cl);
  int64_t in = c->cls[q].in_bytes, sh = eng_shared_of(c, e, in);
  if (c->exp_pfc_headroom[e] < 0) {
    if (c->node[x].buf_used + w > c->exp_buffer[e]) return 0;
  } else {
    int64_t xoff = eng_xoff(c, e, x, ip);
    if (w + c->cls[q].hdrm > c->port[ip].hdrm_cap && w + sh > xoff) return 0;
    if (in + w - c->exp_pfc_reserve[e] > xoff) { /* beyond the threshold: headroom */
      c->cls[q].hdrm += w; /* (never with k->lock: eng_phase_ok) */
      c->port[ip].cls_hdrm |= (uint8_t)(1u << cl);
      eng_node_add_i64(k->lock, &c->node[x].buf_used, w);
      return 1;
    }
  }
  eng_admit_shared(k, q, w);
  return 1;
}

/* After an admission from ingress ip (global), class cl: PAUSE when headroom
 * is in use or the class's shared bytes reach the threshold. */
ENG_INLINE void eng_pause_check(eng_ctx_t *k, int32_t ip, int32_t cl) {
  eng_cols_t *c = k->c;
  int32_t q = eng_cls(c, ip, cl);
  if (!c->exp_pfc[k->e] || eng_pause_sent(c, ip, cl)) return;
  if (c->cls[q].hdrm > 0 ||
      eng_shared_of(c, k->e, c->cls[q].in_bytes) >= eng_xoff(c, k->e, k->x, ip))
    eng_pfc_send(k, ip, cl, 1);
}

/* A packet of `w` bytes of class cl from ingress ip (global) left node k->x:
 * its bytes leave headroom first, then the ingress class's count (and the
 * shared buffer's, unless the window settles it); RESUME when no headroom is
 * in use and the shared bytes are 0 or pfc_resume below the threshold. */
ENG_INLINE void eng_release(eng_ctx_t *k, int32_t ip, int32_t cl, int64_t w) {
  eng_cols_t *c = k->c;
  int32_t x = k->x, e = k->e, q = eng_cls(c, ip, cl);
  if (k->settle) { /* certified: no headroom in use, no PAUSE outstanding */
    eng_settled_bytes(k, q, -w);
    return;
  }
  int64_t from_h = c->cls[q].hdrm < w ? c->cls[q].hdrm : w; /* 0 with k->lock */
  if (from_h && (c->cls[q].hdrm -= from_h) == 0) c->port[ip].cls_hdrm &= (uint8_t) ~(1u << cl);
  int64_t in = eng_node_add_i64(k->lock, &c->cls[q].in_bytes, -(w - from_h));
  int64_t rest = in - (w - from_h);
  eng_node_add_i64(k->lock, &c->node[x].shared,
                   eng_shared_of(c, e, rest) - eng_shared_of(c, e, in));
  eng_node_add_i64(k->lock, &c->node[x].buf_used, -w);
  if (!c->exp_pfc[e] || !eng_pause_sent(c, ip, cl) || c->cls[q].hdrm > 0) return;
  int64_t sh = eng_shared_of(c, e, rest);
  if (sh == 0 || sh + c->exp_pfc_resume[e] <= eng_xoff(c, e, x, ip)) eng_pfc_send(k, ip, cl, 0);
}

#endif

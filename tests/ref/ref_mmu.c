/* ref: the relays' buffers of docs/model.md (PFC): class queues, the shared
 * buffer with reserves and headroom, the threshold of each ingress port, PAUSE
 * and RESUME per ingress and class, frames that take transmission time. */
#include "ref/ref_int.h"

/* The rate of the first host's first link (pfc_alpha_by_rate). */
static int64_t nic_rate(const ref_sim_t *s) {
  for (int32_t x = 0; x < s->t->n_nodes; x++)
    if (!s->t->is_switch[x] && s->nodes[x].n_ports > 0) return s->ports[s->nodes[x].port0].rate;
  return 0;
}

void ref_mmu_init(ref_sim_t *s) {
  const eng_params_t *p = s->p;
  int64_t nic = nic_rate(s);
  for (int32_t x = 0; x < s->t->n_nodes; x++) {
    ref_node_t *nd = &s->nodes[x];
    nd->held = 0;
    for (int32_t lp = 0; lp < nd->n_ports; lp++) {
      ref_port_t *pt = &s->ports[nd->port0 + lp];
      pt->rr = s->n_cls - 1;
      /* one-way bandwidth-delay product in bytes, the delay in whole ns */
      int64_t bdp = (int64_t)((__int128)pt->rate * (pt->delay / 1000) / 8000000000LL);
      pt->hdrm_cap = p->pfc_headroom > 0 ? (int64_t)(p->pfc_headroom * (double)bdp) : 0;
      pt->alpha16 = p->pfc_a16;
      for (int64_t r = pt->rate; p->pfc_alpha_by_rate && r > nic && pt->alpha16 < 65536; r /= 2)
        pt->alpha16 *= 2;
      nd->held += pt->hdrm_cap + p->pfc_reserve;
    }
  }
}

int32_t ref_class(const ref_sim_t *s, int32_t flow) {
  return s->p->classes ? (int32_t)s->g->t[flow].prio : 0;
}

int ref_in_class(const ref_sim_t *s, int32_t kind) {
  return kind == REF_DATA || (s->p->ack_with_data && (kind == REF_ACK || kind == REF_NACK));
}

/* Bytes of `in` above the reserve. */
static int64_t above_reserve(const ref_sim_t *s, int64_t in) {
  return in > s->p->pfc_reserve ? in - s->p->pfc_reserve : 0;
}

static int64_t threshold(const ref_sim_t *s, int32_t x, const ref_port_t *in) {
  if (s->p->pfc_xoff > 0) return s->p->pfc_xoff;
  int64_t room = s->p->buffer - s->nodes[x].held - s->nodes[x].shared;
  if (room <= 0) return 0;
  return (int64_t)(((__int128)room * in->alpha16) / 65536);
}

/* A PAUSE (1) or RESUME (0) of class cl leaves x by port lp at t: after the
 * packet on the wire and taking its serialisation with pfc_frame_bytes. */
static void send_pfc(ref_sim_t *s, int32_t x, int32_t lp, int32_t cl, int pause, int64_t t) {
  ref_port_t *pt = &s->ports[s->nodes[x].port0 + lp];
  pt->pause_out[cl] = (uint8_t)pause;
  if (pause) s->res->pfc_pauses++;
  int64_t leave = t;
  if (s->p->pfc_frame_bytes > 0) {
    if (pt->busy_until > leave) leave = pt->busy_until;
    leave += ref_ser_at(s->p, s->p->pfc_frame_bytes, pt->rate);
    pt->busy_until = leave;
    pt->tx_bytes += (uint64_t)s->p->pfc_frame_bytes;
    ref_kick(s, x, lp, t);
  }
  ref_push(s, leave + pt->delay, pt->peer, REF_EV_PFC, pt->peer_port, cl * 2 + pause, NULL);
}

int ref_admit(ref_sim_t *s, int32_t x, int32_t i, int32_t cl, int64_t w, int64_t t) {
  ref_node_t *nd = &s->nodes[x];
  ref_port_t *in = &s->ports[nd->port0 + i];
  int64_t th = threshold(s, x, in), used = above_reserve(s, in->in_bytes[cl]);
  int headroom = s->p->pfc_headroom >= 0;
  if (!headroom && nd->buf_used + w > s->p->buffer) return 0;
  if (headroom && in->hdrm_bytes[cl] + w > in->hdrm_cap && used + w > th) return 0;
  if (headroom && in->in_bytes[cl] + w - s->p->pfc_reserve > th) {
    in->hdrm_bytes[cl] += w; /* beyond the threshold: headroom */
  } else {
    in->in_bytes[cl] += w;
    nd->shared += above_reserve(s, in->in_bytes[cl]) - used;
  }
  nd->buf_used += w;
  if (s->p->pfc && !in->pause_out[cl] &&
      (in->hdrm_bytes[cl] > 0 || above_reserve(s, in->in_bytes[cl]) >= threshold(s, x, in)))
    send_pfc(s, x, i, cl, 1, t);
  return 1;
}

void ref_release(ref_sim_t *s, int32_t x, int32_t i, int32_t cl, int64_t w, int64_t t) {
  ref_node_t *nd = &s->nodes[x];
  ref_port_t *in = &s->ports[nd->port0 + i];
  int64_t h = in->hdrm_bytes[cl] < w ? in->hdrm_bytes[cl] : w; /* headroom first */
  int64_t before = above_reserve(s, in->in_bytes[cl]);
  in->hdrm_bytes[cl] -= h;
  in->in_bytes[cl] -= w - h;
  nd->shared -= before - above_reserve(s, in->in_bytes[cl]);
  nd->buf_used -= w;
  if (!s->p->pfc || !in->pause_out[cl] || in->hdrm_bytes[cl] != 0) return;
  int64_t used = above_reserve(s, in->in_bytes[cl]);
  if (used == 0 || used + s->p->pfc_resume <= threshold(s, x, in)) send_pfc(s, x, i, cl, 0, t);
}

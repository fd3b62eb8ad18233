/* Set-up of the relays' buffers (docs/model.md, PFC): class queues of every
 * port, each ingress port's headroom and PFC threshold factor, each node's
 * reserved bytes. */
#include "sim/eng_world_cols.h"

/* Class queues per port of an experiment with these parameters. */
int32_t eng_build_n_cls(const eng_params_t *p) {
  return p->classes ? ENG_CLASSES : 1;
}

/* The NIC rate (bit/s): the first host's first link, as the ns-3 HPCC
 * simulator takes it (scratch/third.cc get_nic_rate); 0 without hosts. */
static int64_t mmu_nic_rate(const topo_t *t) {
  for (int32_t i = 0; i < t->n_nodes; i++)
    if (!t->is_switch[i] && t->port_off[i + 1] > t->port_off[i])
      return t->links[t->ports[t->port_off[i]].link].rate_bps;
  return 0;
}

void eng_build_buffers(eng_cols_t *c, const topo_t *t, const eng_params_t *p, int32_t node0,
                       int32_t port0, int32_t *cls_next) {
  int32_t n = eng_build_n_cls(p);
  int64_t nic = mmu_nic_rate(t);
  for (int32_t q = 0; q < 2 * t->n_links; q++) {
    const topo_link_t *l = &t->links[t->ports[q].link];
    int32_t pr = port0 + q;
    c->port[pr].cls_off = *cls_next;
    c->port[pr].rr_cls = n - 1;
    for (int32_t k = 0; k < n; k++)
      c->cls[*cls_next + k].dq_head = c->cls[*cls_next + k].dq_tail = -1;
    *cls_next += n;
    /* ns-3: rate x delay / 8 bytes in whole ns, times the factor (ConfigHdrm) */
    int64_t bdp =
        (int64_t)((uint64_t)l->rate_bps * (uint64_t)(l->delay_ps / 1000) / 8 / 1000000000ULL);
    c->port[pr].hdrm_cap = p->pfc_headroom > 0 ? (int64_t)(p->pfc_headroom * (double)bdp) : 0;
    /* ns-3 halves pfc_a_shift per halving of the rate down to the NIC's */
    int64_t a = p->pfc_a16, r = l->rate_bps;
    while (p->pfc_alpha_by_rate && r > nic && a < 65536) {
      a *= 2;
      r /= 2;
    }
    c->port[pr].pfc_a16 = a;
  }
  for (int32_t i = 0; i < t->n_nodes; i++) {
    int64_t fixed = 0;
    for (int32_t q = t->port_off[i]; q < t->port_off[i + 1]; q++)
      fixed += c->port[port0 + q].hdrm_cap + p->pfc_reserve;
    c->node[node0 + i].mmu_fixed = fixed;
  }
}

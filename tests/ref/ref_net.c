/* ref: set-up of nodes, ports and flows from the topology, routing (docs/model.md
 * "Routing"), serialisation time and ECN threshold resolution. */
#include <math.h>
#include <string.h>

#include "ref/ref_int.h"
#include "sim/eng_standalone.h"
#include "sim/eng_hash.h"

int64_t ref_ser(int64_t wire_bytes, int64_t rate_bps) {
  uint64_t num = (uint64_t)wire_bytes * 8000000000000ULL; /* bits * ps/s; w < 2^20 fits */
  uint64_t r = (uint64_t)rate_bps;
  return (int64_t)(num / r + (num % r != 0));
}

int ref_ecn_for(const eng_params_t *p, int64_t rate_bps, int64_t *kmin, int64_t *kmax,
                double *pmax) {
  const eng_ecn_row_t *row = NULL;
  for (int k = 0; k < p->n_ecn_rows; k++) { /* largest gbps not above the rate */
    const eng_ecn_row_t *c = &p->ecn_table[k];
    if (c->gbps * 1000000000LL <= rate_bps && (!row || c->gbps > row->gbps)) row = c;
  }
  const eng_ecn_row_t *low = NULL; /* none: the lowest row */
  for (int k = 0; k < p->n_ecn_rows; k++)
    if (!low || p->ecn_table[k].gbps < low->gbps) low = &p->ecn_table[k];
  if (!row) row = low;
  int need = p->ecn_kmin < 0 || p->ecn_kmax < 0 || p->ecn_pmax < 0;
  if (need && !row) return -1;
  *kmin = p->ecn_kmin >= 0 ? p->ecn_kmin : row->kmin;
  *kmax = p->ecn_kmax >= 0 ? p->ecn_kmax : row->kmax;
  *pmax = p->ecn_pmax >= 0 ? p->ecn_pmax : row->pmax;
  return 0;
}

int32_t ref_wire(const ref_sim_t *s, int32_t flow, int64_t psn) {
  uint64_t mtu = (uint64_t)s->p->mtu, left = s->fl->f[flow].bytes - (uint64_t)psn * mtu;
  return (int32_t)((left < mtu ? left : mtu) + (uint64_t)s->p->header);
}

/* Egress local port of node x for pkt (docs/model.md "Routing"). */
int32_t ref_route(ref_sim_t *s, int32_t x, const ref_pkt_t *pkt, int relay, int64_t now) {
  const topo_t *t = s->t;
  const trf_flow_t *f = &s->fl->f[pkt->flow];
  int data = pkt->kind == REF_DATA;
  int32_t d = data ? f->dst : f->src; /* the host the packet heads for */
  if (s->nodes[x].n_ports == 1) return 0;
  int32_t g = t->routes.host_group[d];
  if (t->routes.host_edge_port[d] >= 0 && t->routes.group_node[g] == x)
    return t->routes.host_edge_port[d];
  int n = topo_next_hops(t, x, d, s->hops, s->max_ports);
  REF_CHECK(n > 0);
  uint32_t h;
  if (s->p->lb != ENG_LB_SPRAY)
    h = data ? eng_hash_ecmp(x, f->src, f->dst, f->sport, f->dport)
             : eng_hash_ecmp(x, f->dst, f->src, f->dport, f->sport);
  else
    h = eng_hash_spray(x, (uint32_t)pkt->flow, (uint32_t)pkt->seq, data ? 0u : 1u);
  if (s->p->lb != ENG_LB_ADAPTIVE || !relay) return s->hops[h % (uint32_t)n];
  /* Flowlets (model.md): slot h mod ENG_FLOWLETS of this relay's table. */
  ref_flowlet_t *fl = &s->nodes[x].flowlets[h % ENG_FLOWLETS];
  int64_t key = 2 * (int64_t)pkt->flow + (data ? 0 : 1);
  if (fl->used && fl->key == key && now - fl->last <= s->p->flowlet_gap) {
    fl->last = now;
    return fl->port;
  }
  /* A new flowlet: the candidate with the least data queued; ties go to the
   * first in the order h, h+1, ... (mod n). */
  int32_t best = -1;
  for (int j = 0; j < n; j++) {
    int32_t lp = s->hops[(h + (uint32_t)j) % (uint32_t)n];
    if (best < 0 || s->ports[s->nodes[x].port0 + lp].q < s->ports[s->nodes[x].port0 + best].q)
      best = lp;
  }
  *fl = (ref_flowlet_t){.used = 1, .key = key, .last = now, .port = best};
  return best;
}

static int init_ports(ref_sim_t *s) {
  const topo_t *t = s->t;
  const eng_params_t *p = s->p;
  int32_t np = t->port_off[t->n_nodes];
  s->ports = calloc((size_t)np ? (size_t)np : 1, sizeof *s->ports);
  if (!s->ports) return -1;
  for (int32_t g = 0; g < np; g++) {
    ref_port_t *pt = &s->ports[g];
    const topo_port_t *tp = &t->ports[g];
    const topo_link_t *l = &t->links[tp->link];
    pt->rate = l->rate_bps;
    pt->delay = l->delay_ps;
    double e = floor(l->error_rate * 4294967296.0);
    pt->loss_q32 = l->error_rate > 0 ? (uint64_t)e : 0;
    pt->peer = tp->peer;
    pt->peer_port = tp->peer_port;
    if (p->ecn) {
      double pmax = 0;
      pt->ecn_ok = ref_ecn_for(p, pt->rate, &pt->kmin, &pt->kmax, &pmax) == 0;
      double q = floor(pmax * 4294967296.0);
      pt->pmax_q32 = !pt->ecn_ok || q <= 0 ? 0 : q >= 4294967296.0 ? 1ULL << 32 : (uint64_t)q;
    }
  }
  return 0;
}

static int init_nodes(ref_sim_t *s) {
  const topo_t *t = s->t;
  const eng_params_t *p = s->p;
  s->nodes = calloc((size_t)t->n_nodes, sizeof *s->nodes);
  if (!s->nodes) return -1;
  int64_t wmax = (int64_t)p->mtu + p->header;
  for (int32_t x = 0; x < t->n_nodes; x++) {
    ref_node_t *nd = &s->nodes[x];
    nd->port0 = t->port_off[x];
    nd->n_ports = t->port_off[x + 1] - t->port_off[x];
    if (nd->n_ports > s->max_ports) s->max_ports = nd->n_ports;
    nd->is_switch = t->is_switch[x];
    nd->relay = t->forwards[x] && !t->is_switch[x];
    if (t->forwards[x] || t->is_switch[x])
      nd->pool_free =
          p->pool_pkts > 0 ? p->pool_pkts : (p->buffer + wmax - 1) / wmax + 8 * nd->n_ports;
    if (!nd->is_switch) nd->host_free = p->host_slots;
  }
  return 0;
}

static int init_flows(ref_sim_t *s) {
  const topo_t *t = s->t;
  const trf_flows_t *fl = s->fl;
  s->flows = calloc(fl->n ? (size_t)fl->n : 1, sizeof *s->flows);
  if (!s->flows) return -1;
  for (int32_t i = 0; i < fl->n; i++) { /* count, then fill each host's ranks */
    const trf_flow_t *f = &fl->f[i];
    if (f->src < 0 || f->src >= t->n_nodes || f->dst < 0 || f->dst >= t->n_nodes ||
        t->is_switch[f->src] || t->is_switch[f->dst] || f->src == f->dst || f->bytes == 0) {
      fprintf(stderr, "ref: flow %d (line %d): bad endpoints or size\n", i, f->line);
      return -1;
    }
    s->nodes[f->src].n_flows++;
  }
  for (int32_t x = 0; x < t->n_nodes; x++) {
    ref_node_t *nd = &s->nodes[x];
    nd->flows = calloc(nd->n_flows ? (size_t)nd->n_flows : 1, sizeof *nd->flows);
    if (!nd->flows) return -1;
    nd->rr = nd->n_flows - 1;
    nd->n_flows = 0;
  }
  for (int32_t i = 0; i < fl->n; i++) {
    ref_node_t *nd = &s->nodes[fl->f[i].src];
    nd->flows[nd->n_flows++] = i;
  }
  /* A host ranks its flows by start time, then file order (insertion sort). */
  for (int32_t x = 0; x < t->n_nodes; x++) {
    ref_node_t *nd = &s->nodes[x];
    for (int32_t a = 1; a < nd->n_flows; a++)
      for (int32_t b = a; b > 0 && fl->f[nd->flows[b - 1]].start_ps > fl->f[nd->flows[b]].start_ps;
           b--) {
        int32_t tmp = nd->flows[b];
        nd->flows[b] = nd->flows[b - 1];
        nd->flows[b - 1] = tmp;
      }
    for (int32_t r = 0; r < nd->n_flows; r++)
      s->flows[nd->flows[r]].rank = r;
  }
  for (int32_t i = 0; i < fl->n; i++) {
    ref_flow_t *fs = &s->flows[i];
    fs->n = (int64_t)((fl->f[i].bytes + (uint64_t)s->p->mtu - 1) / (uint64_t)s->p->mtu);
    fs->rto_at = -1;
    fs->nack_for = -1;
    fs->cnp_last = -1;
    fs->held = s->p->reorder ? calloc((size_t)fs->n + 1, 1) : NULL;
    if (s->p->reorder && !fs->held) return -1;
    int64_t line = 0; /* the sender's fastest port */
    for (int32_t q = t->port_off[fl->f[i].src]; q < t->port_off[fl->f[i].src + 1]; q++)
      if (t->links[t->ports[q].link].rate_bps > line) line = t->links[t->ports[q].link].rate_bps;
    cc_init(&fs->cc, &s->p->ccp, (double)line,
            cc_needs_rtt(&s->p->ccp) ? eng_base_rtt(t, s->p, &fl->f[i]) : 0);
  }
  return 0;
}

int ref_net_init(ref_sim_t *s) {
  if (init_ports(s) || init_nodes(s) || init_flows(s)) return -1;
  s->hops = calloc((size_t)s->max_ports + 1, sizeof *s->hops);
  return s->hops ? 0 : -1;
}

void ref_net_free(ref_sim_t *s) {
  if (s->ports)
    for (int32_t g = 0; g < s->t->port_off[s->t->n_nodes]; g++) {
      ref_fifo_free(&s->ports[g].ctrl);
      ref_fifo_free(&s->ports[g].data);
    }
  if (s->nodes)
    for (int32_t x = 0; x < s->t->n_nodes; x++)
      free(s->nodes[x].flows);
  if (s->flows)
    for (int32_t i = 0; i < s->fl->n; i++)
      free(s->flows[i].held);
  free(s->ports);
  free(s->nodes);
  free(s->flows);
  free(s->hops);
}

/* ref: set-up of nodes, ports and flows from the topology and the task graph,
 * the choice among next hops (docs/model.md "Routing"), serialisation time and
 * ECN threshold resolution. */
#include <math.h>
#include <string.h>

#include "ref/ref_int.h"
#include "sim/eng_hash.h"

int64_t ref_ser(int64_t wire_bytes, int64_t rate_bps) {
  uint64_t num = (uint64_t)wire_bytes * 8000000000000ULL; /* bits * ps/s; w < 2^20 fits */
  uint64_t r = (uint64_t)rate_bps;
  return (int64_t)(num / r + (num % r != 0));
}

int64_t ref_ser_at(const eng_params_t *p, int64_t wire_bytes, int64_t rate_bps) {
  if (!p->ser_floor_ns) return ref_ser(wire_bytes, rate_bps);
  /* ns-3: the double wire * 8 / rate seconds, truncated to whole ns. As the
   * double is mant * 2^(e - 53) exactly, its ns are floor(mant * 10^9 / 2^(53 - e)). */
  int e;
  double m = frexp((double)(wire_bytes * 8) / (double)rate_bps, &e);
  unsigned __int128 v = (unsigned __int128)(uint64_t)ldexp(m, 53) * 1000000000u;
  int shift = 53 - e;
  int64_t ns = shift >= 128 ? 0 : (int64_t)(v >> shift);
  return (ns > 0 ? ns : 1) * 1000;
}

/* MurmurHash3 x86_32 of `len` bytes (switch-node.cc EcmpHash). */
static uint32_t murmur3(const uint8_t *key, int len, uint32_t seed) {
  uint32_t h = seed;
  for (int i = 0; i + 4 <= len; i += 4) {
    uint32_t k = (uint32_t)key[i] | (uint32_t)key[i + 1] << 8 | (uint32_t)key[i + 2] << 16 |
                 (uint32_t)key[i + 3] << 24;
    k *= 0xcc9e2d51u;
    k = (k << 15) | (k >> 17);
    k *= 0x1b873593u;
    h ^= k;
    h = (h << 13) | (h >> 19);
    h += (h << 2) + 0xe6546b64u;
  }
  h ^= (uint32_t)len;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

uint32_t ref_hash_ecmp(const eng_params_t *p, int32_t x, int32_t s, int32_t d, uint32_t sp,
                       uint32_t dp) {
  if (!p->ecmp_ns3) return eng_hash_ecmp(x, s, d, sp, dp);
  /* ns-3's header words: 11.0.x.y addresses and sport | dport << 16 */
  uint32_t w[3] = {0x0b000001u + ((uint32_t)s / 256 << 16) + ((uint32_t)s % 256 << 8),
                   0x0b000001u + ((uint32_t)d / 256 << 16) + ((uint32_t)d % 256 << 8),
                   (sp & 0xffffu) | (dp & 0xffffu) << 16};
  uint8_t key[12];
  for (int i = 0; i < 12; i++)
    key[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
  return murmur3(key, 12, (uint32_t)x);
}

uint32_t ref_ecmp_index(const eng_params_t *p, uint32_t h, uint32_t n) {
  return p->ecmp_ns3 ? n - 1 - h % n : h % n; /* ns-3 lists next hops by descending port */
}

int ref_ecn_for(const eng_params_t *p, int64_t rate_bps, int64_t *kmin, int64_t *kmax,
                double *pmax) {
  const eng_ecn_row_t *row = NULL;
  for (int k = 0; k < p->ecn_table.n; k++) { /* largest gbps not above the rate */
    const eng_ecn_row_t *c = &p->ecn_table.row[k];
    if (c->gbps * 1000000000LL <= rate_bps && (!row || c->gbps > row->gbps)) row = c;
  }
  const eng_ecn_row_t *low = NULL; /* none: the lowest row */
  for (int k = 0; k < p->ecn_table.n; k++)
    if (!low || p->ecn_table.row[k].gbps < low->gbps) low = &p->ecn_table.row[k];
  if (!row) row = low;
  int need = p->ecn_kmin < 0 || p->ecn_kmax < 0 || p->ecn_pmax < 0;
  if (need && !row) return -1;
  *kmin = p->ecn_kmin >= 0 ? p->ecn_kmin : row->kmin;
  *kmax = p->ecn_kmax >= 0 ? p->ecn_kmax : row->kmax;
  *pmax = p->ecn_pmax >= 0 ? p->ecn_pmax : row->pmax;
  return 0;
}

int32_t ref_wire(const ref_sim_t *s, int32_t flow, int64_t psn) {
  uint64_t mtu = (uint64_t)s->p->mtu, left = s->g->t[flow].bytes - (uint64_t)psn * mtu;
  return (int32_t)((left < mtu ? left : mtu) + (uint64_t)s->p->header);
}

/* Egress local port of node x for pkt (docs/model.md "Routing"). */
int32_t ref_route(ref_sim_t *s, int32_t x, const ref_pkt_t *pkt, int relay, int64_t now) {
  const tg_task_t *f = &s->g->t[pkt->flow];
  int data = pkt->kind == REF_DATA;
  int32_t d = data ? f->dst : f->host; /* the host the packet heads for */
  int n = ref_next_hops(&s->rt, x, d, s->hops, s->max_ports);
  REF_CHECK(n > 0);
  if (s->nodes[x].n_ports == 1 || (x == s->rt.anchor[d] && s->rt.edge_port[d] >= 0))
    return s->hops[0]; /* rules 1 and 2: no choice, no flowlet */
  uint32_t h, first;
  if (s->p->lb != ENG_LB_SPRAY) {
    h = data ? ref_hash_ecmp(s->p, x, f->host, f->dst, f->sport, f->dport)
             : ref_hash_ecmp(s->p, x, f->dst, f->host, f->dport, f->sport);
    first = ref_ecmp_index(s->p, h, (uint32_t)n);
  } else {
    h = eng_hash_spray(x, (uint32_t)pkt->flow, (uint32_t)pkt->seq, data ? 0u : 1u);
    first = h % (uint32_t)n;
  }
  if (s->p->lb != ENG_LB_ADAPTIVE || !relay) return s->hops[first];
  /* Flowlets (model.md): slot h mod ENG_FLOWLETS of this relay's table. */
  ref_flowlet_t *fl = &s->nodes[x].flowlets[h % ENG_FLOWLETS];
  int64_t key = 2 * (int64_t)pkt->flow + (data ? 0 : 1);
  if (fl->used && fl->key == key && now - fl->last <= s->p->flowlet_gap) {
    fl->last = now;
    return fl->port;
  }
  /* A new flowlet: the candidate with the least data queued; ties go to the
   * first in the order from ECMP's pick on (mod n). */
  int32_t best = -1;
  for (int j = 0; j < n; j++) {
    int32_t lp = s->hops[(first + (uint32_t)j) % (uint32_t)n];
    if (best < 0 || s->ports[s->nodes[x].port0 + lp].q < s->ports[s->nodes[x].port0 + best].q)
      best = lp;
  }
  *fl = (ref_flowlet_t){.used = 1, .key = key, .last = now, .port = best};
  return best;
}

static int init_ports(ref_sim_t *s) {
  const topo_t *t = s->t;
  const eng_params_t *p = s->p;
  int32_t np = 2 * t->n_links;
  s->ports = calloc((size_t)np ? (size_t)np : 1, sizeof *s->ports);
  if (!s->ports) return -1;
  for (int32_t g = 0; g < np; g++) {
    ref_port_t *pt = &s->ports[g];
    const topo_link_t *l = &t->links[s->rt.link[g]];
    pt->rate = l->rate_bps;
    pt->delay = l->delay_ps;
    double e = floor(l->error_rate * 4294967296.0);
    pt->loss_q32 = l->error_rate > 0 ? (uint64_t)e : 0;
    pt->peer = s->rt.peer[g];
    pt->peer_port = s->rt.peer_port[g];
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
    nd->port0 = s->rt.port0[x];
    nd->n_ports = s->rt.port0[x + 1] - s->rt.port0[x];
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

/* Checks task i of the graph; 0, or -1 with a message. */
static int check_task(ref_sim_t *s, int32_t i) {
  const topo_t *t = s->t;
  const tg_task_t *k = &s->g->t[i];
  const char *why = NULL;
  if (k->kind < TG_FLOW || k->kind > TG_JOIN)
    why = "unknown kind";
  else if (k->host < 0 || k->host >= t->n_nodes || t->is_switch[k->host])
    why = "owner is not a host";
  else if (k->start < 0 || k->delay < 0 || k->dur < 0)
    why = "negative start, delay or duration";
  else if (k->kind == TG_FLOW &&
           (k->dst < 0 || k->dst >= t->n_nodes || t->is_switch[k->dst] || k->dst == k->host ||
            k->bytes == 0 || ref_distance(&s->rt, k->host, k->dst) < 0))
    why = "bad destination, size, or no route";
  if (!why) return 0;
  fprintf(stderr, "ref: task %d (line %d): %s\n", i, k->line, why);
  return -1;
}

static int init_flows(ref_sim_t *s) {
  const tg_t *g = s->g;
  size_t n = g->n ? (size_t)g->n : 1;
  s->flows = calloc(n, sizeof *s->flows);
  if (!s->flows) return -1;
  for (int32_t i = 0; i < g->n; i++) {
    if (check_task(s, i)) return -1;
    if (g->t[i].kind == TG_FLOW) s->nodes[g->t[i].host].max_flows++;
  }
  for (int32_t x = 0; x < s->t->n_nodes; x++) {
    ref_node_t *nd = &s->nodes[x];
    nd->flows = calloc(nd->max_flows ? (size_t)nd->max_flows : 1, sizeof *nd->flows);
    if (!nd->flows) return -1;
    nd->rr = nd->max_flows - 1; /* ranks are given as flows start (ref_flow_start) */
  }
  int64_t global_rtt =
      s->p->ccp.kind == CC_HPCC && s->p->ccp.global_t ? ref_max_base_rtt(&s->rt, s->p) : 0;
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *k = &g->t[i];
    if (k->kind != TG_FLOW) continue;
    ref_flow_t *fs = &s->flows[i];
    fs->n = (int64_t)((k->bytes + (uint64_t)s->p->mtu - 1) / (uint64_t)s->p->mtu);
    fs->rank = -1;
    fs->rto_at = -1;
    fs->nack_for = -1;
    fs->cnp_last = -1;
    fs->held = s->p->reorder ? calloc((size_t)fs->n + 1, 1) : NULL;
    if (s->p->reorder && !fs->held) return -1;
    int64_t line = 0; /* the sender's fastest port */
    for (int32_t q = s->rt.port0[k->host]; q < s->rt.port0[k->host + 1]; q++)
      if (s->ports[q].rate > line) line = s->ports[q].rate;
    int64_t rtt = global_rtt > 0             ? global_rtt
                  : cc_needs_rtt(&s->p->ccp) ? ref_base_rtt(&s->rt, s->p, k)
                                             : 0;
    cc_init(&fs->cc, &fs->alg, &s->ccp, (double)line, rtt);
  }
  return 0;
}

int ref_net_init(ref_sim_t *s) {
  s->ccp = s->p->ccp;
  s->ccp.clock_ns = s->p->ser_floor_ns;
  s->n_cls = s->p->classes ? ENG_CLASSES : 1;
  if (ref_routing_init(&s->rt, s->t) || init_ports(s) || init_nodes(s)) return -1;
  ref_mmu_init(s);
  if (init_flows(s)) return -1;
  s->hops = calloc((size_t)s->max_ports + 1, sizeof *s->hops);
  return s->hops ? 0 : -1;
}

void ref_net_free(ref_sim_t *s) {
  if (s->ports)
    for (int32_t g = 0; g < 2 * s->t->n_links; g++) {
      ref_fifo_free(&s->ports[g].ctrl);
      for (int c = 0; c < ENG_CLASSES; c++)
        ref_fifo_free(&s->ports[g].data[c]);
    }
  if (s->nodes)
    for (int32_t x = 0; x < s->t->n_nodes; x++)
      free(s->nodes[x].flows);
  if (s->flows)
    for (int32_t i = 0; i < s->g->n; i++)
      free(s->flows[i].held);
  free(s->ports);
  free(s->nodes);
  free(s->flows);
  free(s->hops);
  ref_routing_free(&s->rt);
}

/* ref: routing (docs/model.md "Routing") from the topology's links and node kinds
 * alone: ports in link order, edge switches, breadth-first hop distances towards
 * each destination's anchor, equal-cost next hops; and a flow's base RTT. */
#include <stdlib.h>
#include <string.h>

#include "ref/ref_int.h"
#include "sim/eng_hash.h"

/* A switch, or a host that relays (torus). */
static int relays(const topo_t *t, int32_t v) {
  return t->is_switch[v] || t->forwards[v];
}

int ref_routing_init(ref_routing_t *r, const topo_t *t) {
  int32_t n = t->n_nodes, np = 2 * t->n_links;
  memset(r, 0, sizeof *r);
  r->t = t;
  r->port0 = calloc((size_t)n + 1, sizeof *r->port0);
  r->peer = malloc(((size_t)np + 1) * sizeof *r->peer);
  r->peer_port = malloc(((size_t)np + 1) * sizeof *r->peer_port);
  r->link = malloc(((size_t)np + 1) * sizeof *r->link);
  r->anchor = malloc((size_t)n * sizeof *r->anchor);
  r->edge_port = malloc((size_t)n * sizeof *r->edge_port);
  r->dist = calloc((size_t)n, sizeof *r->dist);
  r->queue = malloc((size_t)n * sizeof *r->queue);
  int32_t *fill = calloc((size_t)n, sizeof *fill);
  if (!r->port0 || !r->peer || !r->peer_port || !r->link || !r->anchor || !r->edge_port ||
      !r->dist || !r->queue || !fill) {
    free(fill);
    ref_routing_free(r);
    return -1;
  }
  /* A node's ports are the links that touch it, in link order. */
  for (int32_t k = 0; k < t->n_links; k++) {
    r->port0[t->links[k].a + 1]++;
    r->port0[t->links[k].b + 1]++;
  }
  for (int32_t v = 0; v < n; v++)
    r->port0[v + 1] += r->port0[v];
  for (int32_t k = 0; k < t->n_links; k++) {
    int32_t a = t->links[k].a, b = t->links[k].b, pa = fill[a]++, pb = fill[b]++;
    r->peer[r->port0[a] + pa] = b;
    r->peer_port[r->port0[a] + pa] = pb;
    r->link[r->port0[a] + pa] = k;
    r->peer[r->port0[b] + pb] = a;
    r->peer_port[r->port0[b] + pb] = pa;
    r->link[r->port0[b] + pb] = k;
  }
  free(fill);
  /* A host that does not relay and hangs from a switch by its only link is
   * reached through that switch (rule 2); any other host is its own anchor. */
  for (int32_t v = 0; v < n; v++) {
    r->anchor[v] = r->edge_port[v] = -1;
    if (t->is_switch[v]) continue;
    r->anchor[v] = v;
    if (t->forwards[v] || r->port0[v + 1] - r->port0[v] != 1) continue;
    int32_t m = r->peer[r->port0[v]];
    if (!t->is_switch[m]) continue;
    r->anchor[v] = m;
    r->edge_port[v] = r->peer_port[r->port0[v]];
  }
  return 0;
}

void ref_routing_free(ref_routing_t *r) {
  if (r->dist && r->t)
    for (int32_t v = 0; v < r->t->n_nodes; v++)
      free(r->dist[v]);
  free(r->port0);
  free(r->peer);
  free(r->peer_port);
  free(r->link);
  free(r->anchor);
  free(r->edge_port);
  free(r->dist);
  free(r->queue);
  memset(r, 0, sizeof *r);
}

/* Hops of every node to anchor a on paths whose inner nodes all relay (-1: none);
 * computed on first use. */
static const int32_t *dist_to(ref_routing_t *r, int32_t a) {
  if (r->dist[a]) return r->dist[a];
  const topo_t *t = r->t;
  int32_t *d = malloc((size_t)t->n_nodes * sizeof *d);
  REF_CHECK(d != NULL);
  for (int32_t v = 0; v < t->n_nodes; v++)
    d[v] = -1;
  int32_t head = 0, tail = 0;
  d[a] = 0;
  r->queue[tail++] = a;
  while (head < tail) {
    int32_t u = r->queue[head++];
    if (u != a && !relays(t, u)) continue; /* reached, but leads nowhere */
    for (int32_t q = r->port0[u]; q < r->port0[u + 1]; q++)
      if (d[r->peer[q]] < 0) {
        d[r->peer[q]] = d[u] + 1;
        r->queue[tail++] = r->peer[q];
      }
  }
  r->dist[a] = d;
  return d;
}

static int is_host(const ref_routing_t *r, int32_t v) {
  return v >= 0 && v < r->t->n_nodes && !r->t->is_switch[v];
}

int ref_distance(ref_routing_t *r, int32_t x, int32_t dst) {
  if (!is_host(r, dst) || x < 0 || x >= r->t->n_nodes) return -1;
  if (x == dst) return 0;
  int32_t a = r->anchor[dst], last = r->edge_port[dst] >= 0; /* the edge switch's hop */
  if (x == a) return last;
  int32_t d = dist_to(r, a)[x];
  return d < 0 ? -1 : d + last;
}

int ref_next_hops(ref_routing_t *r, int32_t x, int32_t dst, uint16_t *out, int cap) {
  if (x == dst || cap < 1 || ref_distance(r, x, dst) < 0) return 0;
  const topo_t *t = r->t;
  int32_t deg = r->port0[x + 1] - r->port0[x], a = r->anchor[dst];
  if (deg == 1) { /* rule 1 */
    out[0] = 0;
    return 1;
  }
  if (x == a) { /* rule 2: the edge switch of dst */
    out[0] = (uint16_t)r->edge_port[dst];
    return 1;
  }
  /* Rule 3: ports to a neighbour one hop closer to the anchor that is the
   * anchor or relays. */
  const int32_t *d = dist_to(r, a);
  int k = 0;
  for (int32_t q = r->port0[x]; q < r->port0[x + 1] && k < cap; q++) {
    int32_t u = r->peer[q];
    if ((u == a || relays(t, u)) && d[u] >= 0 && d[u] == d[x] - 1)
      out[k++] = (uint16_t)(q - r->port0[x]);
  }
  return k;
}

/* Time of one hop of a link: ser(wire) + delay, or (wire < 0) ns-3's
 * base-RTT share, twice the delay plus one MTU payload in whole ns. */
static int64_t hop_time(const eng_params_t *p, const topo_link_t *l, int64_t wire) {
  if (wire < 0)
    return 2 * l->delay_ps +
           (int64_t)((uint64_t)p->mtu * 8000000000ULL / (uint64_t)l->rate_bps) * 1000;
  return ref_ser_at(p, wire, l->rate_bps) + l->delay_ps;
}

/* Sum over the ECMP path from host `from` to host `to` of hop_time; -1 if
 * unroutable. (s, d, sp, dp) are the hash inputs of the packet. */
static int64_t path_time(ref_routing_t *r, const eng_params_t *p, int32_t from, int32_t to,
                         int64_t wire, int32_t s, int32_t d, uint32_t sp, uint32_t dp) {
  enum { CAP = 1024 };
  uint16_t set[CAP];
  int64_t sum = 0;
  int32_t hops = 0;
  for (int32_t x = from; x != to; hops++) {
    int n = ref_next_hops(r, x, to, set, CAP);
    if (n <= 0 || hops > r->t->n_nodes) return -1;
    uint32_t h = ref_hash_ecmp(p, x, s, d, sp, dp);
    int32_t q = r->port0[x] + set[ref_ecmp_index(p, h, (uint32_t)n)];
    sum += hop_time(p, &r->t->links[r->link[q]], wire);
    x = r->peer[q];
  }
  return sum;
}

int64_t ref_base_rtt(ref_routing_t *r, const eng_params_t *p, const tg_task_t *f) {
  if (p->base_rtt_ns3)
    return path_time(r, p, f->host, f->dst, -1, f->host, f->dst, f->sport, f->dport);
  int64_t out = path_time(r, p, f->host, f->dst, (int64_t)p->mtu + p->header, f->host, f->dst,
                          f->sport, f->dport);
  int64_t back =
      path_time(r, p, f->dst, f->host, p->ctrl_bytes, f->dst, f->host, f->dport, f->sport);
  return out < 0 || back < 0 ? -1 : out + back;
}

/* Longest hop_time sum from every node to host d over shortest paths, by
 * increasing distance to d (out[x] = -1: unreachable). */
static void longest_to(ref_routing_t *r, const eng_params_t *p, int32_t d, int64_t wire,
                       int64_t *out, int32_t *order) {
  enum { CAP = 1024 };
  uint16_t set[CAP];
  int32_t n = r->t->n_nodes, k = 0;
  for (int32_t x = 0; x < n; x++) {
    out[x] = -1;
    if (ref_distance(r, x, d) >= 0) order[k++] = x;
  }
  for (int32_t i = 1; i < k; i++) /* insertion sort by distance */
    for (int32_t j = i; j > 0 && ref_distance(r, order[j - 1], d) > ref_distance(r, order[j], d);
         j--) {
      int32_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  for (int32_t i = 0; i < k; i++) {
    int32_t x = order[i];
    if (x == d) {
      out[x] = 0;
      continue;
    }
    int m = ref_next_hops(r, x, d, set, CAP);
    for (int j = 0; j < m; j++) {
      int32_t q = r->port0[x] + set[j];
      int64_t rest = out[r->peer[q]];
      int64_t v = rest < 0 ? -1 : rest + hop_time(p, &r->t->links[r->link[q]], wire);
      if (v > out[x]) out[x] = v;
    }
  }
}

int64_t ref_max_base_rtt(ref_routing_t *r, const eng_params_t *p) {
  int32_t n = r->t->n_nodes;
  int64_t *a = malloc(((size_t)n + 1) * sizeof *a), *b = malloc(((size_t)n + 1) * sizeof *b);
  int32_t *order = malloc(((size_t)n + 1) * sizeof *order);
  int64_t best = -1;
  for (int32_t d = 0; a && b && order && d < n; d++) {
    if (r->t->is_switch[d]) continue;
    longest_to(r, p, d, p->base_rtt_ns3 ? -1 : (int64_t)p->mtu + p->header, a, order);
    if (!p->base_rtt_ns3) longest_to(r, p, d, p->ctrl_bytes, b, order);
    for (int32_t x = 0; x < n; x++) {
      if (r->t->is_switch[x] || x == d || a[x] < 0) continue;
      int64_t v = p->base_rtt_ns3 ? a[x] : b[x] < 0 ? -1 : a[x] + b[x];
      if (v > best) best = v;
    }
  }
  free(a);
  free(b);
  free(order);
  return best;
}

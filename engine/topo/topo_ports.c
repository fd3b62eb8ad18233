/* topo: topo_finish (checks links, builds the per-node port lists, then routes) and
 * topo_port_to. */
#include <stdlib.h>
#include <string.h>

#include "topo/topo_int.h"

static int check_links(const topo_t *t, char *err, size_t errlen) {
  for (int32_t i = 0; i < t->n_links; i++) {
    const topo_link_t *l = &t->links[i];
    if (l->a < 0 || l->a >= t->n_nodes || l->b < 0 || l->b >= t->n_nodes) {
      base_errf(err, errlen, "link %d joins nodes %d and %d, but there are %d nodes", i, l->a, l->b,
                t->n_nodes);
      return -1;
    }
    if (l->a == l->b) {
      base_errf(err, errlen, "link %d joins node %d to itself", i, l->a);
      return -1;
    }
    const char *why;
    if (topo_check_rate(l->rate_bps, &why) < 0) {
      base_errf(err, errlen, "link %d: rate %lld bit/s %s", i, (long long)l->rate_bps, why);
      return -1;
    }
    if (topo_check_delay(l->delay_ps, &why) < 0) {
      base_errf(err, errlen, "link %d: delay %lld ps %s", i, (long long)l->delay_ps, why);
      return -1;
    }
    if (!(l->error_rate >= 0 && l->error_rate < 1)) {
      base_errf(err, errlen, "link %d: error rate %g is outside [0, 1)", i, l->error_rate);
      return -1;
    }
  }
  return 0;
}

/* port_off from the degrees, then each link's two ends in link order. */
static int build_ports(topo_t *t, char *err, size_t errlen) {
  int32_t n = t->n_nodes;
  t->port_off = calloc((size_t)n + 1, sizeof *t->port_off);
  t->ports = malloc(((size_t)2 * t->n_links + 1) * sizeof *t->ports);
  int32_t *fill = calloc((size_t)n, sizeof *fill); /* ports placed so far, per node */
  if (!t->port_off || !t->ports || !fill) {
    free(fill);
    base_errf(err, errlen, "out of memory for %d links", t->n_links);
    return -1;
  }
  for (int32_t i = 0; i < t->n_links; i++) {
    t->port_off[t->links[i].a + 1]++;
    t->port_off[t->links[i].b + 1]++;
  }
  for (int32_t v = 0; v < n; v++) {
    if (t->port_off[v + 1] > TOPO_MAX_PORTS) {
      base_errf(err, errlen, "node %d has %d ports, more than the limit of %d", v,
                t->port_off[v + 1], TOPO_MAX_PORTS);
      free(fill);
      return -1;
    }
    t->port_off[v + 1] += t->port_off[v];
  }
  for (int32_t i = 0; i < t->n_links; i++) {
    int32_t a = t->links[i].a, b = t->links[i].b;
    int32_t pa = fill[a]++, pb = fill[b]++;
    t->ports[t->port_off[a] + pa] = (topo_port_t){a, b, pb, i};
    t->ports[t->port_off[b] + pb] = (topo_port_t){b, a, pa, i};
  }
  free(fill);
  return 0;
}

int topo_finish(topo_t *t, char *err, size_t errlen) {
  if (t->n_nodes < 1 || t->n_nodes > TOPO_MAX_NODES || t->n_links < 0 ||
      t->n_links > TOPO_MAX_LINKS) {
    base_errf(err, errlen,
              "%d nodes and %d links: a topology has 1 to %d nodes and at most %d links",
              t->n_nodes, t->n_links, TOPO_MAX_NODES, TOPO_MAX_LINKS);
    return -1;
  }
  if (check_links(t, err, errlen) < 0) return -1;
  t->n_hosts = 0;
  for (int32_t v = 0; v < t->n_nodes; v++)
    t->n_hosts += !t->is_switch[v];
  if (build_ports(t, err, errlen) < 0) return -1;
  return topo_build_routes(t, err, errlen);
}

int topo_port_to(const topo_t *t, int32_t node, int32_t peer) {
  if (node < 0 || node >= t->n_nodes) return -1;
  for (int32_t p = t->port_off[node]; p < t->port_off[node + 1]; p++)
    if (t->ports[p].peer == peer) return p - t->port_off[node];
  return -1;
}

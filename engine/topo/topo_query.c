/* topo: route queries over the built tables: next-hop port sets (model.md, Routing
 * rules 1-3) and hop distances; nodes' tiers by breadth-first search from the
 * hosts. */
#include <stdlib.h>

#include "topo/topo_int.h"

int topo_tiers(const topo_t *t, uint8_t *tier) {
  int32_t *queue = malloc(((size_t)t->n_nodes + 1) * sizeof *queue), head = 0, tail = 0;
  if (!queue) return -1;
  for (int32_t i = 0; i < t->n_nodes; i++) {
    tier[i] = t->is_switch[i] ? 255 : 0;
    if (!t->is_switch[i]) queue[tail++] = i;
  }
  while (head < tail) {
    int32_t x = queue[head++];
    for (int32_t q = t->port_off[x]; q < t->port_off[x + 1]; q++) {
      int32_t y = t->ports[q].peer;
      if (tier[y] == 255 && tier[x] < 254) {
        tier[y] = (uint8_t)(tier[x] + 1);
        queue[tail++] = y;
      }
    }
  }
  free(queue);
  return 0;
}

static int valid_dst(const topo_t *t, int32_t node, int32_t dst) {
  return node >= 0 && node < t->n_nodes && dst >= 0 && dst < t->n_nodes && !t->is_switch[dst];
}

/* The next node from x towards group g's anchor on a shortest path (the first port of
 * its set), or -1. A single-port node steps through its port only at the start of a
 * walk: met later, it cannot lead anywhere but back. */
static int32_t step(const topo_t *t, int32_t x, int32_t g, int first) {
  const topo_routes_t *r = &t->routes;
  int32_t deg = t->port_off[x + 1] - t->port_off[x];
  if (!first && !t->forwards[x]) return -1;
  if (deg == 1) return first ? t->ports[t->port_off[x]].peer : -1;
  if (deg == 0) return -1;
  uint32_t id = r->table[(size_t)r->row[x] * (size_t)r->n_groups + (size_t)g];
  if (id == TOPO_NO_ROUTE) return -1;
  uint16_t p = r->set_ports[r->set_off[r->set_base[x] + id]];
  return t->ports[t->port_off[x] + p].peer;
}

int topo_distance(const topo_t *t, int32_t node, int32_t dst) {
  if (!valid_dst(t, node, dst)) return -1;
  if (node == dst) return 0;
  int32_t g = t->routes.host_group[dst], a = t->routes.group_node[g];
  int d = 0;
  for (int32_t x = node; x != a; d++) {
    if (d >= t->n_nodes) return -1; /* cannot happen on tables built by BFS */
    x = step(t, x, g, d == 0);
    if (x < 0) return -1;
  }
  return d + (t->routes.host_edge_port[dst] >= 0); /* + the edge switch's last hop */
}

int topo_next_hops(const topo_t *t, int32_t node, int32_t dst, uint16_t *out, int cap) {
  if (!valid_dst(t, node, dst) || node == dst || cap < 1) return 0;
  const topo_routes_t *r = &t->routes;
  int32_t deg = t->port_off[node + 1] - t->port_off[node];
  int32_t g = r->host_group[dst];
  if (deg == 1) { /* rule 1 */
    if (topo_distance(t, node, dst) < 0) return 0;
    out[0] = 0;
    return 1;
  }
  if (deg == 0) return 0;
  if (r->group_node[g] == node && r->host_edge_port[dst] >= 0) { /* rule 2 */
    out[0] = (uint16_t)r->host_edge_port[dst];
    return 1;
  }
  uint32_t id = r->table[(size_t)r->row[node] * (size_t)r->n_groups + (size_t)g]; /* rule 3 */
  if (id == TOPO_NO_ROUTE) return 0;
  uint32_t s = r->set_base[node] + id;
  int k = 0;
  for (uint32_t i = r->set_off[s]; i < r->set_off[s + 1] && k < cap; i++)
    out[k++] = r->set_ports[i];
  return k;
}

/* topo: routing tables. Destination groups, one breadth-first search per group from
 * its anchor node, and per node the deduplicated sets of equal-cost next-hop ports. */
#include <stdlib.h>
#include <string.h>

#include "topo/topo_int.h"

/* The switch host h hangs from by its only link, or -1 (then h is its own group). */
static int32_t edge_switch(const topo_t *t, int32_t h) {
  if (t->is_switch[h] || t->forwards[h] || t->port_off[h + 1] - t->port_off[h] != 1) return -1;
  int32_t m = t->ports[t->port_off[h]].peer;
  return t->is_switch[m] ? m : -1;
}

/* host_group, group_node, host_edge_port; groups in increasing anchor id. */
static int build_groups(topo_t *t, int32_t *group_of, char *err, size_t errlen) {
  topo_routes_t *r = &t->routes;
  int32_t n = t->n_nodes;
  for (int32_t v = 0; v < n; v++)
    group_of[v] = -1;
  for (int32_t h = 0; h < n; h++) {
    if (t->is_switch[h]) continue;
    int32_t e = edge_switch(t, h);
    group_of[e >= 0 ? e : h] = -2; /* an anchor */
  }
  r->n_groups = 0;
  for (int32_t v = 0; v < n; v++)
    if (group_of[v] == -2) group_of[v] = r->n_groups++;
  r->group_node = malloc(((size_t)r->n_groups + 1) * sizeof *r->group_node);
  if (!r->group_node) {
    base_errf(err, errlen, "out of memory for %d routing groups", r->n_groups);
    return -1;
  }
  for (int32_t v = 0; v < n; v++)
    if (group_of[v] >= 0) r->group_node[group_of[v]] = v;
  for (int32_t v = 0; v < n; v++) {
    r->host_group[v] = r->host_edge_port[v] = -1;
    if (t->is_switch[v]) continue;
    int32_t e = edge_switch(t, v);
    r->host_group[v] = group_of[e >= 0 ? e : v];
    if (e >= 0) r->host_edge_port[v] = t->ports[t->port_off[v]].peer_port;
  }
  return 0;
}

/* One step of the searches: a neighbour worth visiting (it relays or has a row) and
 * the port of that neighbour leading back. */
typedef struct route_adj_t {
  int32_t peer;
  uint16_t back; /* local port of peer */
} route_adj_t;

/* Scratch of the per-group searches, reused from group to group. */
typedef struct route_work_t {
  int32_t *adj_off; /* (n_nodes + 1) into adj */
  route_adj_t *adj; /* (2 * n_links) neighbours, dead ends left out */
  int32_t *dist;    /* (n_nodes) hops to the anchor; -1: not reached (yet) */
  int32_t *queue;   /* (n_nodes) reached nodes in order */
  uint16_t *cand;   /* (2 * n_links) next-hop ports found, at each node's port_off */
  uint16_t *n_cand; /* (n_nodes) */
  topo_sets_t sets;
} route_work_t;

/* adj: the neighbours a search may visit. A node without a row that does not relay
 * (a host on its edge switch) is a dead end: nothing routes from or through it. */
static void build_adj(const topo_t *t, route_work_t *w) {
  int32_t k = 0;
  for (int32_t u = 0; u < t->n_nodes; u++) {
    w->adj_off[u] = k;
    for (int32_t p = t->port_off[u]; p < t->port_off[u + 1]; p++) {
      int32_t v = t->ports[p].peer;
      if (t->routes.row[v] >= 0 || t->forwards[v])
        w->adj[k++] = (route_adj_t){v, (uint16_t)t->ports[p].peer_port};
    }
  }
  w->adj_off[t->n_nodes] = k;
}

static void sort_ports(uint16_t *p, int k) {
  for (int i = 1; i < k; i++) {
    uint16_t x = p[i];
    int j = i;
    for (; j > 0 && p[j - 1] > x; j--)
      p[j] = p[j - 1];
    p[j] = x;
  }
}

/* Breadth-first search from group g's anchor, relaying only through forwarding nodes.
 * Expanding u at distance d, the port of each neighbour v at d + 1 back to u is one of
 * v's next hops. Then each reached node with a row gets its (deduplicated) set.
 * Returns 0, -1 when out of memory, -2 (with a message) for a path over TOPO_MAX_HOPS. */
static int route_group(topo_t *t, int32_t g, route_work_t *w, char *err, size_t errlen) {
  topo_routes_t *r = &t->routes;
  int32_t a = r->group_node[g], head = 0, tail = 0;
  int32_t *dist = w->dist, *queue = w->queue;
  int32_t last_hop = t->is_switch[a] ? 1 : 0; /* the edge switch's link to its host */
  int rc = 0;
  dist[a] = 0;
  queue[tail++] = a;
  while (head < tail) {
    int32_t u = queue[head++], du = dist[u] + 1;
    if (rc < 0) break;
    if (u != a && !t->forwards[u]) continue;
    for (const route_adj_t *e = w->adj + w->adj_off[u], *end = w->adj + w->adj_off[u + 1]; e < end;
         e++) {
      int32_t v = e->peer;
      if (dist[v] < 0) {
        dist[v] = du;
        queue[tail++] = v;
        if (!t->is_switch[v] && du + last_hop > TOPO_MAX_HOPS) {
          base_errf(err, errlen,
                    "the shortest path from node %d to %s %d has %d hops: the limit is %d", v,
                    last_hop ? "the hosts of switch" : "node", a, du + last_hop, TOPO_MAX_HOPS);
          rc = -2;
          break;
        }
      }
      if (dist[v] == du && r->row[v] >= 0) w->cand[t->port_off[v] + w->n_cand[v]++] = e->back;
    }
  }
  for (int32_t i = 1; i < tail; i++) { /* queue[0] is the anchor: no route */
    int32_t x = queue[i];
    if (r->row[x] < 0) continue;
    uint16_t *c = w->cand + t->port_off[x];
    if (t->nvswitch && !t->is_switch[x]) { /* a GPU's NVLink wins a tie (SimAI's routing) */
      int k = 0;
      for (int j = 0; j < w->n_cand[x]; j++)
        if (t->nvswitch[t->ports[t->port_off[x] + c[j]].peer]) c[k++] = c[j];
      if (k > 0) w->n_cand[x] = (uint16_t)k;
    }
    sort_ports(c, w->n_cand[x]);
    int64_t id = rc < 0 ? -1 : topo_sets_find_add(&w->sets, x, c, w->n_cand[x]);
    if (id >= 0)
      r->table[(size_t)r->row[x] * (size_t)r->n_groups + (size_t)g] = (uint32_t)id;
    else if (rc == 0)
      rc = -1;
    w->n_cand[x] = 0;
  }
  for (int32_t i = 0; i < tail; i++)
    dist[queue[i]] = -1;
  return rc;
}

int topo_build_routes(topo_t *t, char *err, size_t errlen) {
  topo_routes_t *r = &t->routes;
  int32_t n = t->n_nodes;
  route_work_t w = {0};
  int rc = -1;
  r->host_group = malloc((size_t)n * sizeof *r->host_group);
  r->host_edge_port = malloc((size_t)n * sizeof *r->host_edge_port);
  r->row = malloc((size_t)n * sizeof *r->row);
  r->set_base = malloc((size_t)n * sizeof *r->set_base);
  w.dist = malloc((size_t)n * sizeof *w.dist);
  w.queue = malloc((size_t)n * sizeof *w.queue);
  w.cand = malloc(((size_t)2 * t->n_links + 1) * sizeof *w.cand);
  w.n_cand = calloc((size_t)n, sizeof *w.n_cand);
  w.adj_off = malloc(((size_t)n + 1) * sizeof *w.adj_off);
  w.adj = malloc(((size_t)2 * t->n_links + 1) * sizeof *w.adj);
  if (!r->host_group || !r->host_edge_port || !r->row || !r->set_base || !w.dist || !w.queue ||
      !w.cand || !w.n_cand || !w.adj_off || !w.adj || topo_sets_init(&w.sets, n) < 0)
    goto fail_oom;
  if (build_groups(t, w.dist, err, errlen) < 0) goto out;
  r->n_rows = 0;
  for (int32_t v = 0; v < n; v++) {
    int32_t deg = t->port_off[v + 1] - t->port_off[v];
    r->row[v] = deg > 1 ? r->n_rows++ : -1;
  }
  int64_t entries = (int64_t)r->n_rows * r->n_groups;
  if (entries > TOPO_MAX_TABLE) {
    base_errf(err, errlen,
              "routing needs %d rows x %d groups = %lld entries, more than the limit of %lld",
              r->n_rows, r->n_groups, (long long)entries, (long long)TOPO_MAX_TABLE);
    goto out;
  }
  r->table = malloc((size_t)entries * sizeof *r->table + 1);
  if (!r->table) goto fail_oom;
  memset(r->table, 0xff, (size_t)entries * sizeof *r->table); /* TOPO_NO_ROUTE */
  build_adj(t, &w);
  for (int32_t v = 0; v < n; v++)
    w.dist[v] = -1;
  for (int32_t g = 0; g < r->n_groups; g++) {
    int grc = route_group(t, g, &w, err, errlen);
    if (grc == -2) goto out;
    if (grc < 0) goto fail_oom;
  }
  rc = topo_sets_layout(&w.sets, t, err, errlen);
  goto out;
fail_oom:
  base_errf(err, errlen, "out of memory for the routes of %d nodes", n);
out:
  topo_sets_free(&w.sets);
  free(w.n_cand);
  free(w.adj);
  free(w.adj_off);
  free(w.cand);
  free(w.queue);
  free(w.dist);
  return rc;
}

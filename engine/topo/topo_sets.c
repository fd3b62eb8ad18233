/* topo: the deduplicated port sets of the routing tables: an open-addressing hash of
 * (node, ports) while routes are built, then the CSR layout node by node. */
#include <stdlib.h>
#include <string.h>

#include "topo/topo_int.h"

static uint32_t set_hash(int32_t node, const uint16_t *p, int k) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)node;
  for (int i = 0; i < k; i++)
    h = (h ^ p[i]) * 0x100000001B3ull;
  return (uint32_t)(h ^ (h >> 32));
}

static int set_equal(const topo_sets_t *s, uint32_t i, int32_t node, const uint16_t *p, int k) {
  return s->owner[i] == node && s->off[i + 1] - s->off[i] == (size_t)k &&
         memcmp(s->ports + s->off[i], p, (size_t)k * sizeof *p) == 0;
}

static int set_rehash(topo_sets_t *s, uint32_t cap) {
  uint32_t *slot = calloc(cap, sizeof *slot);
  if (!slot) return -1;
  for (uint32_t i = 0; i < s->n; i++) {
    uint32_t h = set_hash(s->owner[i], s->ports + s->off[i], (int)(s->off[i + 1] - s->off[i]));
    while (slot[h & (cap - 1)])
      h++;
    slot[h & (cap - 1)] = i + 1;
  }
  free(s->slot);
  s->slot = slot;
  s->slot_cap = cap;
  return 0;
}

static int set_grow(topo_sets_t *s, size_t more_ports) {
  if (s->n + 1 >= s->cap) {
    uint32_t cap = s->cap ? 2 * s->cap : 1024;
    int32_t *owner = realloc(s->owner, cap * sizeof *owner);
    if (owner) s->owner = owner;
    uint32_t *local = realloc(s->local, cap * sizeof *local);
    if (local) s->local = local;
    size_t *off = realloc(s->off, ((size_t)cap + 1) * sizeof *off);
    if (off) s->off = off;
    if (!owner || !local || !off) return -1;
    if (!s->cap) s->off[0] = 0;
    s->cap = cap;
  }
  if (s->off[s->n] + more_ports > s->ports_cap) {
    size_t cap = 2 * (s->ports_cap + more_ports);
    uint16_t *ports = realloc(s->ports, cap * sizeof *ports);
    if (!ports) return -1;
    s->ports = ports;
    s->ports_cap = cap;
  }
  if (2 * ((uint64_t)s->n + 1) > s->slot_cap)
    return set_rehash(s, s->slot_cap ? 2 * s->slot_cap : 2048);
  return 0;
}

int64_t topo_sets_find_add(topo_sets_t *s, int32_t node, const uint16_t *p, int k) {
  /* Consecutive groups (the ToRs of one pod, say) mostly give a node the same set. */
  uint32_t i = s->last[node];
  if (i != UINT32_MAX && set_equal(s, i, node, p, k)) return s->local[i];
  uint32_t h = set_hash(node, p, k);
  for (;; h++) {
    i = s->slot[h & (s->slot_cap - 1)];
    if (!i) break;
    if (set_equal(s, i - 1, node, p, k)) {
      s->last[node] = i - 1;
      return s->local[i - 1];
    }
  }
  if (set_grow(s, (size_t)k) < 0) return -1;
  h = set_hash(node, p, k);
  while (s->slot[h & (s->slot_cap - 1)])
    h++;
  i = s->n++;
  s->slot[h & (s->slot_cap - 1)] = i + 1;
  s->owner[i] = node;
  s->local[i] = s->per_node[node]++;
  s->last[node] = i;
  memcpy(s->ports + s->off[i], p, (size_t)k * sizeof *p);
  s->off[i + 1] = s->off[i] + (size_t)k;
  return s->local[i];
}

int topo_sets_layout(const topo_sets_t *s, topo_t *t, char *err, size_t errlen) {
  topo_routes_t *r = &t->routes;
  if (s->n && s->off[s->n] > UINT32_MAX) {
    base_errf(err, errlen, "routing sets hold %zu ports, more than 2^32", s->off[s->n]);
    return -1;
  }
  uint32_t base = 0;
  for (int32_t v = 0; v < t->n_nodes; v++) {
    r->set_base[v] = base;
    base += s->per_node[v];
  }
  r->n_sets = s->n;
  r->set_off = calloc((size_t)s->n + 1, sizeof *r->set_off);
  r->set_ports = malloc((s->n ? s->off[s->n] : 0) * sizeof *r->set_ports + 1);
  if (!r->set_off || !r->set_ports) {
    base_errf(err, errlen, "out of memory for %u routing sets", s->n);
    return -1;
  }
  for (uint32_t i = 0; i < s->n; i++)
    r->set_off[r->set_base[s->owner[i]] + s->local[i] + 1] = (uint32_t)(s->off[i + 1] - s->off[i]);
  for (uint32_t j = 0; j < s->n; j++)
    r->set_off[j + 1] += r->set_off[j];
  for (uint32_t i = 0; i < s->n; i++)
    memcpy(r->set_ports + r->set_off[r->set_base[s->owner[i]] + s->local[i]], s->ports + s->off[i],
           (s->off[i + 1] - s->off[i]) * sizeof *s->ports);
  return 0;
}

int topo_sets_init(topo_sets_t *s, int32_t n_nodes) {
  memset(s, 0, sizeof *s);
  s->per_node = calloc((size_t)n_nodes, sizeof *s->per_node);
  s->last = malloc((size_t)n_nodes * sizeof *s->last);
  if (!s->per_node || !s->last || set_grow(s, 64) < 0) return -1;
  memset(s->last, 0xff, (size_t)n_nodes * sizeof *s->last);
  return 0;
}

void topo_sets_free(topo_sets_t *s) {
  free(s->owner);
  free(s->local);
  free(s->off);
  free(s->ports);
  free(s->slot);
  free(s->per_node);
  free(s->last);
  memset(s, 0, sizeof *s);
}

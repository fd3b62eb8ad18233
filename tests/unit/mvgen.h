/* Test helper: random task graphs for exactness tests. mvgen_graph makes, from a
 * topology and a seed, a DAG mixing flows (1 byte, short, whole and many
 * packets), compute and coll tasks (durations including 0), joins with need 0
 * and need k, streams, recv and end edges within and across hosts, start
 * times and delays, with ties (shared start times and durations) on purpose.
 * Edges may point from higher to lower task numbers. Valid per tg_check. */
#ifndef MVGEN_H
#define MVGEN_H

#include <stdint.h>
#include <stdlib.h>

#include "tg/tg.h"
#include "topo/topo.h"

typedef struct mvgen_rng_t {
  uint64_t s;
} mvgen_rng_t;

static inline uint64_t mvgen_rnd(mvgen_rng_t *r, uint64_t n) { /* splitmix64; uniform enough */
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (z ^ (z >> 31)) % n;
}

/* Topologies the exactness tests draw from (topo_from_json objects): a
 * three-tier k=4 fat tree, an oversubscribed leaf-spine with faster links
 * above its hosts', a rail-optimized fabric and a 3x3 torus whose hosts relay. */
static const char *const mvgen_topologies[] = {
    "{\"kind\":\"fat_tree\",\"tiers\":3,\"k\":4,\"link_delay_ns\":1000}",
    "{\"kind\":\"fat_tree\",\"tiers\":2,\"k\":6,\"oversubscription\":2,\"host_gbps\":100,"
    "\"link_gbps\":400,\"link_delay_ns\":700,\"host_delay_ns\":1300}",
    "{\"kind\":\"rail_optimized\",\"servers\":4,\"nics_per_server\":4,\"spines\":2,"
    "\"link_delay_ns\":800}",
    "{\"kind\":\"torus\",\"dims\":[3,3],\"link_gbps\":100,\"link_delay_ns\":600}",
};
#define MVGEN_N_TOPO 4

/* ps: durations, starts and delays drawn from a few shared values (ties) or
 * anywhere below `most`. */
static inline int64_t mvgen_time(mvgen_rng_t *r, int64_t most) {
  static const int64_t common[4] = {0, 500000, 1000000, 2000000};
  return mvgen_rnd(r, 3) ? common[mvgen_rnd(r, 4)] : (int64_t)mvgen_rnd(r, (uint64_t)most);
}

static inline uint64_t mvgen_bytes(mvgen_rng_t *r, int32_t mtu) {
  uint64_t m = (uint64_t)mtu;
  switch (mvgen_rnd(r, 6)) {
  case 0:
    return 1;
  case 1:
    return 1 + mvgen_rnd(r, m - 1); /* below one packet */
  case 2:
    return m * (1 + mvgen_rnd(r, 4)); /* whole packets */
  case 3:
    return 1 + mvgen_rnd(r, 60 * m); /* many packets */
  default:
    return 1 + mvgen_rnd(r, 12 * m);
  }
}

/* A destination for a flow from `src` among the chosen hosts (reachable, not
 * src), or -1. */
static inline int32_t mvgen_dst(mvgen_rng_t *r, const topo_t *t, const int32_t *hosts, int32_t nh,
                                int32_t src) {
  int32_t cand[8], nc = 0;
  for (int32_t k = 0; k < nh; k++)
    if (hosts[k] != src && topo_distance(t, src, hosts[k]) >= 0) cand[nc++] = hosts[k];
  return nc ? cand[mvgen_rnd(r, (uint64_t)nc)] : -1;
}

/* One task at place p of the topological order (`order`, tasks so far in
 * `task`): kind, host (half the time that of an earlier task), times, flow. */
static inline tg_task_t mvgen_task(mvgen_rng_t *r, const topo_t *t, const int32_t *hosts,
                                   int32_t nh, int32_t mtu, const tg_task_t *task,
                                   const int32_t *order, int32_t p) {
  static const tg_kind_t kinds[8] = {TG_FLOW,    TG_FLOW, TG_FLOW, TG_COMPUTE,
                                     TG_COMPUTE, TG_COLL, TG_JOIN, TG_JOIN};
  tg_task_t k = tg_task_default(kinds[mvgen_rnd(r, 8)]);
  k.host = hosts[mvgen_rnd(r, (uint64_t)nh)];
  if (p > 0 && mvgen_rnd(r, 2)) k.host = task[order[mvgen_rnd(r, (uint64_t)p)]].host;
  k.start = mvgen_rnd(r, 2) ? 0 : mvgen_time(r, 20000000);
  k.delay = mvgen_rnd(r, 3) ? 0 : mvgen_time(r, 3000000);
  if (k.kind == TG_FLOW) {
    k.dst = mvgen_dst(r, t, hosts, nh, k.host);
    if (k.dst < 0) { /* no other host reachable */
      k.kind = TG_JOIN;
      k.dst = 0;
    } else {
      k.bytes = mvgen_bytes(r, mtu);
    }
  }
  if (k.kind == TG_COMPUTE || k.kind == TG_COLL) k.dur = mvgen_time(r, 5000000);
  return k;
}

/* A predecessor for the task at place p: any earlier task, or half the time
 * one on the same host if there is one. */
static inline int32_t mvgen_pred(mvgen_rng_t *r, const tg_t *g, const int32_t *order, int32_t p) {
  int32_t host = g->t[order[p]].host, n_same = 0;
  if (mvgen_rnd(r, 2)) return order[mvgen_rnd(r, (uint64_t)p)];
  for (int32_t q = 0; q < p; q++)
    n_same += g->t[order[q]].host == host;
  if (n_same == 0) return order[mvgen_rnd(r, (uint64_t)p)];
  int32_t pick = (int32_t)mvgen_rnd(r, (uint64_t)n_same);
  for (int32_t q = 0;; q++)
    if (g->t[order[q]].host == host && pick-- == 0) return order[q];
}

/* mvgen_graph flags. */
enum {
  MVGEN_STREAM_NEED = 1, /* stream members may have need k (else need 0 in streams) */
  MVGEN_GPUS = 2         /* most tasks belong to one of two GPUs of their host */
};

/* Appends a random graph of 2..max_tasks tasks to the empty `g` (ports as
 * tg_assign_ports gives them) on 2 to 6 hosts of `t`. Returns the task count,
 * or -1 when out of memory or when `t` has fewer than two hosts. */
static inline int32_t mvgen_graph(const topo_t *t, uint64_t seed, int32_t mtu, int32_t max_tasks,
                                  unsigned flags, tg_t *g) {
  mvgen_rng_t r = {seed * 0x2545f4914f6cdd1dULL + 1};
  int32_t n = 2 + (int32_t)mvgen_rnd(&r, (uint64_t)(max_tasks > 2 ? max_tasks - 1 : 1));
  int32_t hosts[8] = {0}, nh = 0, last[16], want = 2 + (int32_t)mvgen_rnd(&r, 5), rc = -1;
  for (int tries = 0; tries < 256 && nh < want; tries++) {
    int32_t v = (int32_t)mvgen_rnd(&r, (uint64_t)t->n_nodes), dup = 0;
    for (int32_t k = 0; k < nh; k++)
      dup |= hosts[k] == v;
    if (!t->is_switch[v] && !dup) hosts[nh++] = v;
  }
  int32_t *pos = malloc((size_t)n * sizeof *pos), *order = malloc((size_t)n * sizeof *order);
  tg_task_t *task = malloc((size_t)n * sizeof *task);
  if (!pos || !order || !task || nh < 2) goto done;
  /* A random topological order: pos[i] is task i's place; edges and streams
   * only go from an earlier place to a later one. */
  for (int32_t i = 0; i < n; i++)
    order[i] = i;
  for (int32_t i = n - 1; i > 0; i--) {
    int32_t j = (int32_t)mvgen_rnd(&r, (uint64_t)i + 1), x = order[i];
    order[i] = order[j];
    order[j] = x;
  }
  for (int32_t p = 0; p < n; p++)
    pos[order[p]] = p;
  for (int32_t p = 0; p < n; p++)
    task[order[p]] = mvgen_task(&r, t, hosts, nh, mtu, task, order, p);
  for (int32_t i = 0; i < n; i++)
    if (tg_add(g, &task[i]) < 0) goto done;
  /* Edges: up to 3 predecessors (joins 1 to 5); a flow's recv or end; sometimes
   * need k (joins half the time). */
  for (int32_t p = 1; p < n; p++) {
    tg_task_t *k = &g->t[order[p]];
    int32_t np = k->kind == TG_JOIN ? 1 + (int32_t)mvgen_rnd(&r, 5) : (int32_t)mvgen_rnd(&r, 4);
    for (int32_t e = 0; e < np; e++) {
      int32_t pred = mvgen_pred(&r, g, order, p);
      int on = g->t[pred].kind == TG_FLOW && mvgen_rnd(&r, 2) ? TG_ON_RECV : TG_ON_END;
      if (tg_edge(g, order[p], pred, (tg_on_t)on)) goto done;
    }
    if (np > 0 && mvgen_rnd(&r, k->kind == TG_JOIN ? 2 : 5) == 0)
      k->need = 1 + (int32_t)mvgen_rnd(&r, (uint64_t)np);
  }
  /* Streams (two per chosen host), in task order: a task joins one only if the
   * member before it has an earlier place, so streams keep the graph acyclic. */
  for (int32_t s = 0; s < 2 * nh; s++)
    last[s] = -1;
  for (int32_t i = 0; i < n; i++) {
    int32_t h = 0;
    while (hosts[h] != g->t[i].host)
      h++;
    int32_t s = 2 * h + (int32_t)mvgen_rnd(&r, 2);
    if (mvgen_rnd(&r, 3) || (last[s] >= 0 && pos[last[s]] > pos[i])) continue;
    g->t[i].stream = s;
    if (!(flags & MVGEN_STREAM_NEED)) g->t[i].need = 0;
    last[s] = i;
  }
  for (int32_t i = 0; (flags & MVGEN_GPUS) && i < n; i++) {
    int32_t h = 0;
    while (hosts[h] != g->t[i].host)
      h++;
    if (mvgen_rnd(&r, 4)) g->t[i].gpu = 2 * h + (int32_t)mvgen_rnd(&r, 2);
  }
  tg_assign_ports(g);
  rc = n;
done:
  free(pos);
  free(order);
  free(task);
  return rc;
}

#endif

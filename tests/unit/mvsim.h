/* Test helpers: default parameters from the presets, hand-made topologies and
 * flows, and running one or more experiments on the engine. */
#ifndef MVSIM_H
#define MVSIM_H

#include <stdio.h>
#include <stdlib.h>

#include "sim/eng_world.h"
#include "topo/topo.h"
#include "topo/topo_int.h"
#include "traffic/trf.h"

static inline eng_params_t mvsim_params(void) {
  eng_params_t p;
  char err[512], path[1024];
  const char *dir = getenv("MV_PRESETS");
  snprintf(path, sizeof path, "%s/network.json", dir ? dir : "jobs/presets");
  if (eng_params_defaults(path, &p, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  return p;
}

/* A chain host - switch ... switch - host: rates[i], delays[i] for hop i. */
static inline topo_t mvsim_chain(int hops, const int64_t *rates, const int64_t *delays) {
  topo_t t = {0};
  char err[256];
  if (topo_alloc(&t, hops + 1, hops, "file", err, sizeof err)) exit(2);
  /* ids: host 0, host 1, switches 2..hops */
  for (int i = 2; i <= hops; i++)
    t.is_switch[i] = t.forwards[i] = 1;
  t.n_hosts = 2;
  int32_t prev = 0;
  for (int i = 0; i < hops; i++) {
    int32_t next = i + 1 < hops ? i + 2 : 1;
    topo_add_link(&t, prev, next, rates[i], delays[i], 0);
    prev = next;
  }
  if (topo_finish(&t, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  return t;
}

/* A star: hosts 0..hosts-1 around switch `hosts`, every link at `rate` bit/s
 * with `delay` ps. */
static inline topo_t mvsim_star(int hosts, int64_t rate, int64_t delay) {
  topo_t t = {0};
  char err[256];
  if (topo_alloc(&t, hosts + 1, hosts, "file", err, sizeof err)) exit(2);
  t.is_switch[hosts] = t.forwards[hosts] = 1;
  t.n_hosts = hosts;
  for (int i = 0; i < hosts; i++)
    topo_add_link(&t, i, hosts, rate, delay, 0);
  if (topo_finish(&t, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  return t;
}

static inline trf_flow_t mvsim_flow(int32_t src, int32_t dst, uint64_t bytes, int64_t start_ps) {
  trf_flow_t f = {src, dst, 10000, 100, 3, bytes, start_ps, 0};
  return f;
}

/* The task graph of a flow set: one dependency-free flow task per flow. */
static inline tg_t mvsim_tg(const trf_flows_t *fl) {
  tg_t g = {0};
  if (trf_to_tg(fl, &g)) exit(2);
  return g;
}

/* Runs experiments as one batch; finish[e][i] receives flow i's finish (ps). */
static inline eng_world_t *mvsim_run(int n, const eng_exp_desc_t *ex, eng_backend_t be) {
  char err[512];
  eng_world_desc_t d = {.n_exps = n, .exps = ex};
  eng_world_t *w = eng_world_create(&d, err, sizeof err);
  if (!w || eng_run(w, be, err, sizeof err)) {
    fprintf(stderr, "mvsim_run: %s\n", err);
    exit(2);
  }
  return w;
}

#endif

/* Test helpers: default parameters from the presets, hand-made topologies and
 * flows, and running one or more experiments on the engine (eng.h). */
#ifndef MVSIM_H
#define MVSIM_H

#include <stdio.h>
#include <stdlib.h>

#include "jobs/job.h"
#include "sim/eng.h"
#include "topo/topo.h"
#include "topo/topo_int.h"
#include "traffic/trf.h"

/* The presets file of the source tree (MV_PRESETS, set by CTest), loaded once. */
static inline const job_presets_t *mvsim_presets(void) {
  static job_presets_t ps;
  static int loaded;
  char err[512], path[1024];
  const char *dir = getenv("MV_PRESETS");
  snprintf(path, sizeof path, "%s/network.json", dir ? dir : "jobs/presets");
  if (!loaded && job_presets_load(path, &ps, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  loaded = 1;
  return &ps;
}

static inline eng_params_t mvsim_params(void) {
  return mvsim_presets()->defaults;
}

/* --set KEY=VALUE with the presets; 0 or -1 with a message. */
static inline int mvsim_set(eng_params_t *p, const char *kv, char *err, size_t errlen) {
  return job_param_set(mvsim_presets(), p, kv, err, errlen);
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

/* Runs experiments as one batch (each must be valid; what they point to must
 * outlive the batch). */
static inline eng_batch_t *mvsim_run(int n, const eng_exp_desc_t *ex, eng_backend_t be) {
  char err[512];
  eng_batch_t *b = NULL;
  eng_batch_desc_t d = {.n_exps = n, .exps = ex};
  eng_run_desc_t run = {.backend = be};
  if (eng_batch_create(&d, &b, err, sizeof err) || eng_batch_run(b, &run, err, sizeof err)) {
    fprintf(stderr, "mvsim_run: %s\n", err);
    exit(2);
  }
  for (int e = 0; e < n; e++) {
    eng_result_t r;
    eng_exp_result(b, e, &r);
    if (r.status == ENG_INVALID) {
      fprintf(stderr, "mvsim_run: experiment %d: %s\n", e, r.message);
      exit(2);
    }
  }
  return b;
}

/* Start, end and receive times (ps, -1 if it did not happen) of task i of
 * experiment e. */
static inline eng_task_times_t mvsim_times(const eng_batch_t *b, int32_t e, int32_t i) {
  eng_task_times_t t = {-2, -2, -2};
  eng_task_times(b, e, i, &t);
  return t;
}
static inline int64_t mvsim_start(const eng_batch_t *b, int32_t e, int32_t i) {
  return mvsim_times(b, e, i).start;
}
static inline int64_t mvsim_end(const eng_batch_t *b, int32_t e, int32_t i) {
  return mvsim_times(b, e, i).end;
}
static inline int64_t mvsim_recv(const eng_batch_t *b, int32_t e, int32_t i) {
  return mvsim_times(b, e, i).recv;
}

#endif

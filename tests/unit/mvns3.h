/* Test helper: random choices of the keys that reproduce the ns-3 HPCC
 * simulator's semantics (docs/model.md), for the exactness tests: each key
 * on or off (or one of a few values) independently, CC keys for the kind in
 * effect, and traffic classes 1..3 for the flows of a task graph. */
#ifndef MVNS3_H
#define MVNS3_H

#include "mvgen.h"
#include "sim/eng_params.h"

static inline void mvns3_params(mvgen_rng_t *r, eng_params_t *p) {
  static const double headroom[] = {-1, -1, 0, 1, 3};
  static const int64_t reserve[] = {0, 0, 1024, 4096};
  static const int32_t multi[] = {0, 1, 4};
  p->ser_floor_ns = (int32_t)mvgen_rnd(r, 2);
  p->classes = (int32_t)mvgen_rnd(r, 2);
  p->ack_with_data = (int32_t)mvgen_rnd(r, 2);
  p->ack_pause = (int32_t)mvgen_rnd(r, 2);
  p->pfc_reserve = reserve[mvgen_rnd(r, 4)];
  p->pfc_headroom = headroom[mvgen_rnd(r, 5)];
  p->pfc_alpha_by_rate = (int32_t)mvgen_rnd(r, 2);
  p->pfc_frame_bytes = mvgen_rnd(r, 3) ? 0 : 43;
  p->ecmp_ns3 = (int32_t)mvgen_rnd(r, 2);
  p->base_rtt_ns3 = (int32_t)mvgen_rnd(r, 2);
  cc_params_t *c = &p->ccp;
  if (c->kind == CC_DCQCN) c->dcqcn_ns3 = (int32_t)mvgen_rnd(r, 2);
  if (c->kind == CC_DCQCN && c->dcqcn_ns3 && c->dec_interval < 1) c->dec_interval = 4000000;
  if (c->kind == CC_HPCC) {
    c->global_t = (int32_t)mvgen_rnd(r, 2);
    c->hpcc_min_rate = mvgen_rnd(r, 2) ? 0 : 1e9;
    c->int_multi = multi[mvgen_rnd(r, 3)];
    c->hpcc_ns3 = (int32_t)mvgen_rnd(r, 2);
  }
}

/* Every flow of g gets a class in 1..3 (its priority). */
static inline void mvns3_classes(mvgen_rng_t *r, tg_t *g) {
  for (int32_t i = 0; i < g->n; i++)
    if (g->t[i].kind == TG_FLOW) g->t[i].prio = 1 + (uint32_t)mvgen_rnd(r, 3);
}

#endif

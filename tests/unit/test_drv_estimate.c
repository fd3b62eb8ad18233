/* What the cost model reads of an experiment (driver/drv_estimate.c), by
 * hand on a star of 2 hosts (100 Gb/s, 1 us links): packet-hops, and the
 * windows of the schedule the task graph has on an empty network (flows in
 * flight over the lookahead, plus one per instant another task ends), with
 * dependencies, recv edges, overlapping flows, need, streams and a cycle. */
#include "driver/drv_kind.h"
#include "mvsim.h"
#include "mvtest.h"

#define US 1000000LL

static topo_t star;
static eng_params_t p;

static tg_task_t task(tg_kind_t kind, int32_t host, int32_t dst, uint64_t bytes, int64_t dur) {
  tg_task_t t = tg_task_default(kind);
  t.host = host;
  t.dst = dst;
  t.bytes = bytes;
  t.dur = dur;
  return t;
}

static shd_feat_t features(const tg_t *g) {
  eng_exp_desc_t d = {.topo = &star, .tasks = g, .params = &p, .seed = 1};
  shd_feat_t f;
  drv_exp_features(&d, &f);
  return f;
}

int main(void) {
  star = mvsim_star(2, 100000000000LL, US);
  p = mvsim_params();
  p.mtu = 1000;
  p.ack_every = 1;
  /* One flow of 1 MB from host 0 to host 1 at 0: 1000 packets over 2 links,
   * and as many ACKs: 4000 packet-hops; in flight from 0 until its last ACK:
   * 80 us of serialisation + 2 us there + 2 us back = 84 windows of 1 us. */
  tg_t one = {0};
  tg_task_t flow = task(TG_FLOW, 0, 1, 1000000, 0);
  tg_add(&one, &flow);
  shd_feat_t f = features(&one);
  CHECK(f.x[SHD_F_HOPS] == 4000);
  CHECK(f.x[SHD_F_WINDOWS] == 84);
  CHECK(f.x[SHD_F_NODE_WINDOWS] == 84 * 3);
  CHECK(f.x[SHD_F_EXP] == 1);
  CHECK(f.x[SHD_F_ROWS] == 3 + 4 + 1);
  /* A computation of 10 us before it, a join after its last byte arrives
   * (recv: 92 us): 84 windows in flight and two other instants. */
  tg_t dep = {0};
  tg_task_t comp = task(TG_COMPUTE, 0, 0, 0, 10 * US), join = task(TG_JOIN, 1, 0, 0, 0);
  tg_add(&dep, &comp);
  tg_add(&dep, &flow);
  tg_add(&dep, &join);
  tg_edge(&dep, 1, 0, TG_ON_END);
  tg_edge(&dep, 2, 1, TG_ON_RECV);
  CHECK(features(&dep).x[SHD_F_WINDOWS] == 86);
  /* Two flows overlapping (the second from 40 us): in flight 0 .. 124 us. */
  tg_t two = {0};
  tg_add(&two, &flow);
  flow.start = 40 * US;
  tg_add(&two, &flow);
  CHECK(features(&two).x[SHD_F_WINDOWS] == 124);
  CHECK(features(&two).x[SHD_F_HOPS] == 8000);
  /* A join that needs one of two flows (0 and 100 us): it ends with the
   * first, at 84 us; flows in flight 84 + 84 us. */
  tg_t need = {0};
  flow.start = 0;
  tg_add(&need, &flow);
  flow.start = 100 * US;
  tg_add(&need, &flow);
  join.need = 1;
  tg_add(&need, &join);
  tg_edge(&need, 2, 0, TG_ON_END);
  tg_edge(&need, 2, 1, TG_ON_END);
  CHECK(features(&need).x[SHD_F_WINDOWS] == 168 + 1);
  /* Two computations of one stream run one after the other: ends at 10 and
   * 20 us, no flow. */
  tg_t stream = {0};
  comp.stream = 7;
  tg_add(&stream, &comp);
  tg_add(&stream, &comp);
  CHECK(features(&stream).x[SHD_F_WINDOWS] == 2);
  CHECK(features(&stream).x[SHD_F_HOPS] == 0);
  /* A cycle cannot be scheduled: no windows (the others still count). */
  tg_t cyc = {0};
  flow.start = 0;
  tg_add(&cyc, &flow);
  tg_add(&cyc, &flow);
  tg_edge(&cyc, 0, 1, TG_ON_END);
  tg_edge(&cyc, 1, 0, TG_ON_END);
  CHECK(features(&cyc).x[SHD_F_WINDOWS] == 0 && features(&cyc).x[SHD_F_HOPS] == 8000);
  tg_free(&one), tg_free(&dep), tg_free(&two), tg_free(&need), tg_free(&stream), tg_free(&cyc);
  topo_free(&star);
  return mvtest_end();
}

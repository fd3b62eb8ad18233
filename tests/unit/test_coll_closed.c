/* Closed forms of collectives run by the engine on an idle non-blocking
 * network (a star: host - switch - host, rate R, delay d): a ring all-reduce
 * of S bytes over n hosts takes 2(n-1) steps of S/n bytes, all-gather and
 * reduce-scatter n-1 steps, each step the store-and-forward time of its block
 * plus the latency terms derived below (docs/collectives.md, "Closed forms of rings"); a
 * hierarchical all-reduce adds the intra-server model's steps.
 * Over 4, 8 and 16 hosts at 100 and 400 Gb/s: exact to the picosecond with one
 * ACK per block, within 2 % with one ACK per packet; a 2 x 2-GPU hierarchical
 * all-reduce ends exactly at reduce-scatter + ring + all-gather. */
#include "coll/coll.h"
#include "mvsim.h"
#include "mvtest.h"

#define US 1000000LL
#define GBPS 1000000000LL

static eng_params_t par;

static int64_t ser(int64_t bytes, int64_t rate) {
  return (bytes * 8 * 1000000000000LL + rate - 1) / rate;
}

/* One ring step of b bytes (full packets) from its start to the reception of
 * its last packet, on the star: the sender serialises P packets of wire size
 * D back to back, the switch forwards the last one (one more D), plus two
 * propagation delays. With an ACK per packet (`per_packet_ack`), every link
 * also carries one ACK (A) per data packet of the step: (D + A) each. */
static int64_t step_time(uint64_t b, int64_t rate, int64_t d, int per_packet_ack) {
  int64_t P = (int64_t)(b / (uint64_t)par.mtu);
  int64_t D = ser(par.mtu + par.header, rate), A = ser(par.ctrl_bytes, rate);
  return P * (D + (per_packet_ack ? A : 0)) + D + 2 * d;
}

/* The whole collective: `steps` steps; each step after the first starts with
 * the ACK of the packet that ended the previous one (control goes first, A);
 * the collective ends when the last ACK is back at its sender (A + d per
 * hop, 2 hops). */
static int64_t ring_closed(int steps, uint64_t b, int64_t rate, int64_t d, int per_packet_ack) {
  int64_t A = ser(par.ctrl_bytes, rate);
  return steps * step_time(b, rate, d, per_packet_ack) + (steps - 1) * A + 2 * (A + d);
}

/* Runs one collective of S bytes among n single-GPU servers (hosts 0..n-1)
 * on `star`; returns its end (the last done join). */
static int64_t run_ring(const topo_t *star, coll_kind_t kind, int32_t n, uint64_t S,
                        const eng_params_t *p) {
  tg_t g = {0};
  int32_t gpus[16], done[16];
  for (int32_t i = 0; i < n; i++)
    gpus[i] = i;
  coll_cluster_t cl = {.gpus_per_server = 1, .sync_ps = p->sync};
  coll_desc_t d = {.kind = kind, .bytes = S};
  char err[512];
  CHECK_EQ_I64(coll_append(&g, &cl, &d, n, gpus, NULL, done, err, sizeof err), 0);
  tg_assign_ports(&g);
  eng_exp_desc_t ex = {.topo = star, .tasks = &g, .params = p, .seed = 5};
  eng_batch_t *w = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  eng_result_t r;
  eng_exp_result(w, 0, &r);
  CHECK_EQ_I64(r.status, ENG_OK);
  CHECK_EQ_I64(r.drops + r.pfc_pauses + r.retransmits, 0);
  int64_t end = 0;
  for (int32_t i = 0; i < n; i++)
    end = mvsim_end(w, 0, done[i]) > end ? mvsim_end(w, 0, done[i]) : end;
  CHECK_EQ_I64(r.end_ps, end);
  eng_batch_destroy(w);
  tg_free(&g);
  return end;
}

/* n hosts at `rate`, P full packets per block: the engine against the closed
 * form. One ACK per block (ack_every >= P): exact to the ps. One ACK per
 * packet (the default): within 2 % (the ACKs' place among data packets is
 * left out). Also prints the error against the bare bandwidth term
 * steps/n S/R. */
static void rings(int32_t n, int64_t P, int64_t rate) {
  const int64_t d = US;
  topo_t star = mvsim_star(n, rate, d);
  uint64_t b = (uint64_t)(P * par.mtu), S = b * (uint64_t)n;
  coll_kind_t kinds[3] = {COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER};
  for (int k = 0; k < 3; k++) {
    int steps = kinds[k] == COLL_ALLREDUCE ? 2 * (n - 1) : n - 1;
    eng_params_t one = par;
    one.ack_every = 1 << 30;
    int64_t t1 = run_ring(&star, kinds[k], n, S, &one);
    CHECK_EQ_I64(t1, ring_closed(steps, b, rate, d, 0));
    int64_t t = run_ring(&star, kinds[k], n, S, &par), cf = ring_closed(steps, b, rate, d, 1);
    double err = (double)(t - cf) / (double)cf;
    double bare = (double)steps * (double)b * 8e12 / (double)rate;
    printf("%-13s n=%2d S=%9llu B at %3lld Gb/s: engine %.3f us, closed form %.3f us (%+.3f %%), "
           "bandwidth term alone %.3f us (%+.2f %%); one ACK per block: %.3f us (exact)\n",
           coll_name(kinds[k]), n, (unsigned long long)S, (long long)(rate / GBPS), t / 1e6,
           cf / 1e6, 100 * err, bare / 1e6, 100 * (t - bare) / bare, t1 / 1e6);
    CHECK(err < 0.02 && err > -0.02);
    /* all-gather and reduce-scatter take half an all-reduce's steps */
    if (kinds[k] != COLL_ALLREDUCE) {
      int64_t ar = ring_closed(2 * steps, b, rate, d, 0), A = ser(par.ctrl_bytes, rate);
      CHECK_EQ_I64(2 * (t1 - 2 * (A + d)) + A, ar - 2 * (A + d));
    }
  }
  topo_free(&star);
}

/* Two servers of two GPUs, each GPU its own NIC (hosts 0,1 | 2,3): the
 * model's reduce-scatter (M1, all ready at 0, no sync), a 2-member ring per
 * slot of S/2 bytes (2 steps of S/4, on disjoint host pairs), then the
 * model's all-gather, which waits for the other member's arrival (known sync
 * later) and lasts the model's time minus sync: T = M1 + ring + M3. */
static void hierarchical(void) {
  coll_model_t model = {0};
  char err[512];
  CHECK_EQ_I64(coll_model_load_default(&model, NULL, NULL, err, sizeof err), 0);
  const int64_t rate = 400 * GBPS, d = US;
  topo_t star = mvsim_star(4, rate, d);
  uint64_t S = 4 * 64 * (uint64_t)par.mtu; /* blocks of 64 packets */
  tg_t g = {0};
  int32_t gpus[4] = {0, 1, 2, 3}, done[4];
  coll_cluster_t cl = {
      .gpus_per_server = 2, .gpu = "h100-sxm", .model = &model, .sync_ps = par.sync};
  coll_desc_t desc = {.kind = COLL_ALLREDUCE, .bytes = S};
  CHECK_EQ_I64(coll_append(&g, &cl, &desc, 4, gpus, NULL, done, err, sizeof err), 0);
  tg_assign_ports(&g);
  eng_params_t p = par;
  p.ack_every = 1 << 30;
  eng_exp_desc_t ex = {.topo = &star, .tasks = &g, .params = &p, .seed = 5};
  eng_batch_t *w = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  int64_t m1, m3;
  CHECK_EQ_I64(coll_model_time(&model, "h100-sxm", COLL_REDUCESCATTER, 2, S, &m1, err, sizeof err),
               0);
  CHECK_EQ_I64(coll_model_time(&model, "h100-sxm", COLL_ALLGATHER, 2, S, &m3, err, sizeof err), 0);
  int64_t A = ser(par.ctrl_bytes, rate);
  int64_t ring = 2 * step_time(S / 4, rate, d, 0) + A;
  CHECK(m3 > 2 * (A + d)); /* the last ACK returns before the all-gather ends */
  for (int32_t i = 0; i < 4; i++)
    CHECK_EQ_I64(mvsim_end(w, 0, done[i]), m1 + ring + m3);
  printf("hierarchical allreduce 2x2 GPUs, S=%llu B: %.3f us = reduce-scatter %.3f + ring %.3f + "
         "all-gather %.3f\n",
         (unsigned long long)S, mvsim_end(w, 0, done[0]) / 1e6, m1 / 1e6, ring / 1e6, m3 / 1e6);
  eng_batch_destroy(w);
  tg_free(&g);
  topo_free(&star);
  coll_model_free(&model);
}

int main(void) {
  par = mvsim_params();
  rings(8, 256, 100 * GBPS); /* 8 MiB over 8 hosts at 100 Gb/s */
  rings(4, 64, 400 * GBPS);
  rings(16, 32, 400 * GBPS);
  hierarchical();
  return mvtest_end();
}

/* Closed forms of collectives on an idle non-blocking fabric at the flow level
 * (network.model flow; docs/model.md, The flow-level model), to the
 * picosecond: on a star (host - switch - host, rate R, delay d) a flow of W
 * wire bytes that shares its bottleneck with k - 1 others takes
 * S_k = ceil(W x 8 x 10^12 / floor(R / k)) ps to send, L = 2d + D to arrive
 * after its last bit left (D: one packet's serialisation at R, on the hop
 * that is not the bottleneck) and its last ACK 2(A + d) more (A: the ACK's
 * serialisation). Ring all-reduce, all-gather and reduce-scatter, the double
 * binary tree all-reduce on 2 and 4 servers, all-to-all among 5, 9 and 17,
 * and a hierarchical all-reduce of 2 x 2 GPUs (the intra-server model's
 * steps around the ring). The packet level's closed forms for the same rings
 * (test_coll_closed) differ by the ACKs that delay each step's first packet:
 * (steps - 1) x A. And a lone flow's links' utilisation: its wire bits over
 * rate x duration. */
#include "coll/coll.h"
#include "mvsim.h"
#include "mvtest.h"

#define US 1000000LL
#define GBPS 1000000000LL

static eng_params_t par;

static int64_t ser(int64_t bytes, int64_t rate) {
  return (bytes * 8 * 1000000000000LL + rate - 1) / rate;
}

/* A flow of b bytes at rate/k: its sending time. */
static int64_t send_k(uint64_t b, int64_t rate, int k) {
  int64_t pkts = (int64_t)((b + (uint64_t)par.mtu - 1) / (uint64_t)par.mtu);
  return ser((int64_t)b + pkts * par.header, rate / k);
}

/* Its latency after the last bit: two propagation delays and one packet's
 * serialisation (the first packet's size) on the other hop. */
static int64_t lat(uint64_t b, int64_t rate, int64_t d) {
  int64_t first = (int64_t)(b < (uint64_t)par.mtu ? b : (uint64_t)par.mtu) + par.header;
  return 2 * d + ser(first, rate);
}

static int64_t ack(int64_t rate, int64_t d) {
  return 2 * (ser(par.ctrl_bytes, rate) + d);
}

/* Runs one collective among n single-GPU servers (hosts 0..n-1) of `star`;
 * returns its end (the last done join). */
static int64_t run_at(const topo_t *star, const coll_desc_t *d, int32_t n, int gps,
                      const coll_model_t *model, const eng_params_t *p) {
  tg_t g = {0};
  int32_t gpus[32], done[32];
  for (int32_t i = 0; i < n; i++)
    gpus[i] = i;
  coll_cluster_t cl = {
      .gpus_per_server = gps, .gpu = "h100-sxm", .model = model, .sync_ps = p->sync};
  char err[512];
  CHECK_EQ_I64(coll_append(&g, &cl, d, n, gpus, NULL, done, err, sizeof err), 0);
  tg_assign_ports(&g);
  eng_exp_desc_t ex = {.topo = star, .tasks = &g, .params = p, .seed = 5};
  eng_batch_t *w = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  eng_result_t r;
  eng_exp_result(w, 0, &r);
  CHECK_EQ_I64(r.status, ENG_OK);
  int64_t end = 0;
  for (int32_t i = 0; i < n; i++)
    end = mvsim_end(w, 0, done[i]) > end ? mvsim_end(w, 0, done[i]) : end;
  CHECK_EQ_I64(r.end_ps, end);
  eng_batch_destroy(w);
  tg_free(&g);
  return end;
}

static int64_t run(const topo_t *star, const coll_desc_t *d, int32_t n, int gps,
                   const coll_model_t *model) {
  return run_at(star, d, n, gps, model, &par);
}

/* Rings: `steps` steps of a block each, back to back (a step starts when the
 * previous one's last bit arrives), then the last ACK. The packet level with
 * one ACK per block takes (steps - 1) x A more: each step's first packet
 * waits for the ACK its host sends for the block it just received. */
static void rings(int32_t n, uint64_t block, int64_t rate) {
  const int64_t d = US;
  topo_t star = mvsim_star(n, rate, d);
  coll_kind_t kinds[3] = {COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER};
  for (int k = 0; k < 3; k++) {
    int steps = kinds[k] == COLL_ALLREDUCE ? 2 * (n - 1) : n - 1;
    coll_desc_t desc = {.kind = kinds[k], .bytes = block * (uint64_t)n};
    int64_t t = run(&star, &desc, n, 1, NULL);
    int64_t cf = steps * (send_k(block, rate, 1) + lat(block, rate, d)) + ack(rate, d);
    printf("ring %-13s n=%2d block %8llu B at %3lld Gb/s: %.3f us (closed form %.3f us)\n",
           coll_name(kinds[k]), n, (unsigned long long)block, (long long)(rate / GBPS), t / 1e6,
           cf / 1e6);
    CHECK_EQ_I64(t, cf);
    eng_params_t pk = par;
    pk.model = ENG_MODEL_PACKET;
    pk.ack_every = 1 << 30;
    if (block % (uint64_t)par.mtu == 0)
      CHECK_EQ_I64(run_at(&star, &desc, n, 1, NULL, &pk) - t,
                   (steps - 1) * ser(par.ctrl_bytes, rate));
  }
  topo_free(&star);
}

/* Double binary trees, one chunk per tree (half the bytes each). Two servers:
 * up (the child to the root of each tree, the two trees in opposite
 * directions), then down. Four servers: tree 0 is 0 <- 2 <- {1, 3}, tree 1
 * its mirror 3 <- 1 <- {2, 0}: the leaves' chunks meet at 2 and at 1 (two
 * flows into one host: each at R/2), one hop up to the roots, one down, and
 * the inner nodes send to both children (two flows out of one host). */
static void trees(int64_t rate) {
  const int64_t d = US;
  uint64_t half = 300000; /* one chunk: below NCCL's 512 KiB step */
  for (int n = 2; n <= 4; n += 2) {
    topo_t star = mvsim_star(n, rate, d);
    coll_desc_t desc = {.kind = COLL_ALLREDUCE, .algo = COLL_TREE, .bytes = 2 * half};
    int64_t t = run(&star, &desc, n, 1, NULL);
    int64_t S1 = send_k(half, rate, 1), S2 = send_k(half, rate, 2), L = lat(half, rate, d);
    int64_t cf = n == 2 ? 2 * (S1 + L) + ack(rate, d) : 2 * S2 + 2 * S1 + 4 * L + ack(rate, d);
    printf("tree allreduce n=%d, %llu B: %.3f us (closed form %.3f us)\n", n,
           (unsigned long long)(2 * half), t / 1e6, cf / 1e6);
    CHECK_EQ_I64(t, cf);
    topo_free(&star);
  }
}

/* All-to-all: every member sends its block to each of the n - 1 others at
 * once; every host's link out and in carries n - 1 flows, each at R/(n-1). */
static void alltoall(int32_t n, uint64_t block, int64_t rate) {
  const int64_t d = US;
  topo_t star = mvsim_star(n, rate, d);
  coll_desc_t desc = {.kind = COLL_ALLTOALL, .bytes = block * (uint64_t)n};
  int64_t t = run(&star, &desc, n, 1, NULL);
  int64_t cf = send_k(block, rate, n - 1) + lat(block, rate, d) + ack(rate, d);
  printf("alltoall n=%2d block %llu B at %lld Gb/s: %.3f us (closed form %.3f us)\n", n,
         (unsigned long long)block, (long long)(rate / GBPS), t / 1e6, cf / 1e6);
  CHECK_EQ_I64(t, cf);
  topo_free(&star);
}

/* Two servers of two GPUs, each GPU its own NIC (hosts 0,1 | 2,3): the
 * model's reduce-scatter M1, a 2-member ring per slot of S/2 bytes (2 steps
 * of S/4, on disjoint host pairs), then the model's all-gather, which waits
 * for the other member's arrival (known sync later) and lasts the model's
 * time minus sync: T = M1 + ring + M3. */
static void hierarchical(void) {
  coll_model_t model = {0};
  char err[512];
  CHECK_EQ_I64(coll_model_load_default(&model, NULL, NULL, err, sizeof err), 0);
  const int64_t rate = 400 * GBPS, d = US;
  topo_t star = mvsim_star(4, rate, d);
  uint64_t S = 4 * 64 * (uint64_t)par.mtu;
  coll_desc_t desc = {.kind = COLL_ALLREDUCE, .bytes = S};
  int64_t t = run(&star, &desc, 4, 2, &model), m1, m3;
  CHECK_EQ_I64(coll_model_time(&model, "h100-sxm", COLL_REDUCESCATTER, 2, S, &m1, err, sizeof err),
               0);
  CHECK_EQ_I64(coll_model_time(&model, "h100-sxm", COLL_ALLGATHER, 2, S, &m3, err, sizeof err), 0);
  int64_t ring = 2 * (send_k(S / 4, rate, 1) + lat(S / 4, rate, d));
  CHECK(m3 > ack(rate, d)); /* the last ACK returns before the all-gather ends */
  printf("hierarchical allreduce 2x2 GPUs, S=%llu B: %.3f us = %.3f + ring %.3f + %.3f\n",
         (unsigned long long)S, t / 1e6, m1 / 1e6, ring / 1e6, m3 / 1e6);
  CHECK_EQ_I64(t, m1 + ring + m3);
  topo_free(&star);
  coll_model_free(&model);
}

/* One flow of W wire bits on a 2-host star: it carries its bits on the
 * sender's port (tier 0) and the switch's port to the receiver (tier 1) over
 * the experiment's duration d (its end): utilisation W / (R d) there, 0 on
 * the other port of each tier. */
static void utilisation(void) {
  const int64_t rate = 100 * GBPS, d = US;
  topo_t star = mvsim_star(2, rate, d);
  tg_t g = {0};
  tg_task_t f = tg_task_default(TG_FLOW);
  f.host = 0;
  f.dst = 1;
  f.bytes = 1000000;
  tg_add(&g, &f);
  tg_assign_ports(&g);
  eng_exp_desc_t ex = {.topo = &star, .tasks = &g, .params = &par, .seed = 5};
  eng_batch_t *w = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  eng_result_t r;
  eng_exp_result(w, 0, &r);
  int64_t pkts = (int64_t)((f.bytes + (uint64_t)par.mtu - 1) / (uint64_t)par.mtu);
  double bits = 8.0 * (double)((int64_t)f.bytes + pkts * par.header);
  int64_t end = send_k(f.bytes, rate, 1) + lat(f.bytes, rate, d) + ack(rate, d);
  CHECK_EQ_I64(r.end_ps, end);
  CHECK_EQ_I64(r.duration_ps, end);
  CHECK_EQ_I64(r.n_tiers, 2);
  double u = bits * 1e12 / ((double)rate * (double)end);
  for (int k = 0; k < 2; k++) {
    CHECK_EQ_I64(r.tier[k].ports, 2);
    CHECK(r.tier[k].max_util == u && r.tier[k].mean_util == u / 2 && r.tier[k].max_queue == 0);
  }
  printf("one flow of %.0f wire bits on a 2-host star: utilisation %.6f of its ports\n", bits, u);
  eng_batch_destroy(w);
  tg_free(&g);
  topo_free(&star);
}

int main(void) {
  par = mvsim_params();
  par.model = ENG_MODEL_FLOW;
  rings(8, 256 * (uint64_t)par.mtu, 100 * GBPS);
  rings(4, 64 * (uint64_t)par.mtu, 400 * GBPS);
  rings(16, 32 * (uint64_t)par.mtu + 1000, 400 * GBPS); /* a last packet that is not full */
  trees(400 * GBPS);
  alltoall(5, 1 << 20, 400 * GBPS);
  alltoall(9, 3 * (uint64_t)par.mtu, 400 * GBPS);
  alltoall(17, 100000, 400 * GBPS);
  hierarchical();
  utilisation();
  return mvtest_end();
}

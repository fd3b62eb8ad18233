/* NCCL collectives as task graphs: flow counts and bytes per algorithm,
 * every step's dependencies in NCCL's order, bytes per member against the
 * nccl-tests formulas, model-timed steps inside servers, and graphs that pass
 * tg_check on generated topologies.
 * Ring all-reduce: 2(n-1) n flows of S/(n C) per channel; rings, loops, trees,
 * chains and the pairwise all-to-all. */
#include "coll/coll.h"
#include "coll/coll_int.h"
#include "mvtest.h"
#include "tg/tg.h"
#include "topo/topo.h"

static coll_model_t model;
static topo_t rail; /* 4 servers x 8 NICs, rail-optimized: hosts 0..31 */

static topo_t topo(const char *text) {
  json_error_t je;
  json_t *o = json_loads(text, 0, &je);
  topo_t t;
  char err[512];
  if (!o || topo_from_json(o, "test", &t, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  json_decref(o);
  return t;
}

static int has_edge(const tg_t *g, int32_t task, int32_t pred, tg_on_t on) {
  for (int32_t i = 0; i < g->n_edges; i++)
    if (g->e[i].task == task && g->e[i].pred == pred && g->e[i].on == (int32_t)on) return 1;
  return 0;
}

static int32_t n_preds(const tg_t *g, int32_t task) {
  int32_t k = 0;
  for (int32_t i = 0; i < g->n_edges; i++)
    k += g->e[i].task == task;
  return k;
}

static int32_t count(const tg_t *g, tg_kind_t kind) {
  int32_t k = 0;
  for (int32_t i = 0; i < g->n; i++)
    k += g->t[i].kind == (int32_t)kind;
  return k;
}

/* Bytes of the flows a host sends. */
static uint64_t sent(const tg_t *g, int32_t host) {
  uint64_t b = 0;
  for (int32_t i = 0; i < g->n; i++)
    if (g->t[i].kind == TG_FLOW && g->t[i].host == host) b += g->t[i].bytes;
  return b;
}

static void check_ok(const tg_t *g, const topo_t *t) {
  char err[512] = "";
  CHECK_EQ_I64(tg_check(g, t, "coll", err, sizeof err), 0);
  if (err[0]) fprintf(stderr, "%s\n", err);
}

static coll_cluster_t cluster(int32_t gpus, int32_t nics) {
  return (coll_cluster_t){.gpus_per_server = gpus,
                          .nics_per_server = nics,
                          .gpu = "h100-sxm",
                          .model = &model,
                          .sync_ps = 1000000};
}

/* One GPU per server, servers 0..n-1 (GPU 8s): a flat ring. Ring allreduce
 * of S over n: per channel 2(n-1) steps of n flows of S/(n C) bytes. */
static void test_ring_allreduce(void) {
  for (int32_t n = 2; n <= 4; n++)
    for (int32_t ch = 1; ch <= 3; ch++) {
      tg_t g = {0};
      coll_cluster_t cl = cluster(8, 8);
      coll_desc_t d = {.kind = COLL_ALLREDUCE, .bytes = (uint64_t)n * ch * 1000, .channels = ch};
      int32_t gpus[4], done[4];
      for (int32_t i = 0; i < n; i++)
        gpus[i] = 8 * i;
      char err[256];
      CHECK_EQ_I64(coll_append(&g, &cl, &d, n, gpus, NULL, done, err, sizeof err), 0);
      int32_t steps = 2 * (n - 1);
      CHECK_EQ_I64(count(&g, TG_FLOW), ch * steps * n);
      CHECK_EQ_I64(count(&g, TG_JOIN), n);
      for (int32_t c = 0; c < ch; c++)
        for (int32_t s = 0; s < steps; s++)
          for (int32_t k = 0; k < n; k++) {
            int32_t t = (c * steps + s) * n + k;
            const tg_task_t *f = &g.t[t];
            CHECK_EQ_I64(f->bytes, 1000);
            CHECK_EQ_I64(f->host, 8 * k);
            CHECK_EQ_I64(f->dst, 8 * ((k + 1) % n));
            CHECK_EQ_I64(f->gpu, 8 * k);
            /* step s forwards what k-1 sent at step s-1, on its arrival */
            int32_t in = (c * steps + s - 1) * n + (k + n - 1) % n;
            CHECK_EQ_I64(n_preds(&g, t), s > 0);
            CHECK(s == 0 || has_edge(&g, t, in, TG_ON_RECV));
          }
      /* busbw: every member sends 2(n-1)/n of S. */
      for (int32_t k = 0; k < n; k++) {
        CHECK_EQ_I64(sent(&g, 8 * k), 2 * (n - 1) * d.bytes / n);
        CHECK_EQ_I64(g.t[done[k]].host, 8 * k);
        CHECK_EQ_I64(n_preds(&g, done[k]), 2 * ch * steps); /* its sends' ends, arrivals */
      }
      check_ok(&g, &rail);
      tg_free(&g);
    }
}

/* chunk_bytes: loops of n chunks; a loop starts after the previous loop's
 * last arrival; at most 2 flows in flight per connection. */
static void test_ring_loops(void) {
  tg_t g = {0};
  coll_cluster_t cl = cluster(8, 8);
  coll_desc_t d = {.kind = COLL_ALLREDUCE, .bytes = 8000, .chunk_bytes = 500};
  int32_t gpus[4] = {0, 8, 16, 24}, after[4], done[4];
  for (int32_t k = 0; k < 4; k++) {
    tg_task_t c = tg_task_default(TG_COMPUTE);
    c.host = 8 * k;
    c.dur = 1000;
    after[k] = tg_add(&g, &c);
  }
  char err[256];
  CHECK_EQ_I64(coll_append(&g, &cl, &d, 4, gpus, after, done, err, sizeof err), 0);
  CHECK_EQ_I64(count(&g, TG_FLOW), 4 * 6 * 4); /* 4 loops of 2000 / 500 */
  for (int32_t l = 0; l < 4; l++)
    for (int32_t s = 0; s < 6; s++)
      for (int32_t k = 0; k < 4; k++) {
        int32_t q = l * 6 + s, t = 4 + q * 4 + k, prev = (k + 3) % 4;
        CHECK_EQ_I64(g.t[t].bytes, 500);
        CHECK(has_edge(&g, t, after[k], TG_ON_END));
        CHECK_EQ_I64(n_preds(&g, t), 1 + (q > 0) + (q >= 2));
        CHECK(q == 0 || has_edge(&g, t, 4 + (q - 1) * 4 + prev, TG_ON_RECV));
        CHECK(q < 2 || has_edge(&g, t, 4 + (q - 2) * 4 + k, TG_ON_END));
      }
  check_ok(&g, &rail);
  tg_free(&g);
}

/* Allgather and reducescatter: n-1 steps; step s of ring position k moves
 * block k-s (allgather) or k-1-s (reducescatter), blocks of 1001, 1001,
 * 1000, 1000 bytes. Each member sends (n-1)/n of S. */
static void test_ring_ag_rs(void) {
  for (int kind = COLL_ALLGATHER; kind <= COLL_REDUCESCATTER; kind++) {
    tg_t g = {0};
    coll_cluster_t cl = cluster(8, 8);
    coll_desc_t d = {.kind = kind, .bytes = 4002};
    int32_t gpus[4] = {0, 8, 16, 24}, done[4];
    char err[256];
    CHECK_EQ_I64(coll_append(&g, &cl, &d, 4, gpus, NULL, done, err, sizeof err), 0);
    CHECK_EQ_I64(count(&g, TG_FLOW), 3 * 4);
    for (int32_t s = 0; s < 3; s++)
      for (int32_t k = 0; k < 4; k++) {
        int32_t blk = ((kind == COLL_ALLGATHER ? k - s : k - 1 - s) % 4 + 4) % 4;
        CHECK_EQ_I64(g.t[s * 4 + k].bytes, blk < 2 ? 1001 : 1000);
        CHECK(s == 0 || has_edge(&g, s * 4 + k, (s - 1) * 4 + (k + 3) % 4, TG_ON_RECV));
      }
    uint64_t total = 0;
    for (int32_t k = 0; k < 4; k++)
      total += sent(&g, 8 * k);
    CHECK_EQ_I64(total, 3 * 4002); /* n (n-1)/n S */
    check_ok(&g, &rail);
    tg_free(&g);
  }
}

/* Two servers of four GPUs (own NICs): reducescatter inside each server
 * (model), a ring per slot between servers (S/4 each), allgather inside. */
static void test_hierarchical(void) {
  tg_t g = {0};
  coll_cluster_t cl = cluster(8, 8);
  coll_desc_t d = {.kind = COLL_ALLREDUCE, .bytes = 8000000};
  int32_t gpus[8] = {0, 1, 2, 3, 8, 9, 10, 11}, after[8], done[8];
  for (int32_t k = 0; k < 8; k++) {
    tg_task_t c = tg_task_default(TG_COMPUTE);
    c.host = gpus[k];
    after[k] = tg_add(&g, &c);
  }
  char err[256];
  CHECK_EQ_I64(coll_append(&g, &cl, &d, 8, gpus, after, done, err, sizeof err), 0);
  int64_t rs, ag;
  CHECK_EQ_I64(
      coll_model_time(&model, "h100-sxm", COLL_REDUCESCATTER, 4, d.bytes, &rs, err, sizeof err), 0);
  CHECK_EQ_I64(
      coll_model_time(&model, "h100-sxm", COLL_ALLGATHER, 4, d.bytes, &ag, err, sizeof err), 0);
  /* tasks: 8 computes, 8 RS steps, 4 slots x 2 steps x 2 flows, 8 arrival
   * joins, 8 AG steps, 8 done joins */
  CHECK_EQ_I64(g.n, 8 + 8 + 16 + 8 + 8 + 8);
  CHECK_EQ_I64(count(&g, TG_COLL), 16);
  for (int32_t k = 0; k < 8; k++) {
    const tg_task_t *c = &g.t[8 + k];
    CHECK_EQ_I64(c->kind, TG_COLL);
    CHECK_EQ_I64(c->host, gpus[k]);
    /* every member of the server waits; 3 of them on other hosts: sync late */
    CHECK_EQ_I64(c->dur, rs - cl.sync_ps);
    CHECK_EQ_I64(n_preds(&g, 8 + k), 4);
    for (int32_t j = 0; j < 4; j++)
      CHECK(has_edge(&g, 8 + k, after[(k / 4) * 4 + j], TG_ON_END));
  }
  for (int32_t slot = 0; slot < 4; slot++)
    for (int32_t s = 0; s < 2; s++)
      for (int32_t k = 0; k < 2; k++) {
        int32_t t = 16 + (slot * 2 + s) * 2 + k, me = k * 4 + slot;
        CHECK_EQ_I64(g.t[t].bytes, 1000000);
        CHECK_EQ_I64(g.t[t].host, gpus[me]);
        CHECK_EQ_I64(g.t[t].dst, gpus[(1 - k) * 4 + slot]);
        CHECK(has_edge(&g, t, 8 + me, TG_ON_END));
      }
  for (int32_t k = 0; k < 8; k++) {
    int32_t a = 32 + k, c = 40 + k;
    CHECK_EQ_I64(g.t[a].kind, TG_JOIN);
    CHECK_EQ_I64(n_preds(&g, a), 2); /* both steps' arrivals */
    CHECK_EQ_I64(g.t[c].dur, ag - cl.sync_ps);
    for (int32_t j = 0; j < 4; j++)
      CHECK(has_edge(&g, c, 32 + (k / 4) * 4 + j, TG_ON_END));
    /* inter-server bytes: 2(m-1)/m of S/4 */
    CHECK_EQ_I64(sent(&g, gpus[k]), 2 * 1 * (d.bytes / 4) / 2);
  }
  check_ok(&g, &rail);
  tg_free(&g);
  /* The same GPUs behind one NIC per server: every predecessor is local,
   * the steps last the model's time. */
  cl = cluster(8, 1);
  for (int32_t k = 0; k < 8; k++) {
    tg_task_t c = tg_task_default(TG_COMPUTE);
    c.host = k / 4;
    after[k] = tg_add(&g, &c);
  }
  CHECK_EQ_I64(coll_append(&g, &cl, &d, 8, gpus, after, done, err, sizeof err), 0);
  CHECK_EQ_I64(g.t[8].kind, TG_COLL);
  CHECK_EQ_I64(g.t[8].dur, rs);
  CHECK_EQ_I64(g.t[8].host, 0);
  CHECK_EQ_I64(g.t[16].host, 0); /* slot 0's ring: host 0 (server 0) to 1 (server 1) */
  CHECK_EQ_I64(g.t[16].dst, 1);
  check_ok(&g, &rail);
  tg_free(&g);
}

/* One server: one coll task per member, the model's allreduce time. */
static void test_intra_only(void) {
  tg_t g = {0};
  coll_cluster_t cl = cluster(8, 8);
  coll_desc_t d = {.kind = COLL_ALLREDUCE, .bytes = 1 << 26, .start = 5};
  int32_t gpus[8] = {0, 1, 2, 3, 4, 5, 6, 7}, done[8];
  char err[256];
  int64_t t;
  CHECK_EQ_I64(coll_append(&g, &cl, &d, 8, gpus, NULL, done, err, sizeof err), 0);
  CHECK_EQ_I64(coll_model_time(&model, "h100-sxm", COLL_ALLREDUCE, 8, d.bytes, &t, err, sizeof err),
               0);
  CHECK_EQ_I64(g.n, 16);
  for (int32_t k = 0; k < 8; k++) {
    CHECK_EQ_I64(g.t[k].dur, t); /* no predecessors: nothing learnt late */
    CHECK_EQ_I64(g.t[k].start, 5);
    CHECK(has_edge(&g, done[k], k, TG_ON_END));
  }
  check_ok(&g, &rail);
  tg_free(&g);
}

/* NCCL's btree (src/graph/trees.cc's picture for 14 ranks) and the double
 * tree's second tree (mirrored for even counts, shifted for odd). */
static void test_btree(void) {
  int32_t u, a, b;
  coll_btree(14, 0, &u, &a, &b);
  CHECK(u == -1 && a == -1 && b == 8);
  coll_btree(14, 8, &u, &a, &b);
  CHECK(u == 0 && a == 4 && b == 12);
  coll_btree(14, 12, &u, &a, &b);
  CHECK(u == 8 && a == 10 && b == 13);
  coll_btree(14, 13, &u, &a, &b);
  CHECK(u == 12 && a == -1 && b == -1);
  coll_btree(14, 6, &u, &a, &b);
  CHECK(u == 4 && a == 5 && b == 7);
  coll_dtree(12, 1, 11, &u, &a, &b); /* mirror: 11 is the root, over 3 */
  CHECK(u == -1 && a == -1 && b == 3);
  coll_dtree(12, 1, 3, &u, &a, &b);
  CHECK(u == 11 && a == 7 && b == 1);
  coll_dtree(12, 1, 1, &u, &a, &b);
  CHECK(u == 3 && a == 2 && b == 0);
  coll_dtree(13, 1, 0, &u, &a, &b); /* shift: 0 is 12's place, under 8 + 1 */
  CHECK(u == 9 && a == 11 && b == -1);
  coll_dtree(13, 1, 1, &u, &a, &b);
  CHECK(u == -1 && a == -1 && b == 9);
}

/* Tree allreduce among 4 servers: tree 0 is 0 <- 2 <- {1, 3}, tree 1 its
 * mirror 3 <- 1 <- {0, 2}; per tree and chunk 3 flows up, 3 down. */
static void test_tree(void) {
  tg_t g = {0};
  coll_cluster_t cl = cluster(8, 8);
  coll_desc_t d = {.kind = COLL_ALLREDUCE, .algo = COLL_TREE, .bytes = 8000, .chunk_bytes = 1000};
  int32_t gpus[4] = {0, 8, 16, 24}, done[4];
  char err[256];
  CHECK_EQ_I64(coll_append(&g, &cl, &d, 4, gpus, NULL, done, err, sizeof err), 0);
  CHECK_EQ_I64(count(&g, TG_FLOW), 2 * 4 * 6);
  /* tree 0, chunk 0: up in BFS-reverse order 3->2, 1->2, 2->0; down 0->2,
   * 2->1, 2->3 */
  int32_t up32 = 0, up12 = 1, up20 = 2, dn02 = 3, dn21 = 4, dn23 = 5;
  CHECK(g.t[up32].host == 24 && g.t[up32].dst == 16);
  CHECK(g.t[up12].host == 8 && g.t[up12].dst == 16);
  CHECK(g.t[up20].host == 16 && g.t[up20].dst == 0);
  CHECK(g.t[dn02].host == 0 && g.t[dn02].dst == 16);
  CHECK(g.t[dn21].host == 16 && g.t[dn21].dst == 8);
  CHECK(g.t[dn23].host == 16 && g.t[dn23].dst == 24);
  CHECK_EQ_I64(n_preds(&g, up32), 0);
  CHECK(has_edge(&g, up20, up32, TG_ON_RECV) && has_edge(&g, up20, up12, TG_ON_RECV));
  CHECK_EQ_I64(n_preds(&g, up20), 2);
  CHECK(has_edge(&g, dn02, up20, TG_ON_RECV));
  CHECK(has_edge(&g, dn21, dn02, TG_ON_RECV) && has_edge(&g, dn23, dn02, TG_ON_RECV));
  for (int32_t i = 0; i < 24; i++)
    CHECK_EQ_I64(g.t[i].bytes, 1000);
  /* chunk 1 of tree 0 (tasks 6..11) has the same shape */
  CHECK(has_edge(&g, 8, 6, TG_ON_RECV) && has_edge(&g, 8, 7, TG_ON_RECV));
  /* tree 1, chunk 0: root 3 (host 24), 1 under it */
  CHECK(g.t[24 + 2].host == 8 && g.t[24 + 2].dst == 24);
  uint64_t total = 0;
  for (int32_t k = 0; k < 4; k++)
    total += sent(&g, 8 * k);
  CHECK_EQ_I64(total, 2 * 3 * 8000); /* 2 (m-1) S */
  check_ok(&g, &rail);
  tg_free(&g);
}

/* Broadcast from member 1 and reduce to it, 2 MiB in NCCL's 512 KiB chunks,
 * along servers 1, 2, 3, 0 (reduce: 2, 3, 0, 1). */
static void test_rooted(void) {
  for (int kind = COLL_BROADCAST; kind <= COLL_REDUCE; kind++) {
    tg_t g = {0};
    coll_cluster_t cl = cluster(8, 8);
    coll_desc_t d = {.kind = kind, .bytes = 2 << 20, .root = 1};
    int32_t gpus[4] = {0, 8, 16, 24}, done[4];
    char err[256];
    CHECK_EQ_I64(coll_append(&g, &cl, &d, 4, gpus, NULL, done, err, sizeof err), 0);
    CHECK_EQ_I64(count(&g, TG_FLOW), 4 * 3);
    int32_t order[4] = {1, 2, 3, 0};
    if (kind == COLL_REDUCE)
      for (int32_t i = 0; i < 4; i++)
        order[i] = (i + 2) % 4;
    for (int32_t q = 0; q < 4; q++)
      for (int32_t k = 0; k < 3; k++) {
        int32_t t = q * 3 + k;
        CHECK_EQ_I64(g.t[t].bytes, 512 * 1024);
        CHECK_EQ_I64(g.t[t].host, 8 * order[k]);
        CHECK_EQ_I64(g.t[t].dst, 8 * order[k + 1]);
        CHECK_EQ_I64(n_preds(&g, t), k > 0);
        CHECK(k == 0 || has_edge(&g, t, t - 1, TG_ON_RECV));
      }
    for (int32_t k = 0; k < 3; k++) /* busbw factor 1: S per forwarding member */
      CHECK_EQ_I64(sent(&g, 8 * order[k]), d.bytes);
    check_ok(&g, &rail);
    tg_free(&g);
  }
}

/* Alltoall over 2 servers of 2 GPUs: the pair inside a server through the
 * model (2 x S/n), 1000-byte flows to the 2 peers outside, pairwise order. */
static void test_alltoall(void) {
  tg_t g = {0};
  coll_cluster_t cl = cluster(8, 8);
  coll_desc_t d = {.kind = COLL_ALLTOALL, .bytes = 4000, .a2a_window = 1};
  int32_t gpus[4] = {0, 1, 8, 9}, done[4];
  char err[256];
  CHECK_EQ_I64(coll_append(&g, &cl, &d, 4, gpus, NULL, done, err, sizeof err), 0);
  int64_t t;
  CHECK_EQ_I64(coll_model_time(&model, "h100-sxm", COLL_ALLTOALL, 2, 2000, &t, err, sizeof err), 0);
  CHECK_EQ_I64(count(&g, TG_COLL), 4);
  CHECK_EQ_I64(g.t[0].dur, t);
  CHECK_EQ_I64(count(&g, TG_FLOW), 8);
  /* member 0: rounds 1 (peer 1, same server), 2 (peer 2), 3 (peer 3) */
  CHECK(g.t[4].host == 0 && g.t[4].dst == 8 && g.t[4].bytes == 1000);
  CHECK(g.t[5].host == 0 && g.t[5].dst == 9);
  CHECK(has_edge(&g, 5, 4, TG_ON_END)); /* a2a_window 1 */
  for (int32_t k = 0; k < 4; k++)       /* (n-1)/n S: 2000 by flows, 1000 inside */
    CHECK_EQ_I64(sent(&g, gpus[k]), 2000);
  check_ok(&g, &rail);
  tg_free(&g);
}

static void test_sendrecv(void) {
  tg_t g = {0};
  coll_cluster_t cl = cluster(8, 8);
  coll_desc_t d = {.kind = COLL_SENDRECV, .bytes = 1000001, .channels = 2};
  int32_t gpus[2] = {3, 11}, done[2];
  char err[256];
  CHECK_EQ_I64(coll_append(&g, &cl, &d, 2, gpus, NULL, done, err, sizeof err), 0);
  CHECK_EQ_I64(count(&g, TG_FLOW), 2);
  CHECK(g.t[0].host == 3 && g.t[0].dst == 11 && g.t[0].bytes == 500001 && g.t[1].bytes == 500000);
  CHECK(has_edge(&g, done[1], 0, TG_ON_RECV) && has_edge(&g, done[0], 0, TG_ON_END));
  tg_free(&g);
  gpus[1] = 5; /* inside the server: both members' steps, the model's sendrecv */
  CHECK_EQ_I64(coll_append(&g, &cl, &d, 2, gpus, NULL, done, err, sizeof err), 0);
  int64_t t;
  CHECK_EQ_I64(coll_model_time(&model, "h100-sxm", COLL_SENDRECV, 2, d.bytes, &t, err, sizeof err),
               0);
  CHECK(g.t[0].kind == TG_COLL && g.t[1].kind == TG_COLL && g.t[0].dur == t);
  tg_free(&g);
}

static void bad(coll_cluster_t cl, coll_desc_t d, int32_t n, const int32_t *gpus,
                const char *want) {
  tg_t g = {0};
  int32_t done[16];
  char err[512] = "";
  CHECK_EQ_I64(coll_append(&g, &cl, &d, n, gpus, NULL, done, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, want);
  tg_free(&g);
}

static void test_errors(void) {
  coll_cluster_t cl = cluster(8, 8);
  int32_t two[2] = {0, 8}, dup[2] = {8, 8}, uneven[3] = {0, 1, 8}, three[3] = {0, 8, 16};
  coll_desc_t ar = {.kind = COLL_ALLREDUCE, .bytes = 1000};
  bad(cl, ar, 2, dup, "members 0 and 1 are both GPU 8");
  bad(cl, ar, 3, uneven, "server of GPU 8 holds 1 members, the first one 2");
  coll_desc_t small = {.kind = COLL_ALLREDUCE, .bytes = 2};
  bad(cl, small, 3, three, "a ring step would carry no data");
  coll_desc_t tree = {.kind = COLL_ALLGATHER, .algo = COLL_TREE, .bytes = 1000};
  bad(cl, tree, 2, two, "the tree is for allreduce");
  coll_desc_t bc = {.kind = COLL_BROADCAST, .bytes = 1000, .root = 2};
  bad(cl, bc, 2, two, "broadcast: root 2 is not a member (0..1)");
  coll_desc_t sr = {.kind = COLL_SENDRECV, .bytes = 1000};
  bad(cl, sr, 3, three, "sendrecv: needs 2 members");
  int32_t pair[2] = {0, 1};
  coll_cluster_t nomodel = {.gpus_per_server = 8};
  bad(nomodel, ar, 2, pair, "2 members share a server: the intra-server model");
  coll_cluster_t b200 = cluster(8, 8);
  b200.gpu = "b200";
  bad(b200, ar, 2, pair, "no intra-server model for b200 allreduce among 2 GPUs");
  int32_t nic[8] = {0, 0, 0, 0, 9, 0, 0, 0};
  coll_cluster_t badnic = cluster(8, 8);
  badnic.gpu_nic = nic;
  int32_t g4[1] = {4};
  bad(badnic, ar, 1, g4, "GPU 4 of a server uses NIC 9, not in 0..7");
}

/* Large collectives on real topologies: 4 servers x 8 GPUs, every
 * algorithm; the GPU-to-NIC map 2 GPUs per NIC on the fat-tree. */
static void test_topologies(void) {
  topo_t fat = topo("{\"kind\": \"fat_tree\", \"tiers\": 2, \"k\": 8}"); /* 32 hosts */
  int32_t gpus[32], done[32];
  for (int32_t i = 0; i < 32; i++)
    gpus[i] = i;
  int32_t nic[8] = {0, 0, 1, 1, 2, 2, 3, 3};
  for (int kind = 0; kind < COLL_SENDRECV; kind++)
    for (int algo = 0; algo <= (kind == COLL_ALLREDUCE); algo++) {
      coll_desc_t d = {.kind = kind, .algo = algo, .bytes = 64 << 20, .channels = 2, .root = 9};
      coll_cluster_t cl = cluster(8, 8);
      tg_t g = {0};
      char err[512];
      CHECK_EQ_I64(coll_append(&g, &cl, &d, 32, gpus, NULL, done, err, sizeof err), 0);
      tg_assign_ports(&g);
      check_ok(&g, &rail);
      tg_free(&g);
      cl = cluster(8, 8); /* 4 servers of 4 NICs on the fat-tree's first 16 hosts */
      cl.gpu_nic = nic;
      cl.nics_per_server = 4;
      CHECK_EQ_I64(coll_append(&g, &cl, &d, 32, gpus, NULL, done, err, sizeof err), 0);
      check_ok(&g, &fat);
      for (int32_t i = 0; i < g.n; i++)
        CHECK(g.t[i].host < 16);
      tg_free(&g);
    }
  topo_free(&fat);
}

int main(void) {
  char err[512];
  if (coll_model_load_default(&model, NULL, NULL, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  rail = topo("{\"kind\": \"rail_optimized\", \"servers\": 4, \"nics_per_server\": 8}");
  test_ring_allreduce();
  test_ring_loops();
  test_ring_ag_rs();
  test_hierarchical();
  test_intra_only();
  test_btree();
  test_tree();
  test_rooted();
  test_alltoall();
  test_sendrecv();
  test_errors();
  test_topologies();
  topo_free(&rail);
  coll_model_free(&model);
  return mvtest_end();
}

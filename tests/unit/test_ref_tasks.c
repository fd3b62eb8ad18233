/* The reference simulator's task graphs (docs/model.md, Tasks and
 * dependencies) against timings computed here by hand on a star (100 Gb/s,
 * 1 us links, sync 0.5 us): compute before a flow, chains of flows on recv and
 * on end, k-of-n joins and a start that moves earlier, sync between hosts,
 * streams, the rank order of flows that start together, recv before end, and
 * the end statuses. */
#include "mvsim.h"
#include "mvtest.h"
#include "ref/ref.h"

#define US 1000000LL /* ps */
#define NS 1000LL

static const int64_t D = 1 * US, SYNC = 500 * NS;
static int64_t S, C; /* ps: ser of a full data packet (1048 B) and of an ACK (64 B) */

static int64_t ser(int64_t w) { /* at 100 Gb/s: 80 ps a byte */
  return w * 80;
}

/* One flow of n full packets alone on a host-switch-host path: the last data
 * packet arrives at (n+1)S + 2D; its ACK returns 2(C+D) later. */
static int64_t recv_after(int64_t n) {
  return (n + 1) * S + 2 * D;
}
static int64_t fct(int64_t n) {
  return recv_after(n) + 2 * (C + D);
}

static eng_params_t params(void) {
  return (eng_params_t){.mtu = 1000,
                        .header = 48,
                        .ctrl_bytes = 64,
                        .buffer = 1000000,
                        .host_slots = 64,
                        .pfc = 1,
                        .pfc_a16 = 8192, /* 0.125 */
                        .pfc_resume = 2 * 1048,
                        .ecn_kmin = -1,
                        .ecn_kmax = -1,
                        .ecn_pmax = -1,
                        .ack_every = 1,
                        .rto = 1000 * US,
                        .max_time = 1000000 * US,
                        .sync = SYNC,
                        .pfc_headroom = -1, /* none */
                        .standalone_header = -1};
}

static int32_t compute(tg_t *g, int32_t host, int64_t dur, int64_t start) {
  tg_task_t t = tg_task_default(TG_COMPUTE);
  t.host = host;
  t.dur = dur;
  t.start = start;
  return tg_add(g, &t);
}

static int32_t flow(tg_t *g, int32_t src, int32_t dst, int64_t packets, int64_t start) {
  tg_task_t t = tg_task_default(TG_FLOW);
  t.host = src;
  t.dst = dst;
  t.bytes = (uint64_t)packets * 1000;
  t.start = start;
  t.sport = 10000 + (uint32_t)g->n;
  t.dport = 100;
  return tg_add(g, &t);
}

static int32_t join(tg_t *g, int32_t host, int32_t need) {
  tg_task_t t = tg_task_default(TG_JOIN);
  t.host = host;
  t.need = need;
  return tg_add(g, &t);
}

/* Runs g (checked by tg_check first) and expects the status. */
static ref_result_t run(const topo_t *t, const tg_t *g, ref_status_t want) {
  eng_params_t p = params();
  ref_result_t r;
  char err[256];
  CHECK_EQ_I64(tg_check(g, t, "test", err, sizeof err), 0);
  if (ref_run(t, g, &p, 1, &r)) {
    CHECK(0);
    exit(1);
  }
  CHECK_EQ_I64(r.status, want);
  return r;
}

/* A compute task delays its successor flow by exactly its duration; delay and
 * the flow's own start add as max(start, K + delay). */
static void test_compute_then_flow(void) {
  topo_t t = mvsim_star(3, 100000000000LL, D);
  const int64_t dur = 3 * US + 7, n = 10;
  for (int v = 0; v < 3; v++) {
    tg_t g = {0};
    int32_t c = compute(&g, 0, dur, 0), f = flow(&g, 0, 1, n, v == 2 ? 10 * US : 0);
    g.t[f].delay = v == 1 ? 2 * US : 0;
    tg_edge(&g, f, c, TG_ON_END);
    ref_result_t r = run(&t, &g, REF_OK);
    int64_t st = v == 0 ? dur : v == 1 ? dur + 2 * US : 10 * US;
    CHECK_EQ_I64(r.start_ps[c], 0);
    CHECK_EQ_I64(r.end_ps[c], dur);
    CHECK_EQ_I64(r.recv_ps[c], -1);
    CHECK_EQ_I64(r.start_ps[f], st);
    CHECK_EQ_I64(r.recv_ps[f], st + recv_after(n));
    CHECK_EQ_I64(r.end_ps[f], st + fct(n));
    CHECK_EQ_I64(r.last_end_ps, st + fct(n));
    CHECK_EQ_I64(r.packet_hops, 4 * n);
    ref_result_free(&r);
    tg_free(&g);
  }
  topo_free(&t);
}

/* Chains of k flows. On recv: flow i goes from host i to i+1 and starts when
 * flow i-1 has delivered to host i; the last ACK of flow i-1 leaves host i
 * at that instant and, control first, delays flow i's data by one ACK time C:
 * start_i = iR + (i-1)C, recv_i = (i+1)R + iC. On end: every flow from host 0
 * (to hosts 1..k), each after the previous one's end: start_i = i * FCT. */
static void test_chains(void) {
  enum { K = 5 };
  const int64_t n = 7, R = recv_after(n);
  topo_t t = mvsim_star(K + 1, 100000000000LL, D);
  tg_t g = {0};
  int32_t f[K];
  for (int i = 0; i < K; i++) {
    f[i] = flow(&g, i, i + 1, n, 0);
    if (i) tg_edge(&g, f[i], f[i - 1], TG_ON_RECV);
  }
  ref_result_t r = run(&t, &g, REF_OK);
  for (int i = 0; i < K; i++) {
    CHECK_EQ_I64(r.start_ps[f[i]], i ? i * R + (i - 1) * C : 0);
    CHECK_EQ_I64(r.recv_ps[f[i]], (i + 1) * R + i * C);
    CHECK_EQ_I64(r.end_ps[f[i]], (i + 1) * R + i * C + 2 * (C + D));
  }
  CHECK_EQ_I64(r.last_end_ps, K * R + (K - 1) * C + 2 * (C + D));
  ref_result_free(&r);
  tg_free(&g);

  for (int i = 0; i < K; i++) {
    f[i] = flow(&g, 0, i + 1, n, 0);
    if (i) tg_edge(&g, f[i], f[i - 1], TG_ON_END);
  }
  r = run(&t, &g, REF_OK);
  for (int i = 0; i < K; i++) {
    CHECK_EQ_I64(r.start_ps[f[i]], i * fct(n));
    CHECK_EQ_I64(r.end_ps[f[i]], (i + 1) * fct(n));
  }
  ref_result_free(&r);
  tg_free(&g);
  topo_free(&t);
}

/* Joins on host 0 after computes of 5, 3 and 4 us: need 1 fires at 3 us, need 2
 * at 4 us, need 0 (all) at 5 us; its successor runs 1 us from there. */
static void test_joins(void) {
  topo_t t = mvsim_star(3, 100000000000LL, D);
  const int32_t needs[3] = {1, 2, 0};
  const int64_t fire[3] = {3 * US, 4 * US, 5 * US};
  for (int v = 0; v < 3; v++) {
    tg_t g = {0};
    int32_t a = compute(&g, 0, 5 * US, 0), b = compute(&g, 0, 3 * US, 0);
    int32_t c = compute(&g, 0, 4 * US, 0), j = join(&g, 0, needs[v]);
    int32_t after = compute(&g, 0, 1 * US, 0);
    tg_edge(&g, j, a, TG_ON_END);
    tg_edge(&g, j, b, TG_ON_END);
    tg_edge(&g, j, c, TG_ON_END);
    tg_edge(&g, after, j, TG_ON_END);
    ref_result_t r = run(&t, &g, REF_OK);
    CHECK_EQ_I64(r.start_ps[j], fire[v]);
    CHECK_EQ_I64(r.end_ps[j], fire[v]);
    CHECK_EQ_I64(r.start_ps[after], fire[v]);
    CHECK_EQ_I64(r.end_ps[after], fire[v] + US);
    CHECK_EQ_I64(r.last_end_ps, v == 2 ? 6 * US : 5 * US);
    ref_result_free(&r);
    tg_free(&g);
  }
  /* A need-1 join on host 1 after a 1 us compute on host 0 (known at 1.5 us)
   * and a compute of `local` on host 1: its start, first set at 1.5 us + delay,
   * moves earlier when the local one ends first. */
  const int64_t local[3] = {1200 * NS, 1200 * NS, 2 * US}, delay[3] = {0, 100 * NS, 0};
  const int64_t want[3] = {1200 * NS, 1300 * NS, 1500 * NS};
  for (int v = 0; v < 3; v++) {
    tg_t g = {0};
    int32_t far = compute(&g, 0, 1 * US, 0), near = compute(&g, 1, local[v], 0);
    int32_t j = join(&g, 1, 1);
    g.t[j].delay = delay[v];
    tg_edge(&g, j, far, TG_ON_END);
    tg_edge(&g, j, near, TG_ON_END);
    ref_result_t r = run(&t, &g, REF_OK);
    CHECK_EQ_I64(r.start_ps[j], want[v]);
    ref_result_free(&r);
    tg_free(&g);
  }
  topo_free(&t);
}

/* Across hosts an event is known sync later: compute to compute, a flow's end
 * (at its source) and its recv (at its destination) to tasks on the source, the
 * destination and a third host. */
static void test_sync(void) {
  topo_t t = mvsim_star(3, 100000000000LL, D);
  const int64_t n = 4;
  tg_t g = {0};
  int32_t c0 = compute(&g, 0, 2 * US, 0), c1 = compute(&g, 1, 1, 0);
  tg_edge(&g, c1, c0, TG_ON_END);
  int32_t f = flow(&g, 0, 1, n, 10 * US);
  int32_t w[6];
  for (int k = 0; k < 6; k++) { /* on host k / 2, after end (even k) or recv (odd) */
    w[k] = compute(&g, k / 2, 1, 0);
    tg_edge(&g, w[k], f, k % 2 ? TG_ON_RECV : TG_ON_END);
  }
  ref_result_t r = run(&t, &g, REF_OK);
  CHECK_EQ_I64(r.start_ps[c1], 2 * US + SYNC);
  CHECK_EQ_I64(r.end_ps[c1], 2 * US + SYNC + 1);
  int64_t rv = 10 * US + recv_after(n), en = 10 * US + fct(n);
  CHECK_EQ_I64(r.recv_ps[f], rv);
  CHECK_EQ_I64(r.end_ps[f], en);
  CHECK_EQ_I64(r.start_ps[w[0]], en);        /* end, on the source */
  CHECK_EQ_I64(r.start_ps[w[1]], rv + SYNC); /* recv, on the source */
  CHECK_EQ_I64(r.start_ps[w[2]], en + SYNC); /* end, on the destination */
  CHECK_EQ_I64(r.start_ps[w[3]], rv);        /* recv, on the destination */
  CHECK_EQ_I64(r.start_ps[w[4]], en + SYNC); /* a third host */
  CHECK_EQ_I64(r.start_ps[w[5]], rv + SYNC);
  ref_result_free(&r);
  tg_free(&g);
  topo_free(&t);
}

/* A stream runs its members one at a time in task order; a task outside it
 * runs alongside; a member's delay follows the previous member's end; a member
 * with an edge from another host also waits for that. Two flows in a stream:
 * the second starts at the first's end. */
static void test_streams(void) {
  topo_t t = mvsim_star(3, 100000000000LL, D);
  tg_t g = {0};
  int32_t m[4];
  for (int k = 0; k < 3; k++) {
    m[k] = compute(&g, 0, (k + 1) * US, 0);
    g.t[m[k]].stream = 7;
  }
  g.t[m[2]].delay = 500 * NS;
  int32_t free_task = compute(&g, 0, 1 * US, 0);
  int32_t other = compute(&g, 1, 10 * US, 0);
  m[3] = compute(&g, 0, 1 * US, 0);
  g.t[m[3]].stream = 7;
  tg_edge(&g, m[3], other, TG_ON_END);
  ref_result_t r = run(&t, &g, REF_OK);
  CHECK_EQ_I64(r.start_ps[m[0]], 0);
  CHECK_EQ_I64(r.start_ps[m[1]], 1 * US);
  CHECK_EQ_I64(r.start_ps[m[2]], 3 * US + 500 * NS);
  CHECK_EQ_I64(r.end_ps[m[2]], 6 * US + 500 * NS);
  CHECK_EQ_I64(r.start_ps[free_task], 0);
  CHECK_EQ_I64(r.start_ps[m[3]], 10 * US + SYNC);
  ref_result_free(&r);
  tg_free(&g);

  const int64_t n = 6;
  int32_t f0 = flow(&g, 0, 1, n, 0), f1 = flow(&g, 0, 2, n, 0);
  g.t[f0].stream = g.t[f1].stream = 0;
  r = run(&t, &g, REF_OK);
  CHECK_EQ_I64(r.start_ps[f1], fct(n));
  CHECK_EQ_I64(r.end_ps[f1], 2 * fct(n));
  ref_result_free(&r);
  tg_free(&g);
  topo_free(&t);
}

/* Two flows of host 0 (to hosts 1 and 2) start at the same instant T. Ranks go
 * in the order of the start events: (time, task number), and a start created
 * during the instant by a later task's end still runs before the TX. Round
 * robin serves rank 0 first: its last packet leaves at T + (2n-1)S and lands
 * at T + 2nS + 2D, so it ends at T + 2nS + 2D + 2(C+D), the other S later. */
static void test_rank_order(void) {
  topo_t t = mvsim_star(3, 100000000000LL, D);
  const int64_t n = 20, T = 2 * US, first = T + 2 * n * S + 2 * D + 2 * (C + D);
  /* Task 1 (x) waits for a 2 us compute; task 2 (y) starts at 2 us: its start
   * event exists from the outset, x's is created at 2 us, yet x ranks first. */
  tg_t g = {0};
  int32_t c = compute(&g, 0, T, 0), x = flow(&g, 0, 1, n, 0), y = flow(&g, 0, 2, n, T);
  tg_edge(&g, x, c, TG_ON_END);
  ref_result_t r = run(&t, &g, REF_OK);
  CHECK_EQ_I64(r.start_ps[x], T);
  CHECK_EQ_I64(r.start_ps[y], T);
  CHECK_EQ_I64(r.end_ps[x], first);
  CHECK_EQ_I64(r.end_ps[y], first + S);
  ref_result_free(&r);
  tg_free(&g);

  /* Task 0 (a) waits for task 2, a 0 ps compute at T; task 1 (b) starts at T.
   * At T: b starts (number 1, rank 0), then task 2 ends and a's start event,
   * created at T with the smaller number 0, runs next (rank 1): b first. */
  int32_t a = flow(&g, 0, 1, n, 0), b = flow(&g, 0, 2, n, T);
  c = compute(&g, 0, 0, T);
  tg_edge(&g, a, c, TG_ON_END);
  r = run(&t, &g, REF_OK);
  CHECK_EQ_I64(r.start_ps[a], T);
  CHECK_EQ_I64(r.end_ps[c], T);
  CHECK_EQ_I64(r.end_ps[b], first);
  CHECK_EQ_I64(r.end_ps[a], first + S);
  ref_result_free(&r);
  tg_free(&g);
  topo_free(&t);
}

/* A 1-byte flow (one 49-byte packet): recv at 2 ser(49) + 2D, end 2(C+D)
 * later. A successor on the receiver waiting for recv starts then; one
 * waiting for the end starts at end + sync. A flow from the receiver on recv
 * starts at recv too, behind the last ACK on the uplink. */
static void test_recv_before_end(void) {
  topo_t t = mvsim_star(3, 100000000000LL, D);
  tg_t g = {0};
  int32_t f = flow(&g, 0, 1, 1, 0);
  g.t[f].bytes = 1;
  int32_t on_recv = compute(&g, 1, 5, 0), on_end = compute(&g, 1, 5, 0);
  int32_t next = flow(&g, 1, 2, 3, 0);
  tg_edge(&g, on_recv, f, TG_ON_RECV);
  tg_edge(&g, on_end, f, TG_ON_END);
  tg_edge(&g, next, f, TG_ON_RECV);
  ref_result_t r = run(&t, &g, REF_OK);
  int64_t rv = 2 * ser(49) + 2 * D;
  CHECK_EQ_I64(r.recv_ps[f], rv);
  CHECK_EQ_I64(r.end_ps[f], rv + 2 * (C + D));
  CHECK_EQ_I64(r.start_ps[on_recv], rv);
  CHECK_EQ_I64(r.end_ps[on_recv], rv + 5);
  CHECK_EQ_I64(r.start_ps[on_end], rv + 2 * (C + D) + SYNC);
  CHECK_EQ_I64(r.start_ps[next], rv);
  CHECK_EQ_I64(r.recv_ps[next], rv + C + recv_after(3));
  ref_result_free(&r);
  tg_free(&g);
  topo_free(&t);
}

/* timed_out: a compute ending past max_time (its start is kept, its end -1);
 * failed: two joins waiting for each other never start (nothing pending);
 * ok: an empty graph. */
static void test_status(void) {
  topo_t t = mvsim_star(2, 100000000000LL, D);
  eng_params_t p = params();
  tg_t g = {0};
  int32_t c = compute(&g, 0, p.max_time, 1), d = compute(&g, 1, 2, 0);
  ref_result_t r;
  CHECK(ref_run(&t, &g, &p, 1, &r) == 0);
  CHECK_EQ_I64(r.status, REF_TIMED_OUT);
  CHECK_EQ_I64(r.start_ps[c], 1);
  CHECK_EQ_I64(r.end_ps[c], -1);
  CHECK_EQ_I64(r.end_ps[d], 2);
  CHECK_EQ_I64(r.last_end_ps, 2);
  ref_result_free(&r);
  tg_free(&g);

  int32_t j0 = join(&g, 0, 0), j1 = join(&g, 0, 0);
  compute(&g, 1, 3, 0);
  tg_edge(&g, j0, j1, TG_ON_END);
  tg_edge(&g, j1, j0, TG_ON_END);
  CHECK(ref_run(&t, &g, &p, 1, &r) == 0);
  CHECK_EQ_I64(r.status, REF_FAILED);
  CHECK_EQ_I64(r.start_ps[j0], -1);
  CHECK_EQ_I64(r.end_ps[2], 3);
  ref_result_free(&r);
  tg_free(&g);

  CHECK(ref_run(&t, &g, &p, 1, &r) == 0);
  CHECK_EQ_I64(r.status, REF_OK);
  CHECK_EQ_I64(r.last_end_ps, 0);
  ref_result_free(&r);
  topo_free(&t);
}

int main(void) {
  S = ser(1048);
  C = ser(64);
  test_compute_then_flow();
  test_chains();
  test_joins();
  test_sync();
  test_streams();
  test_rank_order();
  test_recv_before_end();
  test_status();
  return mvtest_end();
}

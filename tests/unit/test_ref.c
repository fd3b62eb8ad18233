/* Reference simulator (tests/ref) against closed forms computed here, to the ps:
 * store-and-forward FCTs, a saturated bottleneck, drops and go-back-N, PFC. */
#include <math.h>

#include "mvtest.h"
#include "ref/ref.h"
#include "traffic/trf.h"
#include "sim/eng_hash.h"

#define US 1000000LL /* ps */
#define GBPS 1000000000LL

/* ceil(w * 8 * 10^12 / r) ps, written out independently of ref_ser. */
static int64_t ser(int64_t w, int64_t r) {
  uint64_t num = (uint64_t)w * 8ULL * 1000000000000ULL;
  return (int64_t)((num + (uint64_t)r - 1) / (uint64_t)r);
}

typedef struct {
  int32_t a, b;
  int64_t gbps, delay_ps;
  double err;
} link_spec_t;

/* Nodes 0..n-1; `sw` marks switches, `relay` hosts that forward. */
static int build(topo_t *t, int32_t n, const uint8_t *sw, const uint8_t *relay,
                 const link_spec_t *l, int32_t nl) {
  memset(t, 0, sizeof *t);
  t->n_nodes = n;
  t->is_switch = calloc((size_t)n, 1);
  t->forwards = calloc((size_t)n, 1);
  t->links = calloc((size_t)nl, sizeof *t->links);
  for (int32_t x = 0; x < n; x++) {
    t->is_switch[x] = sw[x];
    t->forwards[x] = sw[x] || (relay && relay[x]);
    t->n_hosts += !sw[x];
  }
  for (int32_t k = 0; k < nl; k++)
    t->links[k] = (topo_link_t){l[k].a, l[k].b, l[k].gbps * GBPS, l[k].delay_ps, l[k].err};
  t->n_links = nl;
  snprintf(t->kind, sizeof t->kind, "file");
  char err[TOPO_ERR_LEN];
  int rc = topo_finish(t, err, sizeof err);
  if (rc) fprintf(stderr, "topo_finish: %s\n", err);
  return rc;
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
                        .lb = ENG_LB_ECMP,
                        .ack_every = 1,
                        .rto = 1000 * US,
                        .max_time = 1000000 * US,
                        .pfc_headroom = -1, /* none */
                        .standalone_header = -1};
}

static trf_flow_t flow(int32_t src, int32_t dst, uint64_t bytes, int64_t start) {
  return (trf_flow_t){
      .src = src, .dst = dst, .sport = 10000, .dport = 100, .bytes = bytes, .start_ps = start};
}

/* Runs a flow set as the task graph trf_to_tg makes of it. */
static int run_flows(const topo_t *t, const trf_flows_t *fl, const eng_params_t *p, uint64_t seed,
                     ref_result_t *res) {
  tg_t g = {0};
  int rc = trf_to_tg(fl, &g) ? -1 : ref_run(t, &g, p, seed, res);
  tg_free(&g);
  return rc;
}

/* Data path h -> X -> h (X a switch or a relaying host), one flow of `bytes`:
 * the tandem max-plus recursion per packet, then the last ACK's return. */
static int64_t tandem_fct(uint64_t bytes, int64_t r1, int64_t d1, int64_t r2, int64_t d2) {
  int64_t host_done = 0, x_done = 0, last = 0;
  for (uint64_t off = 0; off < bytes; off += 1000) {
    int64_t w = (int64_t)(bytes - off < 1000 ? bytes - off : 1000) + 48;
    host_done += ser(w, r1);                                           /* leaves the host */
    int64_t start = host_done + d1 > x_done ? host_done + d1 : x_done; /* at X */
    x_done = start + ser(w, r2);
    last = x_done + d2; /* arrives at the receiver */
  }
  return last + ser(64, r2) + d2 + ser(64, r1) + d1;
}

static void test_single_flow(int relay_host) {
  uint8_t sw[3] = {0, 0, !relay_host}, relay[3] = {0, 0, (uint8_t)relay_host};
  int64_t d = 1 * US, r = 100 * GBPS;
  link_spec_t l[2] = {{0, 2, 100, d, 0}, {1, 2, 100, d, 0}};
  topo_t t;
  if (build(&t, 3, sw, relay, l, 2)) {
    CHECK(0);
    return;
  }
  eng_params_t p = params();
  int64_t n = 10, s = ser(1048, r), c = ser(64, r);
  trf_flow_t f = flow(0, 1, (uint64_t)n * 1000, 0);
  trf_flows_t fl = {.n = 1, .f = &f};
  ref_result_t res;
  CHECK(run_flows(&t, &fl, &p, 1, &res) == 0);
  int64_t fct = n * s + s + 2 * d + 2 * (c + d);
  CHECK_EQ_I64(res.status, REF_OK);
  CHECK_EQ_I64(res.end_ps[0], fct);
  CHECK_EQ_I64(res.last_end_ps, fct);
  CHECK_EQ_I64(res.packet_hops, 4 * n); /* n data and n ACKs, two hops each */
  CHECK_EQ_I64(res.drops + res.retransmits + res.timeouts + res.pfc_pauses, 0);
  ref_result_free(&res);

  /* Late start, ACK every 4 (ACKs 4, 8, 10): the same FCT shifted. */
  f.start_ps = 5 * US + 3;
  p.ack_every = 4;
  CHECK(run_flows(&t, &fl, &p, 1, &res) == 0);
  CHECK_EQ_I64(res.end_ps[0], f.start_ps + fct);
  CHECK_EQ_I64(res.packet_hops, 2 * n + 2 * 3);
  ref_result_free(&res);

  /* max_time one ps before the last ACK: timed out; at it: ok. */
  f.start_ps = 0;
  p.ack_every = 1;
  p.max_time = fct - 1;
  CHECK(run_flows(&t, &fl, &p, 1, &res) == 0);
  CHECK_EQ_I64(res.status, REF_TIMED_OUT);
  CHECK_EQ_I64(res.end_ps[0], -1);
  CHECK(res.last_end_ps <= fct - 1);
  ref_result_free(&res);
  p.max_time = fct;
  CHECK(run_flows(&t, &fl, &p, 1, &res) == 0);
  CHECK_EQ_I64(res.status, REF_OK);
  ref_result_free(&res);
  topo_free(&t);
}

/* Unequal rates (uplink 100, downlink 37 Gb/s: ser rounds up) and a short last
 * packet: the max-plus recursion. */
static void test_tandem(void) {
  uint8_t sw[3] = {0, 0, 1};
  link_spec_t l[2] = {{0, 2, 100, 1 * US, 0}, {1, 2, 37, 2 * US + 7, 0}};
  topo_t t;
  if (build(&t, 3, sw, NULL, l, 2)) {
    CHECK(0);
    return;
  }
  eng_params_t p = params();
  uint64_t bytes = 7 * 1000 + 333;
  trf_flow_t f = flow(0, 1, bytes, 0);
  trf_flows_t fl = {.n = 1, .f = &f};
  ref_result_t res;
  CHECK(run_flows(&t, &fl, &p, 1, &res) == 0);
  CHECK_EQ_I64(res.status, REF_OK);
  CHECK_EQ_I64(res.end_ps[0], tandem_fct(bytes, 100 * GBPS, 1 * US, 37 * GBPS, 2 * US + 7));
  ref_result_free(&res);
  topo_free(&t);
}

/* h0 - s4 = {s5, s6} = s7 - h1 (two equal paths): n*s + (H-1)*s + H*d + H*(c+d),
 * H = 4 links, with ECMP and with per-packet spraying. */
static void test_multipath(void) {
  uint8_t sw[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  int64_t d = 1 * US, r = 100 * GBPS;
  link_spec_t l[6] = {{0, 4, 100, d, 0}, {4, 5, 100, d, 0}, {4, 6, 100, d, 0},
                      {5, 7, 100, d, 0}, {6, 7, 100, d, 0}, {1, 7, 100, d, 0}};
  topo_t t;
  if (build(&t, 8, sw, NULL, l, 6)) {
    CHECK(0);
    return;
  }
  eng_params_t p = params();
  int64_t n = 50, s = ser(1048, r), c = ser(64, r);
  trf_flow_t f = flow(0, 1, (uint64_t)n * 1000, 0);
  trf_flows_t fl = {.n = 1, .f = &f};
  for (int lb = 0; lb < 2; lb++) {
    p.lb = lb ? ENG_LB_SPRAY : ENG_LB_ECMP;
    ref_result_t res;
    CHECK(run_flows(&t, &fl, &p, 1, &res) == 0);
    CHECK_EQ_I64(res.status, REF_OK);
    CHECK_EQ_I64(res.end_ps[0], n * s + 3 * s + 4 * d + 4 * (c + d));
    CHECK_EQ_I64(res.packet_hops, 8 * n);
    ref_result_free(&res);
  }
  topo_free(&t);
}

/* Relaying host 1 on the line 0 - 1 - 2 sends its own flow to 2 while relaying
 * one from 0: its port serves relayed data first. Own packets fill the slots
 * before the first relayed arrival at s + d, relayed ones the next n slots (they
 * arrive one per s), own ones the rest. */
static void test_relay_priority(void) {
  uint8_t sw[3] = {0}, relay[3] = {0, 1, 0};
  int64_t d = 1 * US, r = 100 * GBPS, s = ser(1048, r), c = ser(64, r);
  link_spec_t l[2] = {{0, 1, 100, d, 0}, {1, 2, 100, d, 0}};
  topo_t t;
  if (build(&t, 3, sw, relay, l, 2)) {
    CHECK(0);
    return;
  }
  eng_params_t p = params();
  int64_t n = 40, m0 = (s + d + s - 1) / s; /* first slot after the first relayed arrival */
  trf_flow_t f[2] = {flow(0, 2, (uint64_t)n * 1000, 0), flow(1, 2, (uint64_t)n * 1000, 0)};
  trf_flows_t fl = {.n = 2, .f = f};
  ref_result_t res;
  CHECK(run_flows(&t, &fl, &p, 1, &res) == 0);
  CHECK_EQ_I64(res.status, REF_OK);
  CHECK_EQ_I64(res.end_ps[0], (m0 + n) * s + d + (c + d) + (c + d));
  CHECK_EQ_I64(res.end_ps[1], 2 * n * s + d + (c + d));
  CHECK_EQ_I64(res.drops + res.pfc_pauses, 0);
  ref_result_free(&res);
  topo_free(&t);
}

/* k senders (hosts 0..k-1) into host k through switch k+1, all links 100 Gb/s. */
static int build_incast(topo_t *t, int32_t k, int64_t d) {
  uint8_t sw[16] = {0};
  link_spec_t l[16];
  sw[k + 1] = 1;
  for (int32_t i = 0; i <= k; i++)
    l[i] = (link_spec_t){i, k + 1, 100, d, 0};
  return build(t, k + 2, sw, NULL, l, k + 1);
}

/* Two flows into one receiver, PFC on, large buffer: the downlink never idles
 * from the first arrival, so the last ACK lands at (N+1)s + 2d + 2(c+d); FIFO
 * order alternates the two flows, so flow 0 finishes one s earlier. ECN with
 * kmin = kmax = 0 marks every dequeue that leaves a packet behind: N - 1. */
static void test_two_flows(void) {
  topo_t t;
  int64_t d = 1 * US, r = 100 * GBPS, s = ser(1048, r), c = ser(64, r);
  if (build_incast(&t, 2, d)) {
    CHECK(0);
    return;
  }
  eng_params_t p = params();
  p.buffer = 32000000;
  p.ecn = 1;
  p.ecn_kmin = p.ecn_kmax = 0;
  p.ecn_pmax = 1.0;
  int64_t n = 5000, N = 2 * n;
  trf_flow_t f[2] = {flow(0, 2, (uint64_t)n * 1000, 0), flow(1, 2, (uint64_t)n * 1000, 0)};
  trf_flows_t fl = {.n = 2, .f = f};
  ref_result_t res;
  CHECK(run_flows(&t, &fl, &p, 7, &res) == 0);
  CHECK_EQ_I64(res.status, REF_OK);
  int64_t last = (N + 1) * s + 2 * d + 2 * (c + d);
  CHECK_EQ_I64(res.end_ps[1], last);
  CHECK_EQ_I64(res.end_ps[0], last - s);
  CHECK_EQ_I64(res.drops, 0);
  CHECK_EQ_I64(res.pfc_pauses, 0);
  CHECK_EQ_I64(res.ecn_marks, N - 1);
  double gbps = (double)N * 1048 * 8 / ((double)last * 1e-12) / 1e9; /* wire throughput */
  CHECK(fabs(gbps - 100.0) < 1.0);
  ref_result_free(&res);
  topo_free(&t);
}

/* PFC off, a 3-packet buffer: drops, go-back-N retransmissions, all finish. */
static void test_drops(void) {
  topo_t t;
  if (build_incast(&t, 2, 1 * US)) {
    CHECK(0);
    return;
  }
  eng_params_t p = params();
  p.pfc = 0;
  p.buffer = 3 * 1048;
  trf_flow_t f[2] = {flow(0, 2, 100000, 0), flow(1, 2, 100000 + 17, 2 * US)};
  trf_flows_t fl = {.n = 2, .f = f};
  ref_result_t res;
  CHECK(run_flows(&t, &fl, &p, 3, &res) == 0);
  CHECK_EQ_I64(res.status, REF_OK);
  CHECK(res.drops > 0);
  CHECK(res.retransmits > 0);
  CHECK(res.end_ps[0] > 0 && res.end_ps[1] > 0);
  CHECK_EQ_I64(res.pfc_pauses, 0);
  ref_result_free(&res);
  topo_free(&t);
}

/* 4 senders into one receiver, PFC on, 300 KB buffer (XOFF about 25 KB per
 * ingress): pauses, no drops; the downlink still never idles. */
static void test_pfc(void) {
  topo_t t;
  int64_t d = 1 * US, r = 100 * GBPS, s = ser(1048, r), c = ser(64, r);
  if (build_incast(&t, 4, d)) {
    CHECK(0);
    return;
  }
  eng_params_t p = params();
  p.buffer = 300000;
  int64_t n = 1000, N = 4 * n;
  trf_flow_t f[4];
  for (int i = 0; i < 4; i++)
    f[i] = flow(i, 4, (uint64_t)n * 1000, 0);
  trf_flows_t fl = {.n = 4, .f = f};
  ref_result_t res;
  CHECK(run_flows(&t, &fl, &p, 5, &res) == 0);
  CHECK_EQ_I64(res.status, REF_OK);
  CHECK(res.pfc_pauses > 0);
  CHECK_EQ_I64(res.drops, 0);
  CHECK_EQ_I64(res.retransmits, 0);
  int64_t last = 0;
  for (int i = 0; i < 4; i++)
    last = res.end_ps[i] > last ? res.end_ps[i] : last;
  CHECK_EQ_I64(last, (N + 1) * s + 2 * d + 2 * (c + d));
  ref_result_free(&res);
  topo_free(&t);
}

/* A lossy uplink (both directions): losses recovered; same seed, same result. */
static void test_loss(void) {
  uint8_t sw[3] = {0, 0, 1};
  link_spec_t l[2] = {{0, 2, 100, 1 * US, 0.01}, {1, 2, 100, 1 * US, 0}};
  topo_t t;
  if (build(&t, 3, sw, NULL, l, 2)) {
    CHECK(0);
    return;
  }
  eng_params_t p = params();
  trf_flow_t f = flow(0, 1, 1000000, 0);
  trf_flows_t fl = {.n = 1, .f = &f};
  ref_result_t a, b;
  CHECK(run_flows(&t, &fl, &p, 11, &a) == 0);
  CHECK(run_flows(&t, &fl, &p, 11, &b) == 0);
  CHECK_EQ_I64(a.status, REF_OK);
  CHECK(a.drops > 0 && a.retransmits > 0);
  CHECK_EQ_I64(a.end_ps[0], b.end_ps[0]);
  CHECK_EQ_I64(a.drops, b.drops);
  CHECK_EQ_I64(a.packet_hops, b.packet_hops);
  ref_result_free(&a);
  ref_result_free(&b);
  topo_free(&t);
}

/* Lossy link 0-2 (e = 5%), d = 100 ns, n = 40: the first seed whose draws
 * (eng_rng_u32(seed, node, 0x10000 + port, k)) lose exactly the host's
 * transmission `lost` among its first `span`, and none of the switch's towards
 * host 0. */
static uint64_t find_seed(uint64_t e_q32, int64_t lo, int64_t hi, int64_t span, int64_t *lost) {
  for (uint64_t seed = 1; seed < 1000000; seed++) {
    int64_t nl = 0, at = -1, sw_lost = 0;
    for (int64_t k = 0; k < span; k++) {
      if (eng_rng_u32(seed, 0, 0x10000, (uint64_t)k) < e_q32) nl++, at = k;
      sw_lost += eng_rng_u32(seed, 2, 0x10000, (uint64_t)k) < e_q32;
    }
    if (nl == 1 && at >= lo && at <= hi && !sw_lost) {
      *lost = at;
      return seed;
    }
  }
  return 0;
}

/* One loss mid-flow: NACK(k) leaves at the arrival of k+1, (k+3)s + 2d, and lands
 * at tN = (k+3)s + 4d + 2c; the host, busy sending, goes back to k at the next
 * slot boundary B and sends k..n-1 back to back. The last ACK lands at
 * B + (n-k+1)s + 2d + 2(c+d). Then: the last packet lost, no NACK, so the RTO
 * restarted by the last ACK at n s + 4d + 2c expires and resends it. */
static void test_go_back_n(void) {
  uint8_t sw[3] = {0, 0, 1};
  int64_t d = 100000, r = 100 * GBPS, s = ser(1048, r), c = ser(64, r), n = 40;
  double e = 0.05;
  uint64_t e_q32 = (uint64_t)floor(e * 4294967296.0);
  link_spec_t l[2] = {{0, 2, 100, d, e}, {1, 2, 100, d, 0}};
  topo_t t;
  if (build(&t, 3, sw, NULL, l, 2)) {
    CHECK(0);
    return;
  }
  eng_params_t p = params();
  trf_flow_t f = flow(0, 1, (uint64_t)n * 1000, 0);
  trf_flows_t fl = {.n = 1, .f = &f};
  ref_result_t res;
  int64_t k;
  uint64_t seed = find_seed(e_q32, 3, 20, 2 * n, &k);
  CHECK(seed != 0);
  int64_t tN = (k + 3) * s + 4 * d + 2 * c, B = (tN + s - 1) / s * s, m1 = B / s;
  CHECK(m1 < n); /* still sending when the NACK lands */
  CHECK(run_flows(&t, &fl, &p, seed, &res) == 0);
  CHECK_EQ_I64(res.status, REF_OK);
  CHECK_EQ_I64(res.end_ps[0], B + (n - k + 1) * s + 2 * d + 2 * (c + d));
  CHECK_EQ_I64(res.drops, 1);
  CHECK_EQ_I64(res.retransmits, m1 - k);
  CHECK_EQ_I64(res.timeouts, 0);
  /* data: host m1 + n-k, switch (m1-1) + n-k; control: k ACKs, 1 NACK, n-k ACKs */
  CHECK_EQ_I64(res.packet_hops, m1 + (n - k) + (m1 - 1 + n - k) + 2 * (n + 1));
  ref_result_free(&res);

  seed = find_seed(e_q32, n - 1, n - 1, n + 2, &k);
  CHECK(seed != 0);
  int64_t t_to = n * s + 4 * d + 2 * c + p.rto;
  CHECK(run_flows(&t, &fl, &p, seed, &res) == 0);
  CHECK_EQ_I64(res.status, REF_OK);
  CHECK_EQ_I64(res.end_ps[0], t_to + 2 * s + 2 * d + 2 * (c + d));
  CHECK_EQ_I64(res.timeouts, 1);
  CHECK_EQ_I64(res.retransmits, 1);
  CHECK_EQ_I64(res.drops, 1);
  ref_result_free(&res);
  topo_free(&t);
}

/* ECN rows: nearest not above the rate, else the lowest; explicit values win. */
static void test_ecn_rows(void) {
  eng_params_t p = params();
  p.ecn_table.n = 3;
  p.ecn_table.row[0] = (eng_ecn_row_t){100, 400, 1600, 0.2};
  p.ecn_table.row[1] = (eng_ecn_row_t){25, 100, 400, 0.2};
  p.ecn_table.row[2] = (eng_ecn_row_t){400, 1600, 6400, 0.5};
  int64_t kmin, kmax;
  double pmax;
  CHECK(ref_ecn_for(&p, 200 * GBPS, &kmin, &kmax, &pmax) == 0);
  CHECK_EQ_I64(kmin, 400);
  CHECK(ref_ecn_for(&p, 10 * GBPS, &kmin, &kmax, &pmax) == 0);
  CHECK_EQ_I64(kmax, 400);
  CHECK(ref_ecn_for(&p, 400 * GBPS, &kmin, &kmax, &pmax) == 0);
  CHECK_EQ_I64(kmin, 1600);
  CHECK(pmax == 0.5);
  p.ecn_kmax = 7;
  CHECK(ref_ecn_for(&p, 400 * GBPS, &kmin, &kmax, &pmax) == 0);
  CHECK_EQ_I64(kmax, 7);
  CHECK_EQ_I64(ref_ser(1048, 37 * GBPS), 226595);
}

int main(void) {
  test_ecn_rows();
  test_single_flow(0);
  test_single_flow(1);
  test_tandem();
  test_relay_priority();
  test_multipath();
  test_two_flows();
  test_drops();
  test_pfc();
  test_loss();
  test_go_back_n();
  return mvtest_end();
}

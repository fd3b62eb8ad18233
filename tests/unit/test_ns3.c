/* The semantics taken from the ns-3 HPCC simulator, against values computed
 * here from its code: serialisation on its nanosecond clock (including the
 * exact quotients its double arithmetic puts just below), its ECMP hash, its
 * base RTTs and standalone FCTs on the shipped topology (the published
 * standalone column), its DCQCN (rdma-hw.cc *Mlx) and its HPCC sender
 * (HandleAckHp, ChangeRate, int-header.h units). Engine and reference alike.
 * 83.84 ns of serialisation is 83 on its clock; the shipped fat tree's base
 * RTTs 8200 and 12240 ns, standalone FCTs 92040 and 96080 ns. */
#include <math.h>

#include "cc/cc.h"
#include "mvsim.h"
#include "mvtest.h"
#include "ref/ref_int.h"
#include "sim/eng_hash.h"
#include "sim/eng_standalone.h"

#define NS 1000LL
#define US 1000000LL

/* ns-3 truncates bytes * 8 / rate (a double, in s) to whole ns: 83.84 ns of a
 * 1,048-byte packet at 100 Gb/s are 83 ns. Where the quotient is an integer n
 * the double may lie below it: 75 bytes at 100 Gb/s are 6 ns exactly, the
 * double 6e-9 - 2^-80 (Python: Fraction(600 / 1e11) < Fraction(6, 10**9)),
 * so ns-3 takes 5 ns; 100 bytes give 8e-9 + 2^-79, 8 ns. */
static void clock_ns(void) {
  static const struct {
    int64_t bytes, rate, ns;
  } c[] = {{1048, 100000000000LL, 83}, {1090, 100000000000LL, 87}, {60, 100000000000LL, 4},
           {88, 100000000000LL, 7},    {1048, 400000000000LL, 20}, {43, 100000000000LL, 3},
           {75, 100000000000LL, 5},    {100, 100000000000LL, 8},   {150, 400000000000LL, 2},
           {50, 400000000000LL, 1},    {75, 25000000000LL, 23},    {125, 25000000000LL, 40},
           {43, 400000000000LL, 1} /* 0.86 ns: at least 1 ns */};
  eng_params_t p = mvsim_params();
  p.ser_floor_ns = 1;
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    CHECK_EQ_I64(base_ser_floor_ns(c[i].bytes, (uint64_t)c[i].rate), c[i].ns * NS);
    CHECK_EQ_I64(ref_ser_at(&p, c[i].bytes, c[i].rate), c[i].ns * NS);
  }
  p.ser_floor_ns = 0;
  CHECK_EQ_I64(ref_ser_at(&p, 1048, 100000000000LL), 83840);
  CHECK_EQ_I64(base_ser_clock(1048, 100000000000ULL, 0), 83840);
}

/* switch-node.cc EcmpHash: MurmurHash3 x86_32 of sip, dip (11.0.x.y) and
 * sport | dport << 16 with the switch's id as seed; values from an independent
 * Python MurmurHash3 of the same 12 bytes. */
static void ecmp_hash(void) {
  static const struct {
    int32_t node, s, d;
    uint32_t sp, dp, h;
  } c[] = {{320, 0, 300, 10000, 100, 0x0365d056u},
           {340, 300, 0, 100, 10000, 0x9cf32651u},
           {0, 1, 2, 3, 4, 0xd1253e34u},
           {375, 319, 1, 65535, 7, 0x21e7089bu}};
  eng_params_t p = mvsim_params();
  p.ecmp_ns3 = 1;
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    CHECK_EQ_I64(eng_hash_ecmp_ns3(c[i].node, c[i].s, c[i].d, c[i].sp, c[i].dp), c[i].h);
    CHECK_EQ_I64(ref_hash_ecmp(&p, c[i].node, c[i].s, c[i].d, c[i].sp, c[i].dp), c[i].h);
  }
  CHECK_EQ_I64(eng_ns3_ip(300), 0x0b012c01);
  /* ns-3's next hops come in the reverse of ascending ports: h mod n from the end */
  CHECK_EQ_I64(ref_ecmp_index(&p, 5, 4), 2);
}

/* The shipped fat tree (tests/data/ns3_hpcc): ns-3's pairRtt is twice the
 * path delay plus one 1,000-byte payload per hop: within a pod 4 x 2 us +
 * 80 + 20 + 20 + 80 ns = 8,200 ns; across pods 12 us + 240 ns = 12,240 ns, the
 * largest (maxRtt). Its standalone FCT of 1 MB is the RTT plus 1,048,000 bytes
 * at 100 Gb/s: 92,040 and 96,080 ns, the values of its FCT files. */
static void base_rtt(void) {
  char path[1024], err[512];
  snprintf(path, sizeof path, "%s/ns3_hpcc/topology_fat.txt",
           getenv("MV_TEST_DATA") ? getenv("MV_TEST_DATA") : "tests/data");
  topo_t t;
  if (topo_load(path, &t, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    CHECK(0);
    return;
  }
  eng_params_t p = mvsim_params();
  CHECK(mvsim_set(&p, "preset=ns3_hpcc", err, sizeof err) == 0);
  trf_flow_t pod = mvsim_flow(0, 16, 1000000, 0), xpod = mvsim_flow(0, 300, 1000000, 0);
  CHECK_EQ_I64(eng_base_rtt(&t, &p, &pod), 8200 * NS);
  CHECK_EQ_I64(eng_base_rtt(&t, &p, &xpod), 12240 * NS);
  CHECK_EQ_I64(eng_largest_base_rtt(&t, &p), 12240 * NS);
  CHECK_EQ_I64(eng_standalone_fct(&t, &p, &pod), 92040 * NS);
  CHECK_EQ_I64(eng_standalone_fct(&t, &p, &xpod), 96080 * NS);
  ref_routing_t r;
  CHECK(ref_routing_init(&r, &t) == 0);
  tg_task_t k = tg_task_default(TG_FLOW);
  k.host = 0;
  k.dst = 300;
  k.sport = 10000;
  k.dport = 100;
  CHECK_EQ_I64(ref_base_rtt(&r, &p, &k), 12240 * NS);
  CHECK_EQ_I64(ref_max_base_rtt(&r, &p), 12240 * NS);
  /* Our own definition, for scale: a 1,048-byte packet out (83.84 ns on a
   * 100G hop, 20.96 on a 400G hop) and a 60-byte ACK back (4.8, 1.2). */
  p.base_rtt_ns3 = 0;
  p.ser_floor_ns = 0;
  int64_t ours = 12 * US + 2 * 83840 + 4 * 20960 + 2 * 4800 + 4 * 1200;
  CHECK_EQ_I64(eng_base_rtt(&t, &p, &xpod), ours);
  CHECK_EQ_I64(ref_base_rtt(&r, &p, &k), ours);
  CHECK_EQ_I64(eng_largest_base_rtt(&t, &p), ours);
  ref_routing_free(&r);
  topo_free(&t);
}

static void run_timers(cc_state_t *s, cc_alg_t *a, const cc_params_t *p, int64_t until) {
  for (int64_t t; (t = cc_timer_at(a, p)) <= until;)
    cc_on_timer(s, a, p, t);
}

/* DCQCN as rdma-hw.cc (the shipped configuration: alpha every 1 us, the rate
 * checked every 4 us, increases every 300 us, F = 1, R_AI 20 Mb/s, R_HAI
 * 200 Mb/s); rates whole bit/s as ns-3's DataRate. */
static void dcqcn_ns3(void) {
  eng_params_t ep = mvsim_params();
  char err[256];
  CHECK(mvsim_set(&ep, "cc=dcqcn", err, sizeof err) == 0);
  CHECK(mvsim_set(&ep, "preset=ns3_hpcc", err, sizeof err) == 0);
  CHECK(mvsim_set(&ep, "dcqcn_rate_ai_mbps=20", err, sizeof err) == 0);
  CHECK(mvsim_set(&ep, "dcqcn_rate_hai_mbps=200", err, sizeof err) == 0);
  cc_params_t *p = &ep.ccp;
  p->clock_ns = 1;
  const double L = 100e9, g = p->g;
  CHECK(p->dcqcn_ns3 && p->alpha_timer == US && p->dec_interval == 4 * US && p->fast_steps == 1);
  cc_state_t s;
  cc_alg_t sa;
  cc_dcqcn_t *d = &sa.dcqcn;
  cc_init(&s, &sa, p, L, 0);
  /* The first CNP (an ACK's flag) at t0: alpha 1, the target the rate; the
   * alpha timer from t0 + 1 us, the decrease checks from t0 + 4 us + 1 ns. */
  int64_t t0 = 10 * US;
  cc_on_cnp(&sa, p, t0);
  CHECK(d->rc == L && d->rt == L && d->alpha == 1.0);
  CHECK_EQ_I64(d->t_alpha, t0 + US);
  CHECK_EQ_I64(d->t_dec, t0 + 4 * US + NS);
  /* The next event is the check: alpha's updates have none (they are taken
   * late, when a CNP or a check needs alpha: cc_dcqcn_alpha_until). */
  CHECK_EQ_I64(cc_timer_at(&sa, p), t0 + 4 * US + NS);
  /* No CNP since: four decays, then the check cuts by alpha / 2; the target
   * stays (no increase yet, no clamp). */
  run_timers(&s, &sa, p, t0 + 4 * US + NS);
  double a = 1.0;
  for (int k = 0; k < 4; k++)
    a = (1.0 - g) * a;
  double rc = floor(L * (1.0 - a / 2.0));
  CHECK(d->alpha == a && d->rc == rc && d->rt == L && d->stage_t == 0);
  CHECK_EQ_I64(d->t_inc, t0 + 304 * US + NS);
  /* A CNP at t0 + 5.5 us: the tick at 6 us raises alpha, 7 and 8 decay it,
   * the check at 8 us + 1 ns cuts again. */
  run_timers(&s, &sa, p, t0 + 5 * US + 500000);
  cc_on_cnp(&sa, p, t0 + 5 * US + 500000);
  run_timers(&s, &sa, p, t0 + 8 * US + NS);
  a = (1.0 - g) * ((1.0 - g) * ((1.0 - g) * ((1.0 - g) * a) + g));
  rc = floor(rc * (1.0 - a / 2.0));
  CHECK(d->alpha == a && d->rc == rc && d->rt == L);
  /* 300 us after that cut: fast recovery (stage 0 < F), RC halves its way to
   * the target, whole bit/s. */
  int64_t t1 = t0 + 308 * US + NS;
  run_timers(&s, &sa, p, t1);
  rc = floor(rc / 2.0) + floor(L / 2.0);
  CHECK(d->rc == rc && d->stage_t == 1);
  /* A CNP after an increase: the next cut clamps the target to the rate. */
  run_timers(&s, &sa, p, t1 + 500000);
  cc_on_cnp(&sa, p, t1 + 500000);
  run_timers(&s, &sa, p, t1 + 4 * US);
  for (int64_t k = t0 + 9 * US; k <= t1 + 4 * US; k += US)
    a = k == t0 + 309 * US ? (1.0 - g) * a + g : (1.0 - g) * a;
  double rt = rc;
  rc = floor(rc * (1.0 - a / 2.0));
  CHECK(d->alpha == a && d->rt == rt && d->rc == rc && d->stage_t == 0);
  /* Then every 300 us: fast recovery, additive (stage F), hyper (above F). */
  int64_t t2 = t1 + 304 * US;
  run_timers(&s, &sa, p, t2);
  rc = floor(rc / 2.0) + floor(rt / 2.0);
  CHECK(d->rc == rc && d->rt == rt);
  run_timers(&s, &sa, p, t2 + 300 * US);
  rt += 20e6;
  rc = floor(rc / 2.0) + floor(rt / 2.0);
  CHECK(d->rc == rc && d->rt == rt);
  run_timers(&s, &sa, p, t2 + 600 * US);
  rt += 200e6;
  rc = floor(rc / 2.0) + floor(rt / 2.0);
  CHECK(d->rc == rc && d->rt == rt && d->stage_t == 3);
  /* Paced at RC on the ns clock; no byte counter. */
  cc_on_send(&s, &sa, p, t2, 1048);
  CHECK_EQ_I64(s.next_send, t2 + base_ser_floor_ns(1048, (uint64_t)rc));
  CHECK(d->bytes == 0 && d->stage_b == 0);
  /* No separate CNP from the receiver: the ACK carries the flag. */
  CHECK(!cc_np_cnp(p, -1, 0) && cc_ack_is_cnp(p));
}

static cc_int_t one_hop(int64_t ts, uint32_t qlen, uint64_t tx) {
  cc_int_t in = {.nhop = 1};
  in.hop[0] = (cc_int_hop_t){.ts = ts,
                             .qlen = qlen,
                             .tx = (uint32_t)tx,
                             .rate_mbps = 100000,
                             .tx_hi = (uint32_t)(tx >> 32)};
  return in;
}

/* HPCC as rdma-hw.cc (GLOBAL_T: T = 12.24 us, the window 153,000 bytes;
 * RATE_AI 40 Mb/s: W_AI = 61.2 bytes; MIN_RATE 1 Gb/s: W >= 1,530 bytes;
 * INT_MULTI 4: queues in 320-byte units, bytes sent in 512-byte units). */
static void hpcc_ns3(void) {
  eng_params_t ep = mvsim_params();
  char err[256];
  CHECK(mvsim_set(&ep, "cc=hpcc", err, sizeof err) == 0);
  CHECK(mvsim_set(&ep, "preset=ns3_hpcc", err, sizeof err) == 0);
  CHECK(mvsim_set(&ep, "hpcc_ai_mbps=40", err, sizeof err) == 0);
  CHECK(mvsim_set(&ep, "hpcc_int_multi=4", err, sizeof err) == 0);
  CHECK(mvsim_set(&ep, "hpcc_min_rate_mbps=1000", err, sizeof err) == 0);
  cc_params_t *p = &ep.ccp;
  p->clock_ns = 1;
  const double L = 100e9, eta = 0.95, WMAX = 153000, AI = 61.2, T = 12240 * NS;
  const int32_t M = 1000;
  cc_state_t s;
  cc_alg_t sa;
  cc_hpcc_t *h = &sa.hpcc;
  cc_init(&s, &sa, p, L, 12240 * NS);
  CHECK(fabs(h->w - WMAX) < 1e-6 && fabs(h->w_ai - AI) < 1e-9);
  int64_t t = 2000 * US;
  cc_on_send(&s, &sa, p, t, 1090);
  CHECK_EQ_I64(s.next_send, t + 87 * NS); /* 87.2 ns, truncated */
  /* The first ACK records the telemetry; the reference waits for snd_nxt 20. */
  cc_int_t in = one_hop(t, 1000, 10000);
  cc_on_ack(&s, &sa, p, 1, 0, 1, 20, M, 1, &in);
  CHECK(h->w == WMAX && h->u == 1.0 && h->last_update == 20);
  /* 1 us later (the 24-bit ns clock wraps: 2^24 ns and 1 us later count as
   * 1 us), ACK 2 <= 20: fast reaction. Queue 1,000 and 2,000 bytes: 3 and 6
   * units, min 960 bytes; sent 10,000 and 22,500 bytes: 19 and 43 units,
   * 12,288 bytes. u = 960 / (B T) + 12288 / (B 1 us), B = 0.0125 byte/ps. */
  in = one_hop(t + (1LL << 24) * NS + US + 500, 2000, 22500);
  cc_on_ack(&s, &sa, p, 1, 0, 2, 20, M, 2, &in);
  double u = 960.0 / (0.0125 * T) + 12288.0 / (0.0125 * US);
  double U = (1.0 - US / T) * 1.0 + US / T * u;
  double w = WMAX / (U / eta) + AI;
  CHECK(fabs(h->u - U) < 1e-12 && fabs(h->w - w) < 1e-6 && h->wc == WMAX);
  /* The new rate moves the pending packet: by 1,090 bytes at the new rate
   * less at the old (ns each). */
  int64_t shift = base_ser_floor_ns(1090, (uint64_t)(w * 8e12 / T)) - 87 * NS;
  CHECK(shift > 0);
  CHECK_EQ_I64(s.next_send, t + 87 * NS + shift);
  /* A queue of 40 MB (125,000 units) at two ACKs T apart: u = 261, the
   * window falls to MIN_RATE x T = 1,530 bytes, not to one MTU (the second is
   * a reference update: ACK 30 > 20). */
  int64_t t3 = t + (1LL << 24) * NS + US + 500;
  for (int k = 1; k <= 2; k++) {
    in = one_hop(t3 + k * 12240 * NS, 40000000, 22500);
    cc_on_ack(&s, &sa, p, 1, 0, k == 1 ? 3 : 30, 40, M, k == 1 ? 3 : 30, &in);
  }
  CHECK(fabs(h->u - 40000000.0 / (0.0125 * T)) < 1e-9);
  CHECK(fabs(h->w - 1530) < 1e-9 && fabs(h->wc - 1530) < 1e-9 && h->last_update == 40);
}

int main(void) {
  clock_ns();
  ecmp_hash();
  base_rtt();
  dcqcn_ns3();
  hpcc_ns3();
  return mvtest_end();
}

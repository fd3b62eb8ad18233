/* The congestion-control equations against closed forms computed here from
 * the papers' formulas: DCQCN (Zhu et al., SIGCOMM'15) cut, alpha decay, fast
 * recovery, additive and hyper increase, byte counter, intervals; DCTCP
 * (Alizadeh et al., SIGCOMM'10) alpha per window, one cut per window, slow
 * start and congestion avoidance; HPCC (Li et al., SIGCOMM'19) U, W, Wc and the
 * pacing rate for given telemetry, the window bounds, maxStage. */
#include <math.h>

#include "cc/cc.h"
#include "mvsim.h"
#include "mvtest.h"

static int near(double a, double b) {
  return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

static void dcqcn(void) {
  eng_params_t ep = mvsim_params();
  char err[256];
  CHECK(mvsim_set(&ep, "cc=dcqcn_paper", err, sizeof err) == 0);
  const cc_params_t *p = &ep.ccp;
  const double L = 40e9, g = p->g;
  const int64_t US = 1000000;
  CHECK(p->kind == CC_DCQCN && p->fast_steps == 5 && near(g, 1.0 / 256));
  CHECK_EQ_I64(ep.ecn_kmin, 5 * 1024);
  CHECK_EQ_I64(ep.ecn_kmax, 200 * 1024);
  cc_state_t s;
  cc_alg_t sa;
  cc_dcqcn_t *sx = &sa.dcqcn;
  cc_init(&s, &sa, p, L, 0);
  CHECK(sx->rc == L && sx->rt == L && sx->alpha == 1.0);
  CHECK_EQ_I64(cc_timer_at(&sa, p), CC_NEVER);

  /* First CNP at t0: RT = RC, RC = RC (1 - alpha/2) with alpha = 1; alpha
   * becomes (1-g) + g = 1; both timers start. */
  int64_t t0 = 10 * US;
  cc_on_cnp(&sa, p, t0);
  CHECK(sx->rt == L && near(sx->rc, L / 2) && near(sx->alpha, 1.0));
  CHECK_EQ_I64(sx->t_inc, t0 + 55 * US);
  CHECK_EQ_I64(sx->t_alpha, t0 + 55 * US);
  /* A CNP within the 50 us decrease interval does not cut. */
  cc_on_cnp(&sa, p, t0 + 10 * US);
  CHECK(near(sx->rc, L / 2));
  /* Both timers at t0 + 55 us: alpha does not decay (a CNP came since), and the
   * first timer stage is fast recovery: RC = (RT + RC) / 2. */
  cc_on_timer(&s, &sa, p, t0 + 55 * US);
  CHECK(near(sx->alpha, 1.0));
  CHECK(near(sx->rc, (L + L / 2) / 2));
  CHECK_EQ_I64(sx->stage_t, 1);
  /* Four more quiet periods: alpha decays by (1-g) each; fast recovery while
   * stage < F = 5. */
  double rc = sx->rc;
  for (int k = 2; k <= 5; k++) {
    cc_on_timer(&s, &sa, p, t0 + 55 * US * k);
    rc = (L + rc) / 2;
    CHECK(near(sx->rc, rc));
    CHECK(near(sx->alpha, pow(1 - g, k - 1)));
  }
  CHECK(sx->rt == L); /* fast recovery never moves the target */

  /* Second CNP at 400 us: the alpha updates of 330 and 385 us, taken late,
   * decay it twice more; the cut uses it, then it rises. */
  double a = (1 - g) * ((1 - g) * sx->alpha);
  int64_t t1 = t0 + 400 * US;
  cc_on_cnp(&sa, p, t1);
  CHECK(near(sx->rt, rc) && near(sx->rc, rc * (1 - a / 2)) && near(sx->alpha, (1 - g) * a + g));
  /* Byte counter: every 10 MiB sent is a stage; the fifth reaches F (with the
   * timer stage still 0): additive increase. */
  double rt = sx->rt;
  rc = sx->rc;
  for (int b = 0; b < 5; b++) {
    for (int64_t sent = 0; sent < p->byte_counter; sent += 4158)
      cc_on_send(&s, &sa, p, t1, 4158);
    if (b == 4) rt += p->rate_ai;
    rc = (rt + rc) / 2;
  }
  CHECK_EQ_I64(sx->stage_b, 5);
  CHECK(near(sx->rc, rc));
  /* Timer stages: additive while T < F (BC is already at F), hyper at T = F. */
  for (int k = 1; k <= 5; k++) {
    cc_on_timer(&s, &sa, p, t1 + 55 * US * k);
    if (k < 5) {
      rt += p->rate_ai; /* one counter at F, the other below: additive */
    } else {
      rt += (5 - 5 + 1) * p->rate_hai; /* both at F: hyper, i = min(T, BC) - F + 1 */
    }
    rc = (rt + rc) / 2;
    CHECK(near(sx->rt, rt));
    CHECK(near(sx->rc, rc));
  }
  /* The minimum rate bounds a cut. */
  sx->rc = 1.5e9;
  sx->alpha = 1.0;
  sx->t_alpha = CC_NEVER; /* no update due before the CNP */
  cc_on_cnp(&sa, p, t1 + 100000 * US);
  CHECK(near(sx->rc, p->min_rate));
  /* A finished flow's timers stop. */
  cc_on_finish(&sa, p);
  CHECK_EQ_I64(cc_timer_at(&sa, p), CC_NEVER);
  /* Pacing: the next packet waits one serialisation at RC. */
  cc_state_t z;
  cc_alg_t za;
  cc_dcqcn_t *zx = &za.dcqcn;
  cc_init(&z, &za, p, L, 0);
  cc_on_send(&z, &za, p, 1000, 4158);
  CHECK_EQ_I64(z.next_send,
               1000 + (4158LL * 8 * 1000000000000LL + 40000000000LL - 1) / 40000000000LL);
  /* The receiver sends at most one CNP per 50 us. */
  CHECK(cc_np_cnp(p, -1, 0) && !cc_np_cnp(p, 0, 49 * US) && cc_np_cnp(p, 0, 50 * US));
  /* The Mellanox preset does not clamp the target on consecutive cuts. */
  CHECK(mvsim_set(&ep, "cc=dcqcn", err, sizeof err) == 0);
  cc_init(&z, &za, &ep.ccp, 100e9, 0);
  cc_on_cnp(&za, &ep.ccp, 0); /* alpha stays 1, updates every us from then */
  cc_on_cnp(&za, &ep.ccp, 4 * US);
  a = pow(1 - ep.ccp.g, 3); /* the updates at 1, 2 and 3 us */
  CHECK(zx->rt == 100e9 && near(zx->rc, 50e9 * (1 - a / 2)));
}

static void dctcp(void) {
  eng_params_t ep = mvsim_params();
  char err[256];
  CHECK(mvsim_set(&ep, "cc=dctcp", err, sizeof err) == 0);
  const cc_params_t *p = &ep.ccp;
  const int32_t M = 4096;
  const double g = p->dctcp_g;
  CHECK(near(g, 1.0 / 16) && ep.ecn_kmin == ep.ecn_kmax && ep.ecn_pmax == 1.0);
  cc_state_t s;
  cc_alg_t sa;
  cc_dctcp_t *sx = &sa.dctcp;
  cc_init(&s, &sa, p, 100e9, 0);
  CHECK(sx->cwnd == 40 * 1024.0 && sx->alpha == 1.0);
  /* The window opens only while inflight < cwnd. */
  CHECK_EQ_I64(cc_ready_at(&s, &sa, p, 40 * 1024 - 1), 0);
  CHECK_EQ_I64(cc_ready_at(&s, &sa, p, 40 * 1024), CC_NEVER);
  CHECK_EQ_I64(cc_ready_at(&s, &sa, p, 0), 0);
  /* Slow start: +1 MTU per packet acknowledged. */
  cc_on_ack(&s, &sa, p, 1, 0, 1, 10, M, 1, NULL); /* una passes win_end 0: a window closes, F = 0 */
  CHECK(near(sx->cwnd, 40 * 1024.0 + M) && near(sx->alpha, 1 - g));
  CHECK_EQ_I64(sx->win_end, 10);
  /* In the window up to 10: 9 more packets, 3 of them echoing CE. The first
   * echo cuts once by alpha/2; later echoes do not cut again. */
  double w = sx->cwnd, al = sx->alpha;
  cc_on_ack(&s, &sa, p, 3, 0, 4, 12, M, 4, NULL);
  w += 3.0 * M;
  CHECK(near(sx->cwnd, w));
  cc_on_ack(&s, &sa, p, 1, 1, 5, 12, M, 5, NULL);
  w = w * (1 - al / 2);
  CHECK(near(sx->cwnd, w) && near(sx->ssthresh, w));
  cc_on_ack(&s, &sa, p, 2, 1, 7, 12, M, 7, NULL);
  CHECK(near(sx->cwnd, w));
  /* Above ssthresh: MTU^2/cwnd per packet. */
  cc_on_ack(&s, &sa, p, 3, 0, 10, 14, M, 10, NULL);
  w += 3.0 * M * M / w;
  CHECK(near(sx->cwnd, w));
  /* una = 10 closed the window: F = 3 marked of 9 acknowledged. */
  CHECK(near(sx->alpha, (1 - g) * al + g * 3.0 / 9.0));
  CHECK_EQ_I64(sx->win_end, 14);
  CHECK(sx->cut == 0 && sx->acked == 0 && sx->marked == 0);
}

/* Telemetry of a 2-hop path: hop 0 a 400 Gb/s port, hop 1 a 100 Gb/s port. */
static cc_int_t hpcc_int(int64_t ts, uint32_t q0, uint32_t tx0, uint32_t q1, uint32_t tx1) {
  cc_int_t in = {.nhop = 2};
  in.hop[0] = (cc_int_hop_t){.ts = ts, .qlen = q0, .tx = tx0, .rate_mbps = 400000};
  in.hop[1] = (cc_int_hop_t){.ts = ts, .qlen = q1, .tx = tx1, .rate_mbps = 100000};
  return in;
}

/* HPCC (Li et al., SIGCOMM'19, Algorithm 1) on a 100 Gb/s NIC with base RTT
 * T = 10 us: line-rate window 125,000 bytes, W_AI = 40 Mb/s x T = 50 bytes.
 * Per hop u = min(qlen, qlen_prev)/(B T) + (tx - tx_prev)/(B dt); U is the
 * EWMA over dt/T of the largest u; W = Wc/(U/eta) + W_AI, Wc = W once per RTT. */
static void hpcc(void) {
  eng_params_t ep = mvsim_params();
  char err[256];
  CHECK(mvsim_set(&ep, "cc=hpcc", err, sizeof err) == 0);
  const cc_params_t *p = &ep.ccp;
  const double L = 100e9, eta = 0.95, WMAX = 125000, AI = 50;
  const int64_t US = 1000000, T = 10 * US, t = 1000 * US;
  const int32_t M = 4096;
  CHECK(p->kind == CC_HPCC && p->eta == eta && p->max_stage == 0 && p->fast_react);
  cc_state_t s;
  cc_alg_t sa;
  cc_hpcc_t *sx = &sa.hpcc;
  cc_init(&s, &sa, p, L, T);
  CHECK(near(sx->w, WMAX) && near(sx->wc, WMAX) && sx->u == 1.0 && near(sx->w_ai, AI));

  /* The first telemetry is only recorded. */
  cc_int_t in = hpcc_int(t, 0, 1000000, 30000, 5000000);
  cc_on_ack(&s, &sa, p, 1, 0, 1, 20, M, 1, &in);
  CHECK(near(sx->w, WMAX) && near(sx->wc, WMAX) && sx->u == 1.0);
  /* 2 us later. Hop 0: 50,000 bytes sent, no queue: u = 50000/(0.05 x 2e6) =
   * 0.5. Hop 1: queue 30,000 then 60,000, 25,000 bytes sent: u = 30000/125000
   * + 25000/(0.0125 x 2e6) = 1.24, the largest. ACK 2 > 0: a reference update. */
  in = hpcc_int(t + 2 * US, 10000, 1050000, 60000, 5025000);
  cc_on_ack(&s, &sa, p, 1, 0, 2, 22, M, 2, &in);
  double u = 0.8 * 1.0 + 0.2 * 1.24, wc = WMAX / (u / eta) + AI;
  CHECK(near(sx->u, u) && near(sx->wc, wc) && near(sx->w, wc));
  /* 1 us later, ACK 10 <= 22 (snd_nxt at the update): fast reaction, W only.
   * Hop 1: queue 20,000 (min of 60,000 and 20,000), 12,000 bytes sent: u =
   * 20000/125000 + 12000/12500 = 1.12; hop 0: 0.2. */
  in = hpcc_int(t + 3 * US, 0, 1060000, 20000, 5037000);
  cc_on_ack(&s, &sa, p, 1, 0, 10, 30, M, 10, &in);
  u = 0.9 * u + 0.1 * 1.12;
  CHECK(near(sx->u, u) && near(sx->wc, wc) && near(sx->w, wc / (u / eta) + AI));
  /* 3 us later, ACK 23 > 22: update with U < eta, which raises the window
   * (maxStage 0: always Wc/(U/eta)). Hop 1: empty, 20,000 bytes: u = 0.5333. */
  in = hpcc_int(t + 6 * US, 0, 1070000, 0, 5057000);
  cc_on_ack(&s, &sa, p, 1, 0, 23, 40, M, 23, &in);
  u = 0.7 * u + 0.3 * (20000.0 / 37500.0);
  CHECK(u < eta);
  wc = wc / (u / eta) + AI;
  CHECK(near(sx->u, u) && near(sx->wc, wc) && near(sx->w, wc));
  /* Paced at W/T: the next packet of 4,158 wire bytes waits 4158 x 8 / (W/T). */
  int64_t rate = (int64_t)(wc * 8e12 / (double)T); /* bit/s */
  cc_on_send(&s, &sa, p, t, 4158);
  CHECK_EQ_I64(s.next_send, t + (4158LL * 8 * 1000000000000LL + rate - 1) / rate);
  CHECK_EQ_I64(cc_ready_at(&s, &sa, p, (int64_t)wc - 1), s.next_send);
  CHECK_EQ_I64(cc_ready_at(&s, &sa, p, (int64_t)ceil(wc)), CC_NEVER);

  /* 20 us (> T, so dt counts as T and U = u) of a nearly idle path: u = 0.1,
   * Wc/(U/eta) is 9.5 Wc. The window and the reference stop at line rate. */
  in = hpcc_int(t + 26 * US, 0, 1080000, 0, 5082000);
  cc_on_ack(&s, &sa, p, 1, 0, 41, 50, M, 41, &in);
  CHECK(near(sx->u, 25000.0 / 250000.0) && sx->w == WMAX && sx->wc == WMAX);
  cc_on_send(&s, &sa, p, t, 4158);
  CHECK_EQ_I64(s.next_send,
               t + (4158LL * 8 * 1000000000000LL + 100000000000LL - 1) / 100000000000LL);
  /* A queue of 12.5 MB for a whole T (fast reaction, then an update): u = 101
   * and W = 125000 x 0.95/101 + 50 = 1225.7 bytes, under the MTU: window and
   * reference stop at one MTU. */
  in = hpcc_int(t + 36 * US, 0, 1090000, 12500000, 5207000);
  cc_on_ack(&s, &sa, p, 1, 0, 45, 60, M, 45, &in);
  CHECK(near(sx->u, 1.0) && near(sx->w, WMAX * eta + AI) && sx->wc == WMAX);
  in = hpcc_int(t + 46 * US, 0, 1100000, 12500000, 5332000);
  cc_on_ack(&s, &sa, p, 1, 0, 51, 61, M, 51, &in);
  CHECK(near(sx->u, 101.0) && sx->w == M && sx->wc == M);
  cc_on_send(&s, &sa, p, t, 4158);
  CHECK_EQ_I64(s.next_send, t + (4158LL * 8 * 1000000000000LL + 3276800000LL - 1) / 3276800000LL);
  /* From that floor the reference grows multiplicatively: at U = 0.5 by
   * eta/U = 1.9, Wc = 4096 x 1.9 + 50. */
  in = hpcc_int(t + 56 * US, 0, 1110000, 0, 5394500);
  cc_on_ack(&s, &sa, p, 1, 0, 62, 70, M, 62, &in);
  CHECK(near(sx->u, 0.5) && near(sx->wc, M * eta / 0.5 + AI) && near(sx->w, sx->wc));

  /* maxStage 2: while U < eta, two updates add W_AI to the reference (fast
   * reaction in between uses Wc + W_AI too); the third multiplies. */
  CHECK(mvsim_set(&ep, "hpcc_max_stage=2", err, sizeof err) == 0);
  cc_init(&s, &sa, p, L, T);
  sx->w = sx->wc = 60000;
  in = hpcc_int(t, 0, 0, 0, 0);
  cc_on_ack(&s, &sa, p, 1, 0, 1, 10, M, 1, &in);
  const uint32_t ack[4] = {2, 5, 11, 21}, nxt[4] = {10, 12, 20, 30};
  const double want[4] = {60050, 60100, 60100, 60100 * eta / 0.5 + AI};
  for (int k = 0; k < 4; k++) {
    /* every ACK: T later, 62,500 bytes through hop 1: U = 0.5 */
    in = hpcc_int(t + (k + 1) * T, 0, 0, 0, 62500 * (uint32_t)(k + 1));
    cc_on_ack(&s, &sa, p, 1, 0, ack[k], nxt[k], M, ack[k], &in);
    CHECK(near(sx->u, 0.5) && near(sx->w, want[k]));
  }
  CHECK(near(sx->wc, want[3]) && sx->inc_stage == 0);
}

/* DCQCN's alpha updates are taken late, without an event each
 * (cc_dcqcn_alpha_until): a flow driven with the same CNPs twice, once with a
 * timer event at every alpha update too (as before) and once only when
 * cc_timer_at asks, has the same bits after every CNP and at the end. CNPs
 * come on a half-microsecond grid, in bursts and after quiet gaps, so they
 * often meet an update (at a tie the CNP, an arrival, comes first). */
static void dcqcn_alpha_late(int ns3) {
  eng_params_t ep = mvsim_params();
  char err[256];
  CHECK(mvsim_set(&ep, "cc=dcqcn", err, sizeof err) == 0);
  if (ns3) CHECK(mvsim_set(&ep, "dcqcn_ns3=true", err, sizeof err) == 0);
  const cc_params_t *p = &ep.ccp;
  const int64_t HALF_US = 500000, END = 100000 * 2 * HALF_US;
  cc_state_t s[2] = {0}; /* cc_init sets both; GCC 13 cannot see it through the loop */
  cc_alg_t a[2] = {0};
  long events[2] = {0, 0}, cnps = 0, cuts = 0, same = 0;
  double last_rc = 0;
  for (int v = 0; v < 2; v++)
    cc_init(&s[v], &a[v], p, 100e9, 0);
  uint64_t r = 0x9e3779b97f4a7c15ull;
  int64_t tc = 7 * HALF_US;
  for (;;) {
    int64_t tv[2];
    for (int v = 0; v < 2; v++) {
      tv[v] = cc_timer_at(&a[v], p);
      if (v == 0 && a[v].dcqcn.t_alpha < tv[v]) tv[v] = a[v].dcqcn.t_alpha;
    }
    int64_t tt = tv[0] < tv[1] ? tv[0] : tv[1];
    if (tc > END && tt > END) break;
    if (tc <= tt) {                     /* the CNP, on both */
      cuts += a[0].dcqcn.rc != last_rc; /* the rate moved since the last CNP */
      last_rc = a[0].dcqcn.rc;
      for (int v = 0; v < 2; v++)
        cc_on_cnp(&a[v], p, tc);
      cnps++;
      const cc_dcqcn_t *x = &a[0].dcqcn, *y = &a[1].dcqcn;
      int eq = x->alpha == y->alpha && x->rc == y->rc && x->rt == y->rt &&
               x->t_alpha == y->t_alpha && x->t_inc == y->t_inc && x->t_dec == y->t_dec &&
               x->cnp_seen == y->cnp_seen && x->cnp_cut == y->cnp_cut && x->stage_t == y->stage_t;
      same += eq;
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t u = (uint32_t)(r >> 33);
      tc += u % 10 < 7 ? (int64_t)(1 + u / 10 % 8) * HALF_US
                       : (int64_t)(200 + u / 10 % 2000) * HALF_US;
      continue;
    }
    for (int v = 0; v < 2; v++)
      if (tv[v] == tt) {
        cc_on_timer(&s[v], &a[v], p, tt);
        events[v]++;
      }
  }
  cc_dcqcn_alpha_until(&a[1].dcqcn, p, a[0].dcqcn.t_alpha); /* the late one catches up */
  CHECK(cnps > 400 && cuts > 200);
  CHECK_EQ_I64(same, cnps);
  CHECK(a[0].dcqcn.alpha == a[1].dcqcn.alpha && a[0].dcqcn.rc == a[1].dcqcn.rc);
  CHECK_EQ_I64(a[0].dcqcn.t_alpha, a[1].dcqcn.t_alpha);
  /* Once alpha is 0 the updates are skipped, the next one still on time. */
  cc_dcqcn_t z = a[1].dcqcn;
  const int64_t t = z.t_alpha;
  z.alpha = 0.0;
  z.cnp_seen = 0;
  cc_dcqcn_alpha_until(&z, p, t + 20 * HALF_US); /* 10 updates, before that instant */
  CHECK_EQ_I64(z.t_alpha, t + 20 * HALF_US);
  cc_dcqcn_alpha_until(&z, p, t + 20 * HALF_US + 1); /* and the one at it */
  CHECK(z.alpha == 0.0 && z.t_alpha == t + 22 * HALF_US);
  /* An update every microsecond over 100 ms had an event each; no more. */
  CHECK(events[0] - events[1] > 90000);
}

int main(void) {
  dcqcn();
  dcqcn_alpha_late(0);
  dcqcn_alpha_late(1);
  dctcp();
  hpcc();
  return mvtest_end();
}

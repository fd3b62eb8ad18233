/* The congestion-control equations against closed forms computed here from
 * the papers' formulas: DCQCN (Zhu et al., SIGCOMM'15) cut, alpha decay, fast
 * recovery, additive and hyper increase, byte counter, intervals; DCTCP
 * (Alizadeh et al., SIGCOMM'10) alpha per window, one cut per window, slow
 * start and congestion avoidance. */
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
  CHECK(eng_params_set(&ep, "cc=dcqcn_paper", err, sizeof err) == 0);
  const cc_params_t *p = &ep.ccp;
  const double L = 40e9, g = p->g;
  const int64_t US = 1000000;
  CHECK(p->kind == CC_DCQCN && p->fast_steps == 5 && near(g, 1.0 / 256));
  CHECK_EQ_I64(ep.ecn_kmin, 5 * 1024);
  CHECK_EQ_I64(ep.ecn_kmax, 200 * 1024);
  cc_state_t s;
  cc_init(&s, p, L, 0);
  CHECK(s.rc == L && s.rt == L && s.alpha == 1.0);
  CHECK_EQ_I64(cc_timer_at(&s, p), CC_NEVER);

  /* First CNP at t0: RT = RC, RC = RC (1 - alpha/2) with alpha = 1; alpha
   * becomes (1-g) + g = 1; both timers start. */
  int64_t t0 = 10 * US;
  cc_on_cnp(&s, p, t0);
  CHECK(s.rt == L && near(s.rc, L / 2) && near(s.alpha, 1.0));
  CHECK_EQ_I64(s.t_inc, t0 + 55 * US);
  CHECK_EQ_I64(s.t_alpha, t0 + 55 * US);
  /* A CNP within the 50 us decrease interval does not cut. */
  cc_on_cnp(&s, p, t0 + 10 * US);
  CHECK(near(s.rc, L / 2));
  /* Both timers at t0 + 55 us: alpha does not decay (a CNP came since), and the
   * first timer stage is fast recovery: RC = (RT + RC) / 2. */
  cc_on_timer(&s, p, t0 + 55 * US);
  CHECK(near(s.alpha, 1.0));
  CHECK(near(s.rc, (L + L / 2) / 2));
  CHECK_EQ_I64(s.stage_t, 1);
  /* Four more quiet periods: alpha decays by (1-g) each; fast recovery while
   * stage < F = 5. */
  double rc = s.rc;
  for (int k = 2; k <= 5; k++) {
    cc_on_timer(&s, p, t0 + 55 * US * k);
    rc = (L + rc) / 2;
    CHECK(near(s.rc, rc));
    CHECK(near(s.alpha, pow(1 - g, k - 1)));
  }
  CHECK(s.rt == L); /* fast recovery never moves the target */

  /* Second CNP at 400 us: cut with the decayed alpha, which then rises. */
  double a = s.alpha;
  int64_t t1 = t0 + 400 * US;
  cc_on_cnp(&s, p, t1);
  CHECK(near(s.rt, rc) && near(s.rc, rc * (1 - a / 2)) && near(s.alpha, (1 - g) * a + g));
  /* Byte counter: every 10 MiB sent is a stage; the fifth reaches F (with the
   * timer stage still 0): additive increase. */
  double rt = s.rt;
  rc = s.rc;
  for (int b = 0; b < 5; b++) {
    for (int64_t sent = 0; sent < p->byte_counter; sent += 4158)
      cc_on_send(&s, p, t1, 4158);
    if (b == 4) rt += p->rate_ai;
    rc = (rt + rc) / 2;
  }
  CHECK_EQ_I64(s.stage_b, 5);
  CHECK(near(s.rc, rc));
  /* Timer stages: additive while T < F (BC is already at F), hyper at T = F. */
  for (int k = 1; k <= 5; k++) {
    cc_on_timer(&s, p, t1 + 55 * US * k);
    if (k < 5) {
      rt += p->rate_ai; /* one counter at F, the other below: additive */
    } else {
      rt += (5 - 5 + 1) * p->rate_hai; /* both at F: hyper, i = min(T, BC) - F + 1 */
    }
    rc = (rt + rc) / 2;
    CHECK(near(s.rt, rt));
    CHECK(near(s.rc, rc));
  }
  /* The minimum rate bounds a cut. */
  s.rc = 1.5e9;
  s.alpha = 1.0;
  cc_on_cnp(&s, p, t1 + 100000 * US);
  CHECK(near(s.rc, p->min_rate));
  /* A finished flow's timers stop. */
  cc_on_finish(&s);
  CHECK_EQ_I64(cc_timer_at(&s, p), CC_NEVER);
  /* Pacing: the next packet waits one serialisation at RC. */
  cc_state_t z;
  cc_init(&z, p, L, 0);
  cc_on_send(&z, p, 1000, 4158);
  CHECK_EQ_I64(z.next_send,
               1000 + (4158LL * 8 * 1000000000000LL + 40000000000LL - 1) / 40000000000LL);
  /* The receiver sends at most one CNP per 50 us. */
  CHECK(cc_np_cnp(p, -1, 0) && !cc_np_cnp(p, 0, 49 * US) && cc_np_cnp(p, 0, 50 * US));
  /* The Mellanox preset does not clamp the target on consecutive cuts. */
  CHECK(eng_params_set(&ep, "cc=dcqcn", err, sizeof err) == 0);
  cc_init(&z, &ep.ccp, 100e9, 0);
  cc_on_cnp(&z, &ep.ccp, 0);
  cc_on_cnp(&z, &ep.ccp, 4 * US);
  CHECK(z.rt == 100e9 && near(z.rc, 25e9));
}

static void dctcp(void) {
  eng_params_t ep = mvsim_params();
  char err[256];
  CHECK(eng_params_set(&ep, "cc=dctcp", err, sizeof err) == 0);
  const cc_params_t *p = &ep.ccp;
  const int32_t M = 4096;
  const double g = p->dctcp_g;
  CHECK(near(g, 1.0 / 16) && ep.ecn_kmin == ep.ecn_kmax && ep.ecn_pmax == 1.0);
  cc_state_t s;
  cc_init(&s, p, 100e9, 0);
  CHECK(s.cwnd == 40 * 1024.0 && s.d_alpha == 1.0);
  /* The window opens only while inflight < cwnd. */
  CHECK_EQ_I64(cc_ready_at(&s, p, 40 * 1024 - 1), 0);
  CHECK_EQ_I64(cc_ready_at(&s, p, 40 * 1024), CC_NEVER);
  CHECK_EQ_I64(cc_ready_at(&s, p, 0), 0);
  /* Slow start: +1 MTU per packet acknowledged. */
  cc_on_ack(&s, p, 1, 0, 1, 10, M, 1, NULL); /* una passes win_end 0: a window closes, F = 0 */
  CHECK(near(s.cwnd, 40 * 1024.0 + M) && near(s.d_alpha, 1 - g));
  CHECK_EQ_I64(s.win_end, 10);
  /* In the window up to 10: 9 more packets, 3 of them echoing CE. The first
   * echo cuts once by alpha/2; later echoes do not cut again. */
  double w = s.cwnd, al = s.d_alpha;
  cc_on_ack(&s, p, 3, 0, 4, 12, M, 4, NULL);
  w += 3.0 * M;
  CHECK(near(s.cwnd, w));
  cc_on_ack(&s, p, 1, 1, 5, 12, M, 5, NULL);
  w = w * (1 - al / 2);
  CHECK(near(s.cwnd, w) && near(s.ssthresh, w));
  cc_on_ack(&s, p, 2, 1, 7, 12, M, 7, NULL);
  CHECK(near(s.cwnd, w));
  /* Above ssthresh: MTU^2/cwnd per packet. */
  cc_on_ack(&s, p, 3, 0, 10, 14, M, 10, NULL);
  w += 3.0 * M * M / w;
  CHECK(near(s.cwnd, w));
  /* una = 10 closed the window: F = 3 marked of 9 acknowledged. */
  CHECK(near(s.d_alpha, (1 - g) * al + g * 3.0 / 9.0));
  CHECK_EQ_I64(s.win_end, 14);
  CHECK(s.cut == 0 && s.acked == 0 && s.marked == 0);
}

int main(void) {
  dcqcn();
  dctcp();
  return mvtest_end();
}

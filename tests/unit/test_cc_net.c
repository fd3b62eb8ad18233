/* Congestion control in the network, measured from time series:
 * - DCQCN with the SIGCOMM'15 preset, two long flows sharing a 40 Gb/s
 *   bottleneck (the second starts 1 ms later): each gets half of what the link
 *   delivers, within 5%, over the 10 ms after the second starts (within 10%
 *   over the 30 ms after that); the queue stays in the Kmin-Kmax band; no PFC
 *   pause.
 * - 16:1 incast of 20 MB flows at 100 Gb/s: DCQCN (default preset) and DCTCP
 *   keep the bottleneck >= 95% busy; DCTCP's queue oscillates around K; HPCC
 *   (eta 0.95) keeps >= 90% and a standing queue under 10% of DCQCN's.
 * - HPCC: a flow joining an elephant at its bottleneck is within 20% of its
 *   fair share from 10 base RTTs on. */
#include <math.h>

#include "mvsim.h"
#include "mvtest.h"
#include "sim/eng_standalone.h"

static const int64_t G = 1000000000LL, US = 1000000LL;

typedef struct series_t {
  eng_batch_t *w;
  int32_t n, nser;
} series_t;

/* Value of series s at the first sample at or after t (ps). */
static double at(const series_t *q, int64_t t, int32_t s) {
  for (int32_t k = 0; k < q->n; k++)
    if (eng_trace_value(q->w, 0, k, 0) >= (double)t) return eng_trace_value(q->w, 0, k, s);
  return eng_trace_value(q->w, 0, q->n - 1, s);
}

/* Gb/s of flow series s (delivered bytes) between t0 and t1. */
static double gbps(const series_t *q, int64_t t0, int64_t t1, int32_t s) {
  return (at(q, t1, s) - at(q, t0, s)) * 8 / ((double)(t1 - t0) * 1e-12) / 1e9;
}

static void two_flows(void) {
  eng_params_t p = mvsim_params();
  char err[256];
  if (mvsim_set(&p, "cc=dcqcn_paper", err, sizeof err)) exit(2);
  topo_t t = mvsim_star(3, 40 * G, US); /* host 0 receives */
  trf_flow_t f[2] = {mvsim_flow(1, 0, 150000000, 0), mvsim_flow(2, 0, 150000000, 1000 * US)};
  trf_flows_t fl = {.n = 2, .f = f};
  int32_t flows[2] = {0, 1}, port = t.port_off[3] + topo_port_to(&t, 3, 0);
  eng_trace_desc_t tr = {10 * US, 20000, 2, flows, 1, &port};
  tg_t g = mvsim_tg(&fl);
  eng_exp_desc_t ex = {.topo = &t, .tasks = &g, .params = &p, .seed = 5, .trace = &tr};
  series_t q = {mvsim_run(1, &ex, ENG_BACKEND_CPU), 0, 6};
  q.n = eng_trace_samples(q.w, 0);
  const int64_t span[3] = {1000 * US, 11000 * US, 41000 * US};
  for (int k = 0; k < 2; k++) {
    double a = gbps(&q, span[k], span[k + 1], 1), b = gbps(&q, span[k], span[k + 1], 3);
    double half = (a + b) / 2;
    printf("DCQCN %2lld-%2lld ms: A %.2f Gb/s, B %.2f Gb/s (total %.2f)\n",
           (long long)(span[k] / 1000000000), (long long)(span[k + 1] / 1000000000), a, b, a + b);
    /* Within 5% over the first 10 ms; DCQCN then wanders slowly around the
     * fair share (measured: 8% over 11-41 ms), so 10% for the long span. */
    double tol = k == 0 ? 0.05 : 0.10;
    CHECK(fabs(a - half) <= tol * half && fabs(b - half) <= tol * half);
    CHECK(a + b > 0.95 * 40 * 4096.0 / 4158.0);
  }
  double qmax = 0, qsum = 0;
  int32_t nq = 0;
  for (int32_t k = 0; k < q.n; k++) {
    if (eng_trace_value(q.w, 0, k, 0) < 1000.0 * (double)US) continue;
    double v = eng_trace_value(q.w, 0, k, 5);
    qmax = v > qmax ? v : qmax;
    qsum += v;
    nq++;
  }
  printf("DCQCN queue: mean %.1f KB, max %.1f KB (Kmin 5, Kmax 200)\n", qsum / nq / 1024,
         qmax / 1024);
  CHECK(qmax <= 1.1 * (double)p.ecn_kmax);
  CHECK(qsum / nq >= (double)p.ecn_kmin && qsum / nq <= (double)p.ecn_kmax);
  eng_result_t r;
  eng_exp_result(q.w, 0, &r);
  CHECK_EQ_I64(r.pfc_pauses, 0);
  CHECK(r.cnps > 0);
  eng_batch_destroy(q.w);
  tg_free(&g);
  topo_free(&t);
}

/* Returns the mean queue after start-up (bytes). */
static double incast(const char *cc) {
  eng_params_t p = mvsim_params();
  char err[256];
  if (mvsim_set(&p, cc, err, sizeof err)) exit(2);
  topo_t t = mvsim_star(17, 100 * G, US); /* host 0 receives */
  trf_flow_t f[16];
  for (int i = 0; i < 16; i++)
    f[i] = mvsim_flow(i + 1, 0, 20000000, 0);
  trf_flows_t fl = {.n = 16, .f = f};
  int32_t port = t.port_off[17] + topo_port_to(&t, 17, 0);
  eng_trace_desc_t tr = {10 * US, 20000, 0, NULL, 1, &port};
  tg_t g = mvsim_tg(&fl);
  eng_exp_desc_t ex = {.topo = &t, .tasks = &g, .params = &p, .seed = 6, .trace = &tr};
  eng_batch_t *w = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  eng_result_t r;
  eng_exp_result(w, 0, &r);
  double goodput = 16 * 20e6 * 8 / ((double)r.end_ps * 1e-12) / 100e9;
  double k = (double)p.ecn_kmax, qsum = 0;
  int32_t n = eng_trace_samples(w, 0), nq = 0, crossings = 0;
  for (int32_t s = 0; s < n; s++) {
    if (eng_trace_value(w, 0, s, 0) < 500.0 * (double)US) continue; /* after the start-up */
    double v = eng_trace_value(w, 0, s, 1);
    if (nq && (v > k) != (eng_trace_value(w, 0, s - 1, 1) > k)) crossings++;
    qsum += v;
    nq++;
  }
  printf("%s: goodput %.3f of 100 Gb/s, queue mean %.1f KB, %d crossings of K %.1f KB, %lld CNPs\n",
         cc, goodput, qsum / nq / 1024, crossings, k / 1024, (long long)r.cnps);
  CHECK(r.status == ENG_OK);
  CHECK(goodput >= (p.ccp.kind == CC_HPCC ? 0.90 : 0.95));
  if (p.ccp.kind == CC_DCTCP) {
    CHECK(qsum / nq > 0.5 * k && qsum / nq < 1.5 * k);
    CHECK(crossings >= 20);
  }
  tg_free(&g);
  eng_batch_destroy(w);
  topo_free(&t);
  return qsum / nq;
}

/* HPCC: flow B joins elephant A at A's bottleneck (host 0's link, 100 Gb/s,
 * base RTT T = 4.68 us). A's NIC first also carries flow C, so for 1 ms A's
 * bottleneck sees U ~ 0.5 while A's window is at line rate, which lets an
 * unbounded reference window grow by eta/U per RTT. Fair share: half of what A
 * and B deliver together. Bound: B's first window (one BDP at line rate) queues
 * up to one BDP; its telemetry returns after ~2 T; U (EWMA with time constant
 * T) takes ~T to see the queue; the references update once per RTT, each cut
 * multiplying by eta/U, and the queue drains in ~2 T. The cuts keep the ratio
 * of the two windows, which B's start at line rate (A near eta x line) makes
 * ~1, so B is at its fair share about 5 T after joining; we allow 10 T and
 * require every 5 T window from then to 200 T to be within 20%. */
static void hpcc_join(void) {
  eng_params_t p = mvsim_params();
  char err[256];
  if (mvsim_set(&p, "cc=hpcc", err, sizeof err)) exit(2);
  topo_t t = mvsim_star(4, 100 * G, US); /* host 0 receives */
  const int64_t t0 = 1000 * US;
  trf_flow_t f[3] = {mvsim_flow(1, 0, 40000000, 0), mvsim_flow(1, 2, 3000000, 0),
                     mvsim_flow(3, 0, 20000000, t0)};
  trf_flows_t fl = {.n = 3, .f = f};
  const int64_t T = eng_base_rtt(&t, &p, &f[2]);
  int32_t flows[2] = {0, 2};
  eng_trace_desc_t tr = {US, 20000, 2, flows, 0, NULL};
  tg_t g = mvsim_tg(&fl);
  eng_exp_desc_t ex = {.topo = &t, .tasks = &g, .params = &p, .seed = 7, .trace = &tr};
  series_t q = {mvsim_run(1, &ex, ENG_BACKEND_CPU), 0, 5};
  q.n = eng_trace_samples(q.w, 0);
  CHECK(mvsim_end(q.w, 0, 1) < t0);
  const double cap = 100 * 4096.0 / 4158.0; /* Gb/s of payload */
  int bad = 0;
  for (int64_t a0 = t0 + 10 * T; a0 < t0 + 200 * T; a0 += 5 * T) {
    double a = gbps(&q, a0, a0 + 5 * T, 1), b = gbps(&q, a0, a0 + 5 * T, 3);
    double fair = (a + b) / 2;
    if (fabs(b - fair) > 0.2 * fair || a + b < 0.9 * cap) {
      printf("HPCC join, %.1f-%.1f T after: A %.2f Gb/s, B %.2f Gb/s (fair %.2f)\n",
             (double)(a0 - t0) / (double)T, (double)(a0 + 5 * T - t0) / (double)T, a, b, fair);
      bad++;
    }
  }
  double a = gbps(&q, t0 + 10 * T, t0 + 200 * T, 1), b = gbps(&q, t0 + 10 * T, t0 + 200 * T, 3);
  printf("HPCC join (T %.2f us), 10-200 T after B starts: A %.2f Gb/s, B %.2f Gb/s\n",
         (double)T / (double)US, a, b);
  CHECK(bad == 0);
  eng_batch_destroy(q.w);
  tg_free(&g);
  topo_free(&t);
}

int main(void) {
  two_flows();
  double q_dcqcn = incast("cc=dcqcn");
  incast("cc=dctcp");
  double q_hpcc = incast("cc=hpcc");
  CHECK(q_hpcc < 0.1 * q_dcqcn);
  hpcc_join();
  return mvtest_end();
}

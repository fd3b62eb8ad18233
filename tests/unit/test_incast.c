/* Incast into one 100 Gb/s downlink: with PFC the flows share it fairly, keep
 * it busy and lose nothing; without PFC a small buffer drops and go-back-N
 * still delivers everything. */
#include "mvsim.h"
#include "mvtest.h"

#define N 16
static const int64_t G = 1000000000LL;

typedef struct incast_t {
  int64_t first, last; /* finish times, ps */
  double util;         /* data wire bytes / (rate * last finish) */
  eng_result_t r;
} incast_t;

static incast_t run(eng_params_t *p, uint64_t bytes) {
  topo_t t = mvsim_star(N + 1, 100 * G, 1000000); /* host N receives */
  trf_flow_t f[N];
  for (int i = 0; i < N; i++)
    f[i] = mvsim_flow(i, N, bytes, 0);
  trf_flows_t fl = {.n = N, .f = f};
  tg_t g = mvsim_tg(&fl);
  eng_exp_desc_t ex = {.topo = &t, .tasks = &g, .params = p, .seed = 7};
  eng_batch_t *w = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  incast_t o = {INT64_MAX, 0, 0, {0}};
  for (int i = 0; i < N; i++) {
    int64_t fin = mvsim_end(w, 0, i);
    CHECK(fin > 0);
    if (fin < o.first) o.first = fin;
    if (fin > o.last) o.last = fin;
  }
  int64_t pkts = (int64_t)((bytes + (uint64_t)p->mtu - 1) / (uint64_t)p->mtu);
  double wire = (double)N * ((double)bytes + (double)pkts * p->header);
  o.util = wire * 8.0 / (100.0 * G) / ((double)o.last * 1e-12);
  eng_exp_result(w, 0, &o.r);
  tg_free(&g);
  eng_batch_destroy(w);
  topo_free(&t);
  return o;
}

int main(void) {
  /* PFC on, default 32 MiB buffer: 16 x 4 MB overfills the dynamic threshold. */
  eng_params_t p = mvsim_params();
  incast_t a = run(&p, 4000000);
  printf("pfc, 32 MiB: first %.1f us last %.1f us util %.4f pauses %lld drops %lld\n",
         (double)a.first / 1e6, (double)a.last / 1e6, a.util, (long long)a.r.pfc_pauses,
         (long long)a.r.drops);
  CHECK(a.r.status == ENG_OK);
  CHECK((double)a.last / (double)a.first <= 1.05);
  CHECK(a.util >= 0.95);
  CHECK(a.r.pfc_pauses > 0);
  CHECK_EQ_I64(a.r.drops, 0);
  CHECK_EQ_I64(a.r.retransmits, 0);

  /* PFC on, 4 MiB buffer, 1 MB flows: pausing, lossless and fair. */
  p.buffer = 4 << 20;
  incast_t b = run(&p, 1000000);
  printf("pfc, 4 MiB: first %.1f us last %.1f us util %.4f pauses %lld drops %lld\n",
         (double)b.first / 1e6, (double)b.last / 1e6, b.util, (long long)b.r.pfc_pauses,
         (long long)b.r.drops);
  CHECK((double)b.last / (double)b.first <= 1.05);
  CHECK(b.util >= 0.95);
  CHECK(b.r.pfc_pauses > a.r.pfc_pauses / 4);
  CHECK_EQ_I64(b.r.drops, 0);

  /* PFC off, 64 KiB buffer: tail drops; go-back-N (and the timer) recover. */
  p.pfc = 0;
  p.buffer = 64 << 10;
  incast_t c = run(&p, 1000000);
  printf("no pfc, 64 KiB: first %.1f us last %.1f us drops %lld retx %lld timeouts %lld\n",
         (double)c.first / 1e6, (double)c.last / 1e6, (long long)c.r.drops,
         (long long)c.r.retransmits, (long long)c.r.timeouts);
  CHECK(c.r.status == ENG_OK);
  CHECK(c.r.drops > 0);
  CHECK(c.r.retransmits >= c.r.drops / 2);
  CHECK_EQ_I64(c.r.pfc_pauses, 0);
  return mvtest_end();
}

/* Compact descriptor pools: a node's pool holds a quarter of its descriptor
 * budget (sw_free) unless its world is of worst-case storage, or
 * MULTIVERSE_POOLS says worst, or (auto, the default) the experiment runs no
 * congestion control. An 8-to-1 incast on a star with a 1 MB switch buffer
 * queues more packets at the receiver's egress than a quarter of the budget,
 * under DCQCN (whose marks keep the queue below the PFC thresholds) and
 * without congestion control, lossless (PFC pauses) and lossy (drops and
 * retransmissions). A compact pool overflows (ENG_FAIL_POOL), the experiment
 * runs again with worst-case pools, and every task ends at the reference
 * simulator's picosecond, as it does with worst-case pools from the start (no
 * second run: MULTIVERSE_POOLS=worst, and auto without congestion control)
 * and with pool_pkts given (pools as large as their budget); with the CPU's
 * port phases on and off. The rows counted are the plan's estimate: a
 * quarter of each budget, rounded up, plus the hosts' control slots. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>

#include "mvsim.h"
#include "mvtest.h"
#include "ref/ref.h"
#include "sim/eng_progress.h"
#include "sim/eng_world.h"

#define HOSTS 9 /* hosts 0-7 send to host 8 through switch 9 */
#define SENDERS 8
#define FLOW_BYTES 200000

/* Pool rows of the star's world for p, pools compact or worst-case
 * (MULTIVERSE_POOLS), by the formula in docs/model.md and docs/engine.md. */
static int64_t expected_rows(const eng_params_t *p, int worst) {
  const int64_t wire = p->mtu + p->header;
  const int64_t budget =
      p->pool_pkts > 0 ? p->pool_pkts : (p->buffer + wire - 1) / wire + 8 * HOSTS;
  const int64_t relay = worst || p->pool_pkts > 0 ? budget : (budget + 3) / 4;
  return relay + (int64_t)HOSTS * p->host_slots;
}

/* Runs x alone on the CPU under MULTIVERSE_POOLS=pools (NULL: unset) and
 * MULTIVERSE_PHASES=phases; checks its pool rows (worst: worst-case expected)
 * and every task's end against the reference's rr; returns the world's parts
 * (1: it ran again) and its first run's failure in *fail. */
static int32_t run_pools(const eng_exp_desc_t *x, const char *pools, const char *phases, int worst,
                         const ref_result_t *rr, int64_t *fail) {
  if (pools)
    setenv("MULTIVERSE_POOLS", pools, 1);
  else
    unsetenv("MULTIVERSE_POOLS");
  setenv("MULTIVERSE_PHASES", phases, 1);
  eng_world_desc_t d = {.n_exps = 1, .exps = x};
  eng_world_t *w = NULL;
  char err[256];
  CHECK(eng_world_create(&d, &w, err, sizeof err) == 0);
  if (!w) return -1;
  CHECK_EQ_I64(w->n[ENG_T_pool], expected_rows(x->params, worst));
  CHECK_EQ_I64(eng_world_estimate(&d), eng_world_bytes(w)); /* the plan's estimate is the world */
  CHECK(eng_world_run(w, ENG_BACKEND_CPU, err, sizeof err) == 0);
  eng_result_t r;
  eng_world_result(w, 0, &r);
  CHECK_EQ_I64(r.status, ENG_OK);
  CHECK_EQ_I64(r.packet_hops, rr->packet_hops);
  CHECK_EQ_I64(r.drops, rr->drops);
  CHECK_EQ_I64(r.pfc_pauses, rr->pfc_pauses);
  CHECK_EQ_I64(r.retransmits, rr->retransmits);
  for (int i = 0; i < SENDERS; i++)
    CHECK_EQ_I64(eng_task_end(w, 0, i), rr->end_ps[i]);
  *fail = w->c.exp_fail[0];
  const int32_t parts = w->n_parts;
  eng_world_destroy(w);
  unsetenv("MULTIVERSE_POOLS");
  unsetenv("MULTIVERSE_PHASES");
  return parts;
}

/* The checks above for x under every MULTIVERSE_POOLS and pool_pkts, where
 * auto gives it compact pools or (auto_worst) worst-case ones. */
static void check_modes(const eng_exp_desc_t *x, const ref_result_t *rr, int auto_worst) {
  for (int ph = 0; ph < 2; ph++) {
    const char *phases = ph ? "1" : "0";
    int64_t fail = 0;
    /* auto (the default) */
    CHECK_EQ_I64(run_pools(x, NULL, phases, auto_worst, rr, &fail), auto_worst ? 0 : 1);
    CHECK_EQ_I64(fail, auto_worst ? INT64_MAX : ENG_FAIL_POOL);
    /* compact: overflows, runs again */
    CHECK_EQ_I64(run_pools(x, "compact", phases, 0, rr, &fail), 1);
    CHECK_EQ_I64(fail, ENG_FAIL_POOL);
    /* worst-case: one run */
    CHECK_EQ_I64(run_pools(x, "worst", phases, 1, rr, &fail), 0);
    CHECK_EQ_I64(fail, INT64_MAX);
    /* pool_pkts given: its pools are as large as the budget, one run */
    eng_params_t q = *x->params;
    q.pool_pkts = (int32_t)expected_rows(x->params, 1) - HOSTS * q.host_slots;
    eng_exp_desc_t xq = *x;
    xq.params = &q;
    CHECK_EQ_I64(run_pools(&xq, "compact", phases, 1, rr, &fail), 0);
    CHECK_EQ_I64(fail, INT64_MAX);
  }
}

/* A batch's progress counts each experiment once: a world of an incast
 * whose compact pool overflows (it runs again) and one that fits, on the
 * CPU's both ways of counting (each end as it happens: threads as many as
 * experiments; or experiments not running, reported). The counter the
 * calling thread raises stands at 2 when the world has run, never 3. */
static void progress_once(const topo_t *t, const tg_t *g) {
  eng_params_t p = mvsim_params(), big;
  char err[256];
  if (mvsim_set(&p, "cc=dcqcn", err, sizeof err)) exit(2);
  p.buffer = 1 << 20;
  big = p;
  big.buffer = 32 << 20;
  eng_exp_desc_t x[2] = {{.topo = t, .tasks = g, .params = &p, .seed = 7},
                         {.topo = t, .tasks = g, .params = &big, .seed = 7}};
  for (int threads = 1; threads <= 3; threads += 2) {
    eng_world_desc_t d = {.n_exps = 2, .exps = x, .threads = threads};
    eng_world_t *w = NULL;
    int32_t counter = 0;
    CHECK(eng_world_create(&d, &w, err, sizeof err) == 0);
    if (!w) return;
    w->threads = threads;
    eng_progress_attach(&counter);
    CHECK(eng_world_run(w, ENG_BACKEND_CPU, err, sizeof err) == 0);
    CHECK_EQ_I64(w->n_parts, 1); /* the incast ran again */
    CHECK_EQ_I64(counter, 2);
    eng_progress_detach(2);
    CHECK_EQ_I64(counter, 2);
    eng_world_destroy(w);
  }
}

int main(void) {
  topo_t t = mvsim_star(HOSTS, 100000000000LL, 1000000);
  trf_flow_t f[SENDERS];
  for (int i = 0; i < SENDERS; i++)
    f[i] = mvsim_flow(i, HOSTS - 1, FLOW_BYTES, 0);
  trf_flows_t fl = {.n = SENDERS, .f = f};
  tg_t g = mvsim_tg(&fl);
  for (int run = 0; run < 3; run++) { /* DCQCN lossless; no cc lossless, lossy */
    const int lossless = run != 2, dcqcn = run == 0;
    eng_params_t p = mvsim_params();
    char err[256];
    if (dcqcn && mvsim_set(&p, "cc=dcqcn", err, sizeof err)) return 2;
    p.buffer = 1 << 20; /* 253 MTU packets + 72: the compact pool holds 82 */
    p.pfc = lossless;
    ref_result_t rr;
    if (ref_run(&t, &g, &p, 7, &rr)) return 2;
    CHECK(rr.status == REF_OK);
    printf("%s, %s: reference drops %lld, pauses %lld, marks %lld, retransmits %lld, hops %lld\n",
           dcqcn ? "dcqcn" : "no cc", lossless ? "lossless" : "lossy", (long long)rr.drops,
           (long long)rr.pfc_pauses, (long long)rr.ecn_marks, (long long)rr.retransmits,
           (long long)rr.packet_hops);
    if (dcqcn) /* its marks hold the queue below the PFC thresholds */
      CHECK(rr.ecn_marks > 0 && rr.cnps > 0 && rr.pfc_pauses == 0 && rr.drops == 0);
    else
      CHECK(lossless ? rr.pfc_pauses > 0 && rr.drops == 0 : rr.drops > 0 && rr.retransmits > 0);
    eng_exp_desc_t x = {.topo = &t, .tasks = &g, .params = &p, .seed = 7};
    check_modes(&x, &rr, !dcqcn);
    ref_result_free(&rr);
    if (!dcqcn) continue;
    /* A 32 MB buffer's quarter holds the incast: compact pools, one run. */
    eng_params_t big = p;
    big.buffer = 32 << 20;
    if (ref_run(&t, &g, &big, 7, &rr)) return 2;
    eng_exp_desc_t xb = {.topo = &t, .tasks = &g, .params = &big, .seed = 7};
    int64_t fail = 0;
    CHECK_EQ_I64(run_pools(&xb, NULL, "1", 0, &rr, &fail), 0);
    CHECK_EQ_I64(fail, INT64_MAX);
    ref_result_free(&rr);
  }
  progress_once(&t, &g);
  tg_free(&g);
  topo_free(&t);
  return mvtest_end();
}

/* The flow level (network.model flow) against its independent reference
 * (tests/ref/ref_flow.c) on random task graphs (mvgen.h) over random
 * topologies and parameters, all experiments in one batch on the CPU backend:
 * every task's start, end and recv, the status and the end time, to the
 * picosecond. Then its rates against a max-min water-filling in doubles of
 * this file: on random flow sets started together, the first flow to finish
 * finishes when the doubles say (within the rounding of rates to whole
 * bit/s). With --cuda (the gpu test): the CUDA backend
 * equals the CPU backend on the same batch (exit 77 without a GPU). */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mvgen.h"
#include "sim/eng_hash.h"
#include "mvsim.h"
#include "mvtest.h"
#include "ref/ref.h"

#define N_EXP 400
#define MAX_TASKS 64

/* A star of n hosts around one switch, random rates (some not dividing 8e12,
 * so ceilings matter) and delays. */
static topo_t random_star(mvgen_rng_t *r, int n) {
  static const int64_t gbps[] = {10, 25, 40, 100, 400, 3};
  topo_t t = {0};
  char err[256];
  if (topo_alloc(&t, n + 1, n, "file", err, sizeof err)) exit(2);
  t.is_switch[n] = t.forwards[n] = 1;
  t.n_hosts = n;
  for (int i = 0; i < n; i++)
    topo_add_link(&t, i, n, gbps[mvgen_rnd(r, 6)] * 1000000000LL + (int64_t)mvgen_rnd(r, 7),
                  300000 + (int64_t)mvgen_rnd(r, 2000000), 0);
  if (topo_finish(&t, err, sizeof err)) exit(2);
  return t;
}

static topo_t topology(mvgen_rng_t *r) {
  topo_t t = {0};
  char err[512];
  int kind = (int)mvgen_rnd(r, MVGEN_N_TOPO + 1);
  if (kind == MVGEN_N_TOPO) return random_star(r, 2 + (int)mvgen_rnd(r, 7));
  json_t *o = json_loads(mvgen_topologies[kind], 0, NULL);
  if (!o || topo_from_json(o, "test", &t, err, sizeof err)) exit(2);
  json_decref(o);
  return t;
}

static eng_params_t random_params(mvgen_rng_t *r) {
  static const int32_t mtus[] = {256, 1000, 4096};
  static const int64_t slow[] = {65536, 77923 /* 1.189 */, 3 * 65536 + 12345};
  eng_params_t p = mvsim_params();
  p.model = ENG_MODEL_FLOW;
  p.mtu = mtus[mvgen_rnd(r, 3)];
  p.header = (int32_t)mvgen_rnd(r, 80);
  p.sync = 1 + (int64_t)mvgen_rnd(r, 3000000);
  p.overlap_q16 = slow[mvgen_rnd(r, 3)];
  p.ser_floor_ns = mvgen_rnd(r, 5) == 0;
  p.ecmp_ns3 = mvgen_rnd(r, 4) == 0;
  p.max_time = 2000000000LL;
  if (mvgen_rnd(r, 8) == 0) /* cut short: tasks left unfinished */
    p.max_time = (5 + (int64_t)mvgen_rnd(r, 40)) * 1000000;
  return p;
}

/* Experiment e of batch b equals experiment e of batch a. */
static int same_exp(const eng_batch_t *a, const eng_batch_t *b, int e, const tg_t *g) {
  eng_result_t ra, rb;
  eng_exp_result(a, e, &ra);
  eng_exp_result(b, e, &rb);
  for (int32_t i = 0; i < g->n; i++) {
    eng_task_times_t ta = mvsim_times(a, e, i), tb = mvsim_times(b, e, i);
    if (ta.start != tb.start || ta.end != tb.end || ta.recv != tb.recv) return 0;
  }
  return ra.status == rb.status && ra.end_ps == rb.end_ps && ra.duration_ps == rb.duration_ps &&
         ra.n_tiers == rb.n_tiers &&
         memcmp(ra.tier, rb.tier, sizeof ra.tier[0] * (size_t)ra.n_tiers) == 0;
}

static int against_cuda(int n, const eng_exp_desc_t *ex, const tg_t *tgs) {
  if (!eng_cuda_available()) {
    printf("skipped: no CUDA device\n");
    return 77;
  }
  eng_batch_t *cpu = mvsim_run(n, ex, ENG_BACKEND_CPU), *gpu = mvsim_run(n, ex, ENG_BACKEND_CUDA);
  int differ = 0;
  for (int e = 0; e < n; e++)
    differ += !same_exp(cpu, gpu, e, &tgs[e]);
  printf("flow level, cuda: %d of %d experiments differ from the CPU\n", differ, n);
  CHECK_EQ_I64(differ, 0);
  eng_batch_destroy(gpu);
  eng_batch_destroy(cpu);
  return mvtest_end();
}

/* Random graphs: the engine against the reference. */
static int graphs(int cuda) {
  static topo_t topo[N_EXP];
  static tg_t tgs[N_EXP];
  static eng_params_t par[N_EXP];
  static eng_exp_desc_t ex[N_EXP];
  mvgen_rng_t rng = {9191};
  char err[512];
  for (int e = 0; e < N_EXP; e++) {
    topo[e] = topology(&rng);
    par[e] = random_params(&rng);
    if (mvgen_graph(&topo[e], 5000 + (uint64_t)e, par[e].mtu, MAX_TASKS,
                    MVGEN_STREAM_NEED | MVGEN_GPUS, &tgs[e]) < 0 ||
        tg_check(&tgs[e], &topo[e], "mvgen", err, sizeof err))
      return 2;
    ex[e] = (eng_exp_desc_t){
        .topo = &topo[e], .tasks = &tgs[e], .params = &par[e], .seed = 100 + (uint64_t)e};
  }
  if (cuda) return against_cuda(N_EXP, ex, tgs);
  eng_batch_t *w = mvsim_run(N_EXP, ex, ENG_BACKEND_CPU);
  int64_t tasks = 0, flows = 0, slowed = 0, shared = 0, by_status[3] = {0};
  int mismatched = 0;
  for (int e = 0; e < N_EXP; e++) {
    ref_result_t rr;
    eng_result_t er;
    if (ref_flow_run(&topo[e], &tgs[e], &par[e], &rr)) return 2;
    eng_exp_result(w, e, &er);
    int before = mvtest_failures;
    CHECK_EQ_I64(er.status == ENG_OK, rr.status == REF_OK);
    CHECK_EQ_I64(er.status == ENG_TIMED_OUT, rr.status == REF_TIMED_OUT);
    CHECK_EQ_I64(er.packet_hops + er.drops + er.pfc_pauses, 0);
    for (int32_t i = 0; i < tgs[e].n; i++) {
      const tg_task_t *k = &tgs[e].t[i];
      CHECK_EQ_I64(mvsim_start(w, e, i), rr.start_ps[i]);
      CHECK_EQ_I64(mvsim_end(w, e, i), rr.end_ps[i]);
      CHECK_EQ_I64(mvsim_recv(w, e, i), rr.recv_ps[i]);
      slowed +=
          k->kind == TG_COMPUTE && rr.end_ps[i] >= 0 && rr.end_ps[i] - rr.start_ps[i] > k->dur;
      flows += k->kind == TG_FLOW;
      /* a flow that overlapped another one of its source */
      for (int32_t j = 0; k->kind == TG_FLOW && j < i; j++)
        if (tgs[e].t[j].kind == TG_FLOW && tgs[e].t[j].host == k->host && rr.recv_ps[i] >= 0 &&
            rr.recv_ps[j] >= 0 && rr.start_ps[j] < rr.recv_ps[i] &&
            rr.start_ps[i] < rr.recv_ps[j]) {
          shared++;
          break;
        }
    }
    CHECK_EQ_I64(er.end_ps, rr.last_end_ps);
    if (mvtest_failures != before) {
      fprintf(stderr, "experiment %d (topology %s, %d tasks) differs: %s\n", e, topo[e].kind,
              tgs[e].n, eng_status_name(er.status));
      mismatched++;
    }
    tasks += tgs[e].n;
    by_status[rr.status]++;
    ref_result_free(&rr);
  }
  printf("%d experiments (ok/failed/timed out %lld/%lld/%lld), %lld tasks, %lld flows (%lld "
         "sharing their source's link with another), %lld compute tasks slowed; %d differ\n",
         N_EXP, (long long)by_status[REF_OK], (long long)by_status[REF_FAILED],
         (long long)by_status[REF_TIMED_OUT], (long long)tasks, (long long)flows, (long long)shared,
         (long long)slowed, mismatched);
  CHECK(by_status[REF_OK] > N_EXP / 2 && by_status[REF_TIMED_OUT] > 0);
  CHECK(slowed > 0 && shared > flows / 10);
  eng_batch_destroy(w);
  for (int e = 0; e < N_EXP; e++) {
    tg_free(&tgs[e]);
    topo_free(&topo[e]);
  }
  return 0;
}

/* Max-min fair rates in doubles by water-filling: every link's capacity
 * shared equally by its flows without a rate, the tightest link first. */
static void water_fill(int nf, int nl, const int *on /* nf x nl */, const double *cap,
                       double *rate) {
  double *left = malloc((size_t)nl * sizeof *left);
  int *fixed = calloc((size_t)nf, sizeof *fixed);
  memcpy(left, cap, (size_t)nl * sizeof *left);
  for (;;) {
    int best = -1;
    double bs = 0;
    for (int l = 0; l < nl; l++) {
      int n = 0;
      for (int f = 0; f < nf; f++)
        n += !fixed[f] && on[f * nl + l];
      if (n && (best < 0 || left[l] / n < bs)) {
        best = l;
        bs = left[l] / n;
      }
    }
    if (best < 0) break;
    for (int f = 0; f < nf; f++)
      if (!fixed[f] && on[f * nl + best]) {
        fixed[f] = 1;
        rate[f] = bs;
        for (int l = 0; l < nl; l++)
          if (on[f * nl + l]) left[l] -= bs;
      }
  }
  free(left);
  free(fixed);
}

/* Random flow sets started together: the earliest drain (its reception less
 * the flow's idle-path latency) is when the doubles' max-min rates finish the
 * first flow, within 1e-9. */
static void fairness(void) {
  mvgen_rng_t rng = {777};
  int checked = 0;
  for (int round = 0; round < 60; round++) {
    topo_t t = topology(&rng);
    eng_params_t p = random_params(&rng);
    p.max_time = (int64_t)1 << 58;
    p.ser_floor_ns = 0;
    int nf = 2 + (int)mvgen_rnd(&rng, 40), nl = 2 * t.n_links;
    tg_t g = {0};
    int32_t hosts[512], nh = 0;
    for (int32_t v = 0; v < t.n_nodes && nh < 512; v++)
      if (!t.is_switch[v]) hosts[nh++] = v;
    for (int f = 0; f < nf; f++) {
      tg_task_t k = tg_task_default(TG_FLOW);
      k.host = hosts[mvgen_rnd(&rng, (uint64_t)nh)];
      do
        k.dst = hosts[mvgen_rnd(&rng, (uint64_t)nh)];
      while (k.dst == k.host);
      k.bytes = 1000000 + mvgen_rnd(&rng, 50000000);
      tg_add(&g, &k);
    }
    tg_assign_ports(&g);
    eng_exp_desc_t ex = {.topo = &t, .tasks = &g, .params = &p, .seed = 1};
    eng_batch_t *b = mvsim_run(1, &ex, ENG_BACKEND_CPU);
    /* Which links each flow crosses; a flow alone gives its path's latency. */
    int *on = calloc((size_t)nf * (size_t)nl, sizeof *on);
    double *cap = malloc((size_t)nl * sizeof *cap), *rate = calloc((size_t)nf, sizeof *rate);
    for (int l = 0; l < nl; l++)
      cap[l] = (double)t.links[t.ports[l].link].rate_bps;
    double first = INFINITY, engine_first = INFINITY, first_rate = 0;
    for (int f = 0; f < nf; f++) {
      const tg_task_t *k = &g.t[f];
      uint16_t set[1024];
      for (int32_t x = k->host; x != k->dst;) { /* the ECMP path, hashed as model.md says */
        int n = topo_next_hops(&t, x, k->dst, set, 1024);
        uint32_t h = p.ecmp_ns3 ? eng_hash_ecmp_ns3(x, k->host, k->dst, k->sport, k->dport)
                                : eng_hash_ecmp(x, k->host, k->dst, k->sport, k->dport);
        uint32_t pick = h % (uint32_t)n;
        int32_t q = t.port_off[x] + set[p.ecmp_ns3 ? (uint32_t)n - 1 - pick : pick];
        on[f * nl + q] = 1;
        x = t.ports[q].peer;
      }
      /* its latency: its reception alone, less its transfer at its path's rate */
      tg_t one = {0};
      tg_add(&one, k);
      eng_exp_desc_t ox = {.topo = &t, .tasks = &one, .params = &p, .seed = 1};
      eng_batch_t *ob = mvsim_run(1, &ox, ENG_BACKEND_CPU);
      int64_t slow = INT64_MAX;
      for (int l = 0; l < nl; l++)
        if (on[f * nl + l] && t.links[t.ports[l].link].rate_bps < slow)
          slow = t.links[t.ports[l].link].rate_bps;
      uint64_t pkts = (k->bytes + (uint64_t)p.mtu - 1) / (uint64_t)p.mtu;
      double bits = 8.0 * (double)(k->bytes + pkts * (uint64_t)p.header);
      int64_t alone = (int64_t)ceil(bits * 1e12 / (double)slow);
      int64_t lat = mvsim_recv(ob, 0, 0) - alone;
      engine_first = fmin(engine_first, (double)(mvsim_recv(b, 0, f) - lat));
      eng_batch_destroy(ob);
      tg_free(&one);
    }
    water_fill(nf, nl, on, cap, rate);
    for (int f = 0; f < nf; f++) {
      const tg_task_t *k = &g.t[f];
      uint64_t pkts = (k->bytes + (uint64_t)p.mtu - 1) / (uint64_t)p.mtu;
      double bits = 8.0 * (double)(k->bytes + pkts * (uint64_t)p.header);
      if (bits * 1e12 / rate[f] < first) {
        first = bits * 1e12 / rate[f];
        first_rate = rate[f];
      }
    }
    /* Rates are whole bit/s: each of at most nf levels of the filling rounds
     * down by less than 1 bit/s (and gives what it keeps to later levels). */
    if (fabs(engine_first - first) > (double)nf / first_rate * first + 2) {
      fprintf(stderr, "round %d: first drain %.0f ps, max-min in doubles %.0f ps\n", round,
              engine_first, first);
      mvtest_failures++;
    }
    checked++;
    free(on);
    free(cap);
    free(rate);
    eng_batch_destroy(b);
    tg_free(&g);
    topo_free(&t);
  }
  printf("max-min rates: %d random flow sets, the first flow finishes as water-filling in "
         "doubles says\n",
         checked);
}

int main(int argc, char **argv) {
  int cuda = argc > 1 && strcmp(argv[1], "--cuda") == 0;
  int rc = graphs(cuda);
  if (rc || cuda) return rc;
  fairness();
  return mvtest_end();
}

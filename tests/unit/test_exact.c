/* Exactness: the engine (all experiments in one batch, CPU backend) equals the
 * independent sequential reference simulator (tests/ref) to the picosecond on
 * random topologies, flow sets and parameters: every flow's finish time and
 * every counter, for ECMP and spraying, with PFC, ECN, drops, link loss,
 * timeouts, descriptor exhaustion and relaying hosts, and every key of the
 * ns-3 HPCC simulator's semantics chosen at random (mvns3.h).
 * 300 random experiments (fat-trees, leaf-spine, rail, tori with relaying
 * servers, lossy stars; none, DCQCN, DCTCP, HPCC); the reference shares only
 * the topology's links and node kinds, the hash functions and the CC equations
 * of engine/cc, and computes its own routing and base RTTs. Breaking any one of
 * ns-3's semantics in the reference (the ns clock, classes, ACKs with data or
 * paused, reserve, headroom, alpha by rate, PFC frames, ns-3's ECMP, its base
 * RTT and global T, DCQCN's CNP flag, HPCC's telemetry units) makes some of the
 * 300 differ. */
#include <jansson.h>

#include "mvns3.h"
#include "mvsim.h"
#include "mvtest.h"
#include "ref/ref.h"
#include "sim/eng_num.h"

#define N_EXP 300
#define MAX_FLOWS 40

static uint64_t rng_state = 12345;
static uint64_t rnd(uint64_t n) { /* splitmix64, uniform enough for test inputs */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (z ^ (z >> 31)) % n;
}

static const char *topologies[] = {
    "{\"kind\":\"fat_tree\",\"tiers\":3,\"k\":4,\"link_delay_ns\":1000}",
    "{\"kind\":\"fat_tree\",\"tiers\":2,\"k\":6,\"oversubscription\":2,\"host_gbps\":100,"
    "\"link_gbps\":400,\"link_delay_ns\":700,\"host_delay_ns\":1300}",
    "{\"kind\":\"fat_tree\",\"tiers\":2,\"leaves\":3,\"spines\":2,\"hosts_per_leaf\":4,"
    "\"host_gbps\":25,\"link_gbps\":40,\"link_delay_ns\":500}",
    "{\"kind\":\"rail_optimized\",\"servers\":4,\"nics_per_server\":4,\"spines\":2,"
    "\"link_delay_ns\":800}",
    "{\"kind\":\"torus\",\"dims\":[3,3],\"link_gbps\":100,\"link_delay_ns\":600}",
    "{\"kind\":\"torus\",\"dims\":[2,2,3],\"link_gbps\":200,\"link_delay_ns\":900}",
};
#define N_TOPO (int)(sizeof topologies / sizeof topologies[0])

/* A star of n hosts around one switch with random rates, delays and loss. */
static topo_t random_star(int n, int lossy) {
  topo_t t = {0};
  char err[256];
  static const int64_t gbps[] = {10, 25, 40, 100, 400};
  if (topo_alloc(&t, n + 1, n, "file", err, sizeof err)) exit(2);
  t.is_switch[n] = t.forwards[n] = 1;
  t.n_hosts = n;
  for (int i = 0; i < n; i++)
    topo_add_link(&t, i, n, gbps[rnd(5)] * 1000000000LL, 300000 + (int64_t)rnd(2000000),
                  lossy ? 0.002 * (double)rnd(10) : 0);
  if (topo_finish(&t, err, sizeof err)) exit(2);
  return t;
}

static void random_params(eng_params_t *p) {
  static const int32_t mtus[] = {256, 1000, 4096};
  static const char *ccs[] = {"cc=none", "cc=dcqcn", "cc=dcqcn_paper", "cc=dctcp", "cc=hpcc"};
  char err[256];
  if (mvsim_set(p, ccs[rnd(5)], err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  p->mtu = mtus[rnd(3)];
  p->pfc = (int32_t)rnd(2);
  p->buffer = rnd(3) == 0 ? 32 << 20 : (int64_t)(4 + rnd(60)) * (p->mtu + p->header);
  p->pfc_xoff = rnd(3) == 0 ? (int64_t)(2 + rnd(8)) * p->mtu : 0;
  p->pfc_a16 = rnd(2) ? 8192 : 32768; /* pfc_alpha 0.125 or 0.5 */
  p->pfc_resume = (int64_t)rnd(3) * 1024;
  p->ecn = (int32_t)rnd(2);
  p->ecn_kmin = (int64_t)rnd(4) * p->mtu;
  p->ecn_kmax = p->ecn_kmin + (1 + (int64_t)rnd(6)) * p->mtu;
  p->ecn_pmax = 0.1 * (double)(1 + rnd(10));
  p->lb = (eng_lb_t)rnd(3);
  p->reorder = (int32_t)rnd(2);
  p->ack_every = 1 + (int32_t)rnd(3);
  p->rto = (5 + (int64_t)rnd(50)) * 1000000;
  p->pool_pkts = rnd(4) == 0 ? 3 + (int32_t)rnd(12) : 0;
  p->host_slots = rnd(4) == 0 ? 1 + (int32_t)rnd(3) : 64;
  p->max_time = 2000000000LL; /* 2 ms: livelocked lossy cases end timed_out */
}

static int random_flows(const topo_t *t, int32_t mtu, trf_flow_t *f) {
  int32_t hosts[1024], nh = 0;
  for (int32_t i = 0; i < t->n_nodes && nh < 1024; i++)
    if (!t->is_switch[i]) hosts[nh++] = i;
  int n = 1 + (int)rnd(MAX_FLOWS);
  for (int i = 0; i < n; i++) {
    int32_t s = hosts[rnd((uint64_t)nh)], d = hosts[rnd((uint64_t)nh - 1)];
    if (d == s) d = hosts[nh - 1];
    uint64_t most = rnd(4) ? 20 : 200; /* packets */
    f[i] = mvsim_flow(s, d, 1 + rnd(most * (uint64_t)mtu), (int64_t)rnd(30) * 1000000);
    f[i].sport = 10000 + (uint32_t)i;
  }
  return n;
}

int main(void) {
  static topo_t topo[N_EXP];
  static trf_flow_t flows[N_EXP][MAX_FLOWS];
  static trf_flows_t fl[N_EXP];
  static eng_params_t par[N_EXP];
  eng_exp_desc_t ex[N_EXP];
  static tg_t tgs[N_EXP];
  char err[512];
  for (int e = 0; e < N_EXP; e++) {
    int kind = (int)rnd(N_TOPO + 2);
    if (kind < N_TOPO) {
      json_error_t je;
      json_t *o = json_loads(topologies[kind], 0, &je);
      if (!o || topo_from_json(o, "test", &topo[e], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
      }
      json_decref(o);
    } else {
      topo[e] = random_star(2 + (int)rnd(7), kind == N_TOPO + 1);
    }
    par[e] = mvsim_params();
    random_params(&par[e]);
    mvgen_rng_t r3 = {900000 + (uint64_t)e}; /* the ns-3 semantics, on their own stream */
    mvns3_params(&r3, &par[e]);
    fl[e].n = random_flows(&topo[e], par[e].mtu, flows[e]);
    fl[e].f = flows[e];
    tgs[e] = mvsim_tg(&fl[e]);
    mvns3_classes(&r3, &tgs[e]);
    ex[e] = (eng_exp_desc_t){
        .topo = &topo[e], .tasks = &tgs[e], .params = &par[e], .seed = 1000 + (uint64_t)e};
  }
  eng_batch_t *w = mvsim_run(N_EXP, ex, ENG_BACKEND_CPU);
  int64_t hops = 0, drops = 0, pauses = 0, marks = 0, timeouts = 0, spray = 0, mismatched = 0;
  int64_t timed_out = 0, cnps = 0, by_cc[4] = {0}, phased = 0;
  for (int e = 0; e < N_EXP; e++) {
    ref_result_t rr;
    if (ref_run(&topo[e], &tgs[e], &par[e], ex[e].seed, &rr)) return 2;
    eng_result_t er;
    eng_exp_result(w, e, &er);
    int before = mvtest_failures;
    CHECK_EQ_I64(er.status == ENG_OK, rr.status == REF_OK);
    CHECK_EQ_I64(er.status == ENG_TIMED_OUT, rr.status == REF_TIMED_OUT);
    timed_out += er.status == ENG_TIMED_OUT;
    for (int i = 0; i < fl[e].n; i++)
      CHECK_EQ_I64(mvsim_end(w, e, i), rr.end_ps[i]);
    CHECK_EQ_I64(er.drops, rr.drops);
    CHECK_EQ_I64(er.pfc_pauses, rr.pfc_pauses);
    CHECK_EQ_I64(er.ecn_marks, rr.ecn_marks);
    CHECK_EQ_I64(er.packet_hops, rr.packet_hops);
    CHECK_EQ_I64(er.retransmits, rr.retransmits);
    CHECK_EQ_I64(er.timeouts, rr.timeouts);
    CHECK_EQ_I64(er.cnps, rr.cnps);
    if (mvtest_failures != before) {
      fprintf(stderr,
              "experiment %d (topology %s, %d flows, pfc %d, lb %d, cc %d) differs: %s %s\n", e,
              topo[e].kind, fl[e].n, par[e].pfc, par[e].lb, par[e].ccp.kind,
              eng_status_name(er.status), eng_fail_text(er.fail));
      mismatched++;
    }
    hops += er.packet_hops;
    drops += er.drops;
    pauses += er.pfc_pauses;
    marks += er.ecn_marks;
    timeouts += er.timeouts;
    spray += par[e].lb == ENG_LB_SPRAY;
    cnps += er.cnps;
    phased += er.phased;
    by_cc[par[e].ccp.kind]++;
    ref_result_free(&rr);
  }
  printf("%d experiments (%lld sprayed, %lld timed out; cc none/dcqcn/dctcp/hpcc "
         "%lld/%lld/%lld/%lld): "
         "%lld packet-hops, %lld drops, %lld pauses, %lld ECN marks, %lld CNPs, %lld timeouts; "
         "%lld differ\n",
         N_EXP, (long long)spray, (long long)timed_out, (long long)by_cc[0], (long long)by_cc[1],
         (long long)by_cc[2], (long long)by_cc[3], (long long)hops, (long long)drops,
         (long long)pauses, (long long)marks, (long long)cnps, (long long)timeouts,
         (long long)mismatched);
  /* The random cases must exercise what they claim to. */
  CHECK(drops > 0 && pauses > 0 && marks > 0 && timeouts > 0 && spray > 0);
  CHECK(timed_out > 0 && timed_out < N_EXP / 4);
  CHECK(cnps > 0 && by_cc[1] > 0 && by_cc[2] > 0 && by_cc[3] > 0);
  /* By default (test_exact) switches of fewer than 32 ports, all of these
   * (so MULTIVERSE_PHASES=1 would step the same), step in port phases
   * wherever certified (eng_phase.h); exact_keys runs it again with 0 (key
   * order): each equal to the reference. */
  long long ph;
  eng_env_int("MULTIVERSE_PHASES", 0, 1, ENG_PHASES_AUTO, &ph);
  printf("switch steps in port phases: %lld\n", (long long)phased);
  if (ph == ENG_PHASES_OFF)
    CHECK_EQ_I64(phased, 0);
  else
    CHECK(phased > 1000);
  eng_batch_destroy(w);
  for (int e = 0; e < N_EXP; e++) {
    tg_free(&tgs[e]);
    topo_free(&topo[e]);
  }
  return mvtest_end();
}

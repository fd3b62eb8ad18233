/* Exactness on task graphs: the engine (all experiments in one batch, CPU
 * backend) equals the reference simulator (tests/ref) to the picosecond on
 * random task graphs (mvgen.h) over random topologies and parameters: every
 * task's start, end and recv, every counter, the status and the end time.
 * With --cuda (the gpu test): the CUDA backend in each launch mode equals the
 * CPU backend on the same batch (exit 77 without a GPU).
 * 300 random task graphs (flows, compute, coll, joins with need 0 and k,
 * streams, recv and end edges within and across hosts) in one batch. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mvgen.h"
#include "mvns3.h"
#include "mvsim.h"
#include "mvtest.h"
#include "ref/ref.h"
#include "sim/eng_num.h"

#define N_EXP 300
#define MAX_TASKS 48

/* A star of n hosts around one switch with random rates, delays and loss. */
static topo_t random_star(mvgen_rng_t *r, int n, int lossy) {
  static const int64_t gbps[] = {10, 25, 40, 100, 400};
  topo_t t = {0};
  char err[256];
  if (topo_alloc(&t, n + 1, n, "file", err, sizeof err)) exit(2);
  t.is_switch[n] = t.forwards[n] = 1;
  t.n_hosts = n;
  for (int i = 0; i < n; i++)
    topo_add_link(&t, i, n, gbps[mvgen_rnd(r, 5)] * 1000000000LL,
                  300000 + (int64_t)mvgen_rnd(r, 2000000),
                  lossy ? 0.002 * (double)mvgen_rnd(r, 10) : 0);
  if (topo_finish(&t, err, sizeof err)) exit(2);
  return t;
}

static void random_params(mvgen_rng_t *r, eng_params_t *p) {
  static const int32_t mtus[] = {256, 1000, 4096};
  static const char *ccs[] = {"cc=none", "cc=dcqcn", "cc=dcqcn_paper", "cc=dctcp", "cc=hpcc"};
  char err[256];
  if (mvsim_set(p, ccs[mvgen_rnd(r, 5)], err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  p->mtu = mtus[mvgen_rnd(r, 3)];
  p->sync = 1 + (int64_t)mvgen_rnd(r, 3000000);
  /* Compute slowed by its GPU's communication: none, a little, a lot. */
  static const int64_t slow[] = {65536, 77923 /* 1.189 */, 3 * 65536 + 12345};
  p->overlap_q16 = slow[mvgen_rnd(r, 3)];
  p->pfc = (int32_t)mvgen_rnd(r, 2);
  p->buffer =
      mvgen_rnd(r, 3) == 0 ? 32 << 20 : (int64_t)(4 + mvgen_rnd(r, 40)) * (p->mtu + p->header);
  p->pfc_xoff = mvgen_rnd(r, 3) == 0 ? (int64_t)(2 + mvgen_rnd(r, 8)) * p->mtu : 0;
  p->ecn = (int32_t)mvgen_rnd(r, 2);
  p->ecn_kmin = (int64_t)mvgen_rnd(r, 4) * p->mtu;
  p->ecn_kmax = p->ecn_kmin + (1 + (int64_t)mvgen_rnd(r, 6)) * p->mtu;
  p->ecn_pmax = 0.1 * (double)(1 + mvgen_rnd(r, 10));
  p->lb = (eng_lb_t)mvgen_rnd(r, 3);
  p->reorder = (int32_t)mvgen_rnd(r, 2);
  p->ack_every = 1 + (int32_t)mvgen_rnd(r, 3);
  p->rto = (5 + (int64_t)mvgen_rnd(r, 50)) * 1000000;
  p->pool_pkts = mvgen_rnd(r, 4) == 0 ? 3 + (int32_t)mvgen_rnd(r, 12) : 0;
  p->host_slots = mvgen_rnd(r, 4) == 0 ? 1 + (int32_t)mvgen_rnd(r, 3) : 64;
  p->max_time = 2000000000LL; /* 2 ms: livelocked lossy cases end timed_out */
  if (mvgen_rnd(r, 8) == 0)   /* cut short: tasks and flows left unfinished */
    p->max_time = (5 + (int64_t)mvgen_rnd(r, 40)) * 1000000;
}

/* Experiment e of batch b equals experiment e of batch a: every task time,
 * every counter, status and end. Prints the first task that differs. */
static int same_exp(const eng_batch_t *a, const eng_batch_t *b, int e, const tg_t *g) {
  eng_result_t ra, rb;
  eng_exp_result(a, e, &ra);
  eng_exp_result(b, e, &rb);
  for (int32_t i = 0; i < g->n; i++) {
    eng_task_times_t ta = mvsim_times(a, e, i), tb = mvsim_times(b, e, i);
    if (ta.start != tb.start || ta.end != tb.end || ta.recv != tb.recv) {
      fprintf(
          stderr,
          "experiment %d task %d (kind %d, host %d, gpu %d, stream %d, need %d): start %lld/%lld "
          "end %lld/%lld recv %lld/%lld\n",
          e, i, g->t[i].kind, g->t[i].host, g->t[i].gpu, g->t[i].stream, g->t[i].need,
          (long long)ta.start, (long long)tb.start, (long long)ta.end, (long long)tb.end,
          (long long)ta.recv, (long long)tb.recv);
      return 0;
    }
  }
  return ra.status == rb.status && ra.end_ps == rb.end_ps && ra.drops == rb.drops &&
         ra.pfc_pauses == rb.pfc_pauses && ra.ecn_marks == rb.ecn_marks &&
         ra.packet_hops == rb.packet_hops && ra.retransmits == rb.retransmits &&
         ra.timeouts == rb.timeouts && ra.cnps == rb.cnps;
}

/* The CUDA backend in each launch mode against the CPU backend; the
 * experiment mode also with lane groups of 8 and 32 (SPME lanes), the
 * persistent mode also with each switch stepped by a block
 * (MULTIVERSE_CUDA_SWITCH_BLOCK=1), the experiment mode also with the
 * block's pool for switches' port phases (MULTIVERSE_CUDA_POOL=1: a block
 * alone, lanes of 8, clusters of 2, changing the shared-buffer count per
 * packet, MULTIVERSE_CUDA_SETTLE=0; a block alone and clusters of 2 settling
 * it at a window's end, the default). The GPU steps switches in port phases
 * where certified wherever a warp or a block steps a switch alone (the
 * persistent mode, switch warps) or a pool does, unless MULTIVERSE_PHASES=0
 * (gpu_tasks_keys): there it must have done so, and nowhere else. The CPU
 * steps in phases by its own rule (eng_step.h: none with 0; else those of
 * fewer than 32 ports, all of these). */
static int against_cuda(int n, const eng_exp_desc_t *ex, const tg_t *tgs) {
  if (!eng_cuda_available()) {
    printf("skipped: no CUDA device\n");
    return 77;
  }
  /* Each mode's knobs, in the order of `knob`. */
  enum { LAUNCH, LANES, SWARPS, CLUSTER, SBLOCK, POOL, SETTLE, KNOBS };
  static const char *const knob[KNOBS] = {"MULTIVERSE_CUDA_LAUNCH",       "MULTIVERSE_LANES",
                                          "MULTIVERSE_CUDA_SWITCH_WARPS", "MULTIVERSE_CUDA_CLUSTER",
                                          "MULTIVERSE_CUDA_SWITCH_BLOCK", "MULTIVERSE_CUDA_POOL",
                                          "MULTIVERSE_CUDA_SETTLE"};
  static const char *const mode[][KNOBS] = {
      {"experiment", "1", "0", "1", "0", "0", "0"},  {"persistent", "1", "0", "1", "0", "0", "0"},
      {"systems", "1", "0", "1", "0", "0", "0"},     {"experiment", "8", "0", "1", "0", "0", "0"},
      {"experiment", "32", "0", "1", "0", "0", "0"}, {"experiment", "1", "1", "1", "0", "0", "0"},
      {"experiment", "1", "0", "2", "0", "0", "0"},  {"experiment", "1", "1", "8", "0", "0", "0"},
      {"persistent", "1", "0", "1", "1", "0", "0"},  {"experiment", "1", "0", "1", "0", "1", "0"},
      {"experiment", "8", "0", "1", "0", "1", "0"},  {"experiment", "1", "0", "2", "0", "1", "0"},
      {"experiment", "1", "0", "1", "0", "1", "1"},  {"experiment", "1", "0", "2", "0", "1", "1"}};
  long long ph;
  eng_env_int("MULTIVERSE_PHASES", 0, 1, ENG_PHASES_AUTO, &ph);
  eng_batch_t *cpu = mvsim_run(n, ex, ENG_BACKEND_CPU);
  for (size_t m = 0; m < sizeof mode / sizeof mode[0]; m++) {
    const char *const *v = mode[m];
    for (int i = 0; i < KNOBS; i++)
      setenv(knob[i], v[i], 1);
    eng_batch_t *gpu = mvsim_run(n, ex, ENG_BACKEND_CUDA);
    int differ = 0;
    int64_t phased = 0;
    for (int e = 0; e < n; e++) {
      eng_result_t r;
      eng_exp_result(gpu, e, &r);
      phased += r.phased;
      differ += !same_exp(cpu, gpu, e, &tgs[e]);
    }
    printf("cuda, launch mode %s, lanes %s, switch warps %s, clusters of %s, switch blocks %s, "
           "pool %s, settle %s: %d of %d experiments differ from the CPU; %lld switch steps in "
           "port phases\n",
           v[LAUNCH], v[LANES], v[SWARPS], v[CLUSTER], v[SBLOCK], v[POOL], v[SETTLE], differ, n,
           (long long)phased);
    CHECK_EQ_I64(differ, 0);
    if (ph != ENG_PHASES_OFF && (v[LAUNCH][0] == 'p' || v[SWARPS][0] == '1' || v[POOL][0] == '1'))
      CHECK(phased > 100);
    else
      CHECK_EQ_I64(phased, 0);
    eng_batch_destroy(gpu);
  }
  for (int i = 0; i < KNOBS; i++)
    unsetenv(knob[i]);
  eng_batch_destroy(cpu);
  return mvtest_end();
}

int main(int argc, char **argv) {
  static topo_t topo[N_EXP];
  static tg_t tgs[N_EXP];
  static eng_params_t par[N_EXP];
  eng_exp_desc_t ex[N_EXP];
  mvgen_rng_t rng = {4242};
  char err[512];
  for (int e = 0; e < N_EXP; e++) {
    int kind = (int)mvgen_rnd(&rng, MVGEN_N_TOPO + 2);
    if (kind < MVGEN_N_TOPO) {
      json_t *o = json_loads(mvgen_topologies[kind], 0, NULL);
      if (!o || topo_from_json(o, "test", &topo[e], err, sizeof err)) return 2;
      json_decref(o);
    } else {
      topo[e] = random_star(&rng, 2 + (int)mvgen_rnd(&rng, 7), kind == MVGEN_N_TOPO + 1);
    }
    par[e] = mvsim_params();
    random_params(&rng, &par[e]);
    /* Stream members with need k included: the stream is a condition apart. */
    if (mvgen_graph(&topo[e], 7000 + (uint64_t)e, par[e].mtu, MAX_TASKS,
                    MVGEN_STREAM_NEED | MVGEN_GPUS, &tgs[e]) < 0)
      return 2;
    mvgen_rng_t r3 = {800000 + (uint64_t)e}; /* the ns-3 semantics, on their own stream */
    mvns3_params(&r3, &par[e]);
    mvns3_classes(&r3, &tgs[e]);
    if (tg_check(&tgs[e], &topo[e], "mvgen", err, sizeof err)) {
      fprintf(stderr, "%s\n", err);
      return 2;
    }
    ex[e] = (eng_exp_desc_t){
        .topo = &topo[e], .tasks = &tgs[e], .params = &par[e], .seed = 3000 + (uint64_t)e};
  }
  if (argc > 1 && strcmp(argv[1], "--cuda") == 0) return against_cuda(N_EXP, ex, tgs);
  eng_batch_t *w = mvsim_run(N_EXP, ex, ENG_BACKEND_CPU);
  int64_t tasks = 0, hops = 0, drops = 0, pauses = 0, timeouts = 0, mismatched = 0, slowed = 0;
  int64_t by_status[3] = {0}, phased = 0;
  for (int e = 0; e < N_EXP; e++) {
    ref_result_t rr;
    if (ref_run(&topo[e], &tgs[e], &par[e], ex[e].seed, &rr)) return 2;
    eng_result_t er;
    eng_exp_result(w, e, &er);
    int before = mvtest_failures;
    CHECK_EQ_I64(er.status == ENG_OK, rr.status == REF_OK);
    CHECK_EQ_I64(er.status == ENG_TIMED_OUT, rr.status == REF_TIMED_OUT);
    for (int32_t i = 0; i < tgs[e].n; i++) {
      CHECK_EQ_I64(mvsim_start(w, e, i), rr.start_ps[i]);
      CHECK_EQ_I64(mvsim_end(w, e, i), rr.end_ps[i]);
      CHECK_EQ_I64(mvsim_recv(w, e, i), rr.recv_ps[i]);
      const tg_task_t *k = &tgs[e].t[i]; /* compute slowed by its GPU's communication */
      slowed +=
          k->kind == TG_COMPUTE && rr.end_ps[i] >= 0 && rr.end_ps[i] - rr.start_ps[i] > k->dur;
    }
    CHECK_EQ_I64(er.end_ps, rr.last_end_ps);
    CHECK_EQ_I64(er.drops, rr.drops);
    CHECK_EQ_I64(er.pfc_pauses, rr.pfc_pauses);
    CHECK_EQ_I64(er.ecn_marks, rr.ecn_marks);
    CHECK_EQ_I64(er.packet_hops, rr.packet_hops);
    CHECK_EQ_I64(er.retransmits, rr.retransmits);
    CHECK_EQ_I64(er.timeouts, rr.timeouts);
    CHECK_EQ_I64(er.cnps, rr.cnps);
    if (mvtest_failures != before) {
      fprintf(stderr, "experiment %d (topology %s, %d tasks, lb %d, cc %d) differs: %s\n", e,
              topo[e].kind, tgs[e].n, par[e].lb, par[e].ccp.kind, eng_status_name(er.status));
      mismatched++;
    }
    tasks += tgs[e].n;
    phased += er.phased;
    hops += rr.packet_hops;
    drops += rr.drops;
    pauses += rr.pfc_pauses;
    timeouts += rr.timeouts;
    by_status[rr.status]++;
    ref_result_free(&rr);
  }
  printf("%d experiments (ok/failed/timed out %lld/%lld/%lld), %lld tasks: %lld packet-hops, "
         "%lld drops, %lld pauses, %lld timeouts; %lld differ\n",
         N_EXP, (long long)by_status[REF_OK], (long long)by_status[REF_FAILED],
         (long long)by_status[REF_TIMED_OUT], (long long)tasks, (long long)hops, (long long)drops,
         (long long)pauses, (long long)timeouts, (long long)mismatched);
  CHECK(drops > 0 && pauses > 0 && timeouts > 0 && by_status[REF_OK] > N_EXP / 2);
  CHECK(by_status[REF_TIMED_OUT] > 0);
  printf("%lld compute tasks slowed by communication\n", (long long)slowed);
  CHECK(slowed > 0);
  /* Port phases where certified by default (switches of fewer than 32 ports,
   * all of these: MULTIVERSE_PHASES=1 would step the same); exact_tasks_keys
   * (0): key order. */
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

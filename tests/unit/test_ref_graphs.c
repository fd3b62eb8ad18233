/* Random task graphs (mvgen.h) through the reference simulator, on generated
 * topologies and stars, lossless and with random congestion control, load
 * balancing, buffers and PFC: every graph passes tg_check and ends ok with
 * every task ended; every start equals model.md's rule evaluated on the
 * results (max(start, K + delay), K the need-th smallest known time, sync
 * across hosts, the previous stream member's end); compute and coll tasks last
 * their duration, joins none; a flow's recv falls between its start and end;
 * stream members never overlap; and, lossless with ECMP, the packet-hops are
 * exactly every flow's packets and ACKs over topo's shortest distances. */
#include <jansson.h>

#include "mvgen.h"
#include "mvsim.h"
#include "mvtest.h"
#include "ref/ref.h"

#define N_GRAPHS 400
#define MAX_TASKS 48

static const char *topologies[] = {
    "{\"kind\":\"fat_tree\",\"tiers\":2,\"k\":4,\"link_delay_ns\":700}",
    "{\"kind\":\"fat_tree\",\"tiers\":3,\"k\":4,\"host_gbps\":25,\"link_gbps\":100}",
    "{\"kind\":\"rail_optimized\",\"servers\":4,\"nics_per_server\":2,\"spines\":2}",
    "{\"kind\":\"torus\",\"dims\":[3,3],\"link_delay_ns\":600}",
};
#define N_TOPO (int)(sizeof topologies / sizeof topologies[0])

static int64_t n_tasks, n_edges, n_recv_edges, n_cross, n_need_k, n_stream, n_by_sync;
static int64_t n_one_byte, n_zero_dur, n_flows, n_drops, n_lossless, n_kind[4];
static int64_t n_shared, n_tied,
    n_stream_need; /* flows overlapping / starting with another of their host */

/* Flows of one host that run at once (round robin) or start at one instant
 * (ranks by task number). */
static void count_overlaps(const tg_t *g, const ref_result_t *r) {
  for (int32_t i = 0; i < g->n; i++) {
    int shared = 0, tied = 0;
    for (int32_t j = 0; j < g->n; j++) {
      if (j == i || g->t[i].kind != TG_FLOW || g->t[j].kind != TG_FLOW ||
          g->t[j].host != g->t[i].host)
        continue;
      shared |= r->start_ps[j] < r->end_ps[i] && r->start_ps[i] < r->end_ps[j];
      tied |= r->start_ps[j] == r->start_ps[i];
    }
    n_shared += shared;
    n_tied += tied;
  }
}

static int64_t max64(int64_t a, int64_t b) {
  return a > b ? a : b;
}

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* When the event of edge e is known to its task's owner (model.md: at the host
 * where it happened at once, elsewhere sync later). */
static int64_t known(const tg_t *g, const ref_result_t *r, const tg_edge_t *e, int64_t sync) {
  const tg_task_t *pr = &g->t[e->pred];
  int recv = e->on == TG_ON_RECV;
  int64_t t = recv ? r->recv_ps[e->pred] : r->end_ps[e->pred];
  int32_t at = recv ? pr->dst : pr->host; /* a flow ends at its source */
  return at == g->t[e->task].host ? t : t + sync;
}

/* model.md's start of task i from its predecessors' results; prev is the
 * previous member of its stream (-1). */
static int64_t rule_start(const tg_t *g, const ref_result_t *r, int32_t i, int32_t prev,
                          int64_t sync, int *by_sync) {
  int64_t kt[64], kt_local[64];
  int32_t n = 0;
  for (int32_t k = 0; k < g->n_edges && n < 64; k++)
    if (g->e[k].task == i) {
      kt[n] = known(g, r, &g->e[k], sync);
      kt_local[n++] = known(g, r, &g->e[k], 0);
    }
  const tg_task_t *d = &g->t[i];
  if (n == 0 && prev < 0) return d->start;
  qsort(kt, (size_t)n, sizeof *kt, cmp64);
  int64_t K = prev >= 0 ? r->end_ps[prev] : 0;
  if (n > 0) K = max64(K, kt[d->need > 0 ? d->need - 1 : n - 1]);
  int64_t at = max64(d->start, K + d->delay);
  /* Did sync decide it? (Without it, the start would be earlier.) */
  qsort(kt_local, (size_t)n, sizeof *kt_local, cmp64);
  int64_t K0 = prev >= 0 ? r->end_ps[prev] : 0;
  if (n > 0) K0 = max64(K0, kt_local[d->need > 0 ? d->need - 1 : n - 1]);
  *by_sync = max64(d->start, K0 + d->delay) != at;
  return at;
}

static void check_graph(const topo_t *t, const tg_t *g, const eng_params_t *p,
                        const ref_result_t *r, int lossless, int e) {
  int before = mvtest_failures;
  int32_t last[16];
  for (int s = 0; s < 16; s++)
    last[s] = -1;
  int64_t hops = 0, last_end = 0;
  CHECK_EQ_I64(r->status, REF_OK);
  for (int32_t i = 0; i < g->n && mvtest_failures == before; i++) {
    const tg_task_t *d = &g->t[i];
    int32_t prev = d->stream >= 0 ? last[d->stream] : -1;
    int by_sync = 0;
    CHECK(r->start_ps[i] >= 0 && r->end_ps[i] >= r->start_ps[i]);
    CHECK_EQ_I64(r->start_ps[i], rule_start(g, r, i, prev, p->sync, &by_sync));
    if (prev >= 0) CHECK(r->start_ps[i] >= r->end_ps[prev]); /* no overlap */
    if (d->kind == TG_COMPUTE || d->kind == TG_COLL)
      CHECK_EQ_I64(r->end_ps[i], r->start_ps[i] + d->dur);
    if (d->kind == TG_JOIN) CHECK_EQ_I64(r->end_ps[i], r->start_ps[i]);
    if (d->kind == TG_FLOW) {
      CHECK(r->recv_ps[i] > r->start_ps[i] && r->recv_ps[i] < r->end_ps[i]);
      int64_t n = (int64_t)((d->bytes + (uint64_t)p->mtu - 1) / (uint64_t)p->mtu);
      hops += n * (topo_distance(t, d->host, d->dst) + topo_distance(t, d->dst, d->host));
      n_flows++;
      n_one_byte += d->bytes == 1;
    } else {
      CHECK_EQ_I64(r->recv_ps[i], -1);
    }
    if (d->stream >= 0) last[d->stream] = i;
    last_end = max64(last_end, r->end_ps[i]);
    n_kind[d->kind]++;
    n_need_k += d->need > 0;
    n_stream += prev >= 0;
    n_stream_need += prev >= 0 && d->need > 0;
    n_by_sync += by_sync;
    n_zero_dur += (d->kind == TG_COMPUTE || d->kind == TG_COLL) && d->dur == 0;
  }
  CHECK_EQ_I64(r->last_end_ps, last_end);
  if (lossless) {
    CHECK_EQ_I64(r->drops + r->retransmits + r->timeouts, 0);
    CHECK_EQ_I64(r->packet_hops, hops);
    n_lossless++;
  }
  for (int32_t k = 0; k < g->n_edges; k++) {
    const tg_edge_t *x = &g->e[k];
    int32_t at = x->on == TG_ON_RECV ? g->t[x->pred].dst : g->t[x->pred].host;
    n_cross += at != g->t[x->task].host;
    n_recv_edges += x->on == TG_ON_RECV;
  }
  count_overlaps(g, r);
  n_tasks += g->n;
  n_edges += g->n_edges;
  n_drops += r->drops;
  if (mvtest_failures != before)
    fprintf(stderr, "graph %d (topology %s, %d tasks) breaks a rule\n", e, t->kind, g->n);
}

static void random_params(mvgen_rng_t *rng, eng_params_t *p, int torus) {
  static const char *ccs[] = {"cc=none", "cc=dcqcn", "cc=dctcp", "cc=hpcc"};
  char err[256];
  if (mvsim_set(p, ccs[mvgen_rnd(rng, 4)], err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  p->lb = (eng_lb_t)mvgen_rnd(rng, 3);
  p->pfc = !torus && mvgen_rnd(rng, 2); /* a torus with PFC may deadlock */
  p->buffer = (int64_t)(3 + mvgen_rnd(rng, 12)) * (p->mtu + p->header);
  p->ecn = (int32_t)mvgen_rnd(rng, 2);
  p->reorder = (int32_t)mvgen_rnd(rng, 2);
  p->ack_every = 1 + (int32_t)mvgen_rnd(rng, 3);
  p->rto = (20 + (int64_t)mvgen_rnd(rng, 40)) * 1000000;
}

int main(void) {
  mvgen_rng_t rng = {99};
  for (int e = 0; e < N_GRAPHS; e++) {
    topo_t t;
    int kind = (int)mvgen_rnd(&rng, N_TOPO + 1);
    if (kind < N_TOPO) {
      char err[256];
      json_t *o = json_loads(topologies[kind], 0, NULL);
      if (!o || topo_from_json(o, "test", &t, err, sizeof err)) return 2;
      json_decref(o);
    } else {
      t = mvsim_star(3 + (int)mvgen_rnd(&rng, 6), 100000000000LL,
                     300000 + (int64_t)mvgen_rnd(&rng, 1000000));
    }
    eng_params_t p = mvsim_params();
    p.mtu = mvgen_rnd(&rng, 2) ? 1000 : 4096;
    p.sync = 1 + (int64_t)mvgen_rnd(&rng, 2000000);
    p.max_time = 1000000000000LL; /* 1 s: nothing times out */
    int lossless = e % 3 == 0;
    if (lossless) {
      p.buffer = 32 << 20;
      p.pfc = 1;
      p.lb = ENG_LB_ECMP;
      p.ack_every = 1;
      p.reorder = 0;
    } else {
      random_params(&rng, &p, strcmp(t.kind, "torus") == 0);
    }
    tg_t g = {0};
    char err[512];
    if (mvgen_graph(&t, 1000 + (uint64_t)e, p.mtu, MAX_TASKS, MVGEN_STREAM_NEED, &g) < 0) return 2;
    CHECK_EQ_I64(tg_check(&g, &t, "mvgen", err, sizeof err), 0);
    ref_result_t r;
    if (ref_run(&t, &g, &p, (uint64_t)e, &r)) return 2;
    check_graph(&t, &g, &p, &r, lossless, e);
    if (e % 8 == 0) { /* the same run again: the same result */
      ref_result_t r2;
      if (ref_run(&t, &g, &p, (uint64_t)e, &r2)) return 2;
      for (int32_t i = 0; i < g.n; i++)
        CHECK_EQ_I64(r2.end_ps[i], r.end_ps[i]);
      CHECK_EQ_I64(r2.packet_hops, r.packet_hops);
      ref_result_free(&r2);
    }
    ref_result_free(&r);
    tg_free(&g);
    topo_free(&t);
  }
  printf("%d graphs (%lld lossless): %lld tasks (flow/compute/coll/join %lld/%lld/%lld/%lld; "
         "%lld 1-byte flows, %lld 0-ps computes), %lld edges (%lld recv, %lld across hosts), "
         "%lld need-k tasks, %lld stream successors (%lld need k), %lld starts decided by sync, "
         "%lld drops; "
         "%lld flows share their host with another, %lld start with another\n",
         N_GRAPHS, (long long)n_lossless, (long long)n_tasks, (long long)n_kind[0],
         (long long)n_kind[1], (long long)n_kind[2], (long long)n_kind[3], (long long)n_one_byte,
         (long long)n_zero_dur, (long long)n_edges, (long long)n_recv_edges, (long long)n_cross,
         (long long)n_need_k, (long long)n_stream, (long long)n_stream_need, (long long)n_by_sync,
         (long long)n_drops, (long long)n_shared, (long long)n_tied);
  /* The graphs must exercise what they claim to. */
  CHECK(n_one_byte > 0 && n_zero_dur > 0 && n_recv_edges > 0 && n_cross > 0);
  CHECK(n_cross < n_edges && n_need_k > 0 && n_stream > 0 && n_by_sync > 0 && n_drops > 0);
  CHECK(n_kind[0] > 0 && n_kind[1] > 0 && n_kind[2] > 0 && n_kind[3] > 0);
  CHECK(n_shared > n_flows / 4 && n_tied > 0 && n_stream_need > 0);
  return mvtest_end();
}

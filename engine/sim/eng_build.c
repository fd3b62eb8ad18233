/* Fills a world's tables from experiment descriptions: topology rows, routes,
 * descriptor pools and link rings sized from the parameters, flows grouped by
 * sender. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cc.h"
#include "sim/eng_num.h"
#include "sim/eng_task.h"
#include "sim/eng_standalone.h"
#include "sim/eng_world_cols.h"

/* Relay descriptors of a node with `ports` ports (docs/model.md): its budget
 * (sw_free). */
static int64_t build_pool_pkts(const eng_params_t *p, int32_t ports) {
  if (p->pool_pkts > 0) return p->pool_pkts;
  int64_t wire = p->mtu + p->header;
  return (p->buffer + wire - 1) / wire + 8 * (int64_t)ports;
}

/* Pool rows behind that budget. Worst-case: all of it, so a pool never
 * overflows. Compact (unless pool_pkts fixes the budget): a quarter. Queues
 * rarely reach it (the deepest switch pool measured: 355 of 31K under
 * HPCC on the WebSearch trace, 1,187 under DCQCN, 1,641 of 8,118 in the
 * 144-experiment training sweep: tests/bench/RESULTS.md, session 34); a
 * pool that does fails its experiment (ENG_FAIL_POOL), which eng_world_run
 * runs again with worst-case pools (same results: a pool's rows change
 * nothing but whether it overflows). */
static int64_t build_pool_rows(const eng_params_t *p, int32_t ports, int worst_pools) {
  const int64_t budget = build_pool_pkts(p, ports);
  return worst_pools || p->pool_pkts > 0 ? budget : (budget + 3) / 4;
}

static int64_t build_node_slots(const topo_t *t, const eng_params_t *p, int32_t i,
                                int worst_pools) {
  int64_t n = 0;
  if (t->forwards[i]) n += build_pool_rows(p, t->port_off[i + 1] - t->port_off[i], worst_pools);
  if (!t->is_switch[i]) n += p->host_slots;
  return n;
}

/* Most packets a link direction holds: with its PFC ring (twice as long) a lone link
 * still fits the 2^30 rows of a table. */
#define BUILD_RING_MAX ((int64_t)1 << 27)

/* A world's ring kind when counting rows: BUILD_RINGS_AUTO each experiment as
 * build_take_worst says, BUILD_RINGS_WORST every ring worst-case (a world's
 * worst_storage 1), BUILD_RINGS_COMPACT every ring compact where ring_cap is 0
 * (build_batch_fit: a batch whose worst-case rings would not fit one world). */
#define BUILD_RINGS_AUTO 0
#define BUILD_RINGS_WORST 1
#define BUILD_RINGS_COMPACT 2

/* In-flight capacity of a link direction (a power of two). Worst case:
 * everything sent during one delay, plus one window, plus one serialisation,
 * at the smallest packet size — it can never overflow. Compact (build_take_worst says when):
 * the same span in MTU packets, twice over, plus 64 for control packets and
 * short last packets; an overflow fails the experiment and eng_world_run runs it
 * again with worst-case rings. Past BUILD_RING_MAX the doubling stops (the link
 * cannot be simulated: eng_world_rings_check); the topology's limits (delay <=
 * 1 s, rate >= 1 Gb/s) keep every term far below 2^63. */
static int64_t build_ring_cap(const eng_params_t *p, const topo_link_t *l, int worst) {
  if (p->ring_cap > 0) return p->ring_cap;
  int64_t min_wire = p->ctrl_bytes < p->header + 1 ? p->ctrl_bytes : p->header + 1;
  int64_t max_wire = p->mtu + p->header > p->ctrl_bytes ? p->mtu + p->header : p->ctrl_bytes;
  int64_t span = 2 * l->delay_ps + eng_ser(max_wire, l->rate_bps);
  int64_t need;
  if (worst) {
    int64_t unit = base_ser_clock(min_wire, (uint64_t)l->rate_bps, p->ser_floor_ns);
    need = (span + unit - 1) / unit + 2;
  } else {
    int64_t unit = eng_ser(max_wire, l->rate_bps);
    need = 2 * ((span + unit - 1) / unit) + 64;
  }
  int64_t cap = 1;
  while (cap < need && cap <= BUILD_RING_MAX)
    cap <<= 1;
  return cap;
}

int eng_world_rings_check(const eng_exp_desc_t *x, char *err, size_t errlen) {
  const eng_params_t *p = x->params;
  for (int32_t l = 0; l < x->topo->n_links; l++) {
    const topo_link_t *tl = &x->topo->links[l];
    if (build_ring_cap(p, tl, 1) <= BUILD_RING_MAX) continue;
    if (p->ring_cap > 0)
      snprintf(err, errlen,
               "ring_cap %d is more than %lld packets, the most a link direction holds",
               p->ring_cap, (long long)BUILD_RING_MAX);
    else
      snprintf(err, errlen,
               "link %d (%d-%d: %lld ps at %lld bit/s) can have more than %lld packets in "
               "flight per direction, the most a link holds: shorten the delay or lower the rate",
               l, tl->a, tl->b, (long long)tl->delay_ps, (long long)tl->rate_bps,
               (long long)BUILD_RING_MAX);
    return -1;
  }
  return 0;
}

static uint64_t build_q32(double v) {
  double q = floor(v * 4294967296.0);
  return q >= 4294967296.0 ? 4294967296ULL : (uint64_t)q;
}

int eng_graph_size(const topo_t *t, const tg_t *g, eng_graph_size_t *s) {
  memset(s, 0, sizeof *s);
  int64_t *tasks = calloc((size_t)t->n_nodes + 1, sizeof *tasks);
  int64_t *nflows = calloc((size_t)t->n_nodes + 1, sizeof *nflows);
  if (!tasks || !nflows) {
    free(tasks);
    free(nflows);
    return -1;
  }
  for (int32_t i = 0; i < g->n; i++) {
    if (g->t[i].gpu + 1 > s->gpus) s->gpus = g->t[i].gpu + 1;
    tasks[g->t[i].host]++;
    nflows[g->t[i].host] += g->t[i].kind == TG_FLOW;
    s->flows += g->t[i].kind == TG_FLOW;
    s->streamed += g->t[i].stream >= 0;
  }
  for (int32_t i = 0; i < t->n_nodes; i++) {
    int32_t ports = t->port_off[i + 1] - t->port_off[i];
    s->rbit += (int64_t)ports * ((nflows[i] + 63) / 64);
    s->poke += 2 * ((tasks[i] + 31) / 32);
  }
  free(tasks);
  free(nflows);
  s->tasks = g->n;
  s->edges = g->n_edges;
  return 0;
}

static int build_rows_taken(const eng_exp_desc_t *x, const eng_graph_size_t *s, int rings,
                            int64_t rows[ENG_T_COUNT]);

/* eng_world_rows, returning the ring kind it counted (1: worst-case), or -1
 * when out of memory. */
static int build_exp_rows(const eng_exp_desc_t *x, int rings, int64_t rows[ENG_T_COUNT]) {
  eng_graph_size_t s;
  if (eng_graph_size(x->topo, x->tasks, &s)) return -1;
  return build_rows_taken(x, &s, rings, rows);
}

int eng_world_rows(const eng_exp_desc_t *x, int worst_storage, int64_t rows[ENG_T_COUNT]) {
  return build_exp_rows(x, worst_storage ? BUILD_RINGS_WORST : BUILD_RINGS_AUTO, rows) < 0 ? -1 : 0;
}

static void build_rows(const eng_exp_desc_t *x, const eng_graph_size_t *s, int worst_rings,
                       int worst_pools, int64_t rows[ENG_T_COUNT]) {
  const topo_t *t = x->topo;
  const eng_params_t *p = x->params;
  const int64_t flows = s->flows;
  for (int tab = 0; tab < ENG_T_COUNT; tab++)
    rows[tab] = 0;
  rows[ENG_T_rbit] = s->rbit;
  rows[ENG_T_poke] = s->poke;
  rows[ENG_T_exp] = 1;
  rows[ENG_T_node] = t->n_nodes;
  rows[ENG_T_port] = 2 * (int64_t)t->n_links;
  rows[ENG_T_cls] = rows[ENG_T_port] * eng_build_n_cls(p);
  rows[ENG_T_flow] = flows;
  rows[ENG_T_dcqcn] = p->ccp.kind == CC_DCQCN ? flows : 0; /* per-algorithm CC state */
  rows[ENG_T_dctcp] = p->ccp.kind == CC_DCTCP ? flows : 0;
  rows[ENG_T_hpcc] = p->ccp.kind == CC_HPCC ? flows : 0;
  rows[ENG_T_task] = s->tasks;
  rows[ENG_T_pred] = s->edges + s->streamed; /* at most one stream edge per member */
  rows[ENG_T_succ] = s->edges + s->streamed;
  rows[ENG_T_heap] = s->tasks;
  rows[ENG_T_gpu] = s->gpus;
  rows[ENG_T_rank] = flows;
  rows[ENG_T_route] = (int64_t)t->routes.n_rows * t->routes.n_groups;
  rows[ENG_T_set] = (int64_t)t->routes.n_sets + 1;
  rows[ENG_T_setport] = t->routes.set_off[t->routes.n_sets];
  for (int32_t i = 0; i < t->n_nodes; i++) {
    rows[ENG_T_pool] += build_node_slots(t, p, i, worst_pools);
    rows[ENG_T_flet] += t->forwards[i] ? ENG_FLOWLETS : 0;
  }
  for (int32_t l = 0; l < t->n_links; l++)
    rows[ENG_T_ring] += 2 * build_ring_cap(p, &t->links[l], worst_rings);
  rows[ENG_T_pfc] = 2 * rows[ENG_T_ring];
  const eng_trace_desc_t *tr = x->trace;
  if (tr && tr->every > 0) {
    int64_t nser = 1 + 2 * (int64_t)tr->n_flows + tr->n_ports;
    rows[ENG_T_tser] = nser;
    rows[ENG_T_tval] = nser * tr->max_samples;
  }
  if (p->ccp.kind == CC_HPCC) {
    rows[ENG_T_pint] = rows[ENG_T_pool];
    rows[ENG_T_rint] = rows[ENG_T_ring];
  }
}

static int64_t build_rows_bytes(const int64_t rows[ENG_T_COUNT]) {
  int64_t bytes = 0;
  for (int tab = 0; tab < ENG_T_COUNT; tab++)
    bytes += rows[tab] * eng_world_row_bytes(tab);
  return bytes;
}

/* Whether experiment x, in a world of ring kind `rings` (BUILD_RINGS_*), gives
 * its nodes worst-case descriptor pools: in a world of worst-case storage (run
 * again after an overflow) or where MULTIVERSE_POOLS=worst; where it is auto
 * (the default), an experiment without congestion control, whose queues grow
 * until the buffer stops them (on the mpi tests' grid 4 of its 8 did outgrow
 * a quarter). Else compact ones (build_pool_rows). */
static int build_worst_pools(const eng_exp_desc_t *x, int rings) {
  const char *v = getenv("MULTIVERSE_POOLS"); /* the driver checks the word (drv_env.c) */
  if (rings == BUILD_RINGS_WORST || (v && strcmp(v, "worst") == 0)) return 1;
  if (v && strcmp(v, "compact") == 0) return 0;
  return x->params->ccp.kind == CC_NONE;
}

/* Whether experiment x takes worst-case rings though its world asks for
 * compact ones: MULTIVERSE_RINGS=worst always, compact never, auto (the
 * default) where they at most double its bytes (most experiments: the
 * descriptor pools and flows outweigh the rings). A compact ring that
 * overflows costs the experiment a second run in a world of its own after the
 * first (on the H200, WebSearch HPCC: 30 of 64 variants, 39.6 s then 18.0 s;
 * WebSearch DCQCN, whose worst-case rings add 74 %: 1 of 256, 41.0 s then
 * 5.4 s alone, where worst-case rings ran the 256 in 41.1 s); worst-case rings
 * never overflow, and the results are the same bits. */
static int build_take_worst(const eng_exp_desc_t *x, const eng_graph_size_t *s) {
  const char *v = getenv("MULTIVERSE_RINGS"); /* the driver checks the word (drv_env.c) */
  if (x->params->ring_cap > 0 || (v && strcmp(v, "compact") == 0)) return 0;
  if (v && strcmp(v, "worst") == 0) return 1;
  int64_t compact[ENG_T_COUNT], worst[ENG_T_COUNT];
  build_rows(x, s, 0, 1, compact); /* at worst-case pools: the choice they were measured by */
  build_rows(x, s, 1, 1, worst);
  return build_rows_bytes(worst) <= 2 * build_rows_bytes(compact);
}

/* Rows of x with the rings of kind `rings` (BUILD_RINGS_*); returns the kind
 * taken (1: worst-case). */
static int build_rows_taken(const eng_exp_desc_t *x, const eng_graph_size_t *s, int rings,
                            int64_t rows[ENG_T_COUNT]) {
  const int worst =
      rings == BUILD_RINGS_WORST || (rings == BUILD_RINGS_AUTO && build_take_worst(x, s));
  build_rows(x, s, worst, build_worst_pools(x, rings), rows);
  return worst;
}

void eng_world_rows_sized(const eng_exp_desc_t *x, const eng_graph_size_t *s, int worst_storage,
                          int64_t rows[ENG_T_COUNT]) {
  build_rows_taken(x, s, worst_storage ? BUILD_RINGS_WORST : BUILD_RINGS_AUTO, rows);
}

/* The first of the n experiments x with e's topology: routing tables are
 * read-only, so experiments on one topology share one copy. */
static int32_t build_routes_of(const eng_exp_desc_t *x, int32_t e) {
  for (int32_t j = 0; j < e; j++)
    if (x[j].topo == x[e].topo) return j;
  return e;
}

/* The rows of n experiments x with rings of kind `rings` (BUILD_RINGS_*), and
 * each experiment's rows in each[e] (NULL: not wanted), its routing tables
 * counted where it is the first on its topology. */
static int build_batch_rows(int32_t n, const eng_exp_desc_t *x, int rings,
                            int64_t rows[ENG_T_COUNT], uint8_t *worst_of,
                            int64_t (*each)[ENG_T_COUNT]) {
  int hpcc = 0;
  for (int tab = 0; tab < ENG_T_COUNT; tab++)
    rows[tab] = 0;
  for (int32_t e = 0; e < n; e++) {
    int64_t r[ENG_T_COUNT];
    const int worst = build_exp_rows(&x[e], rings, r);
    if (worst < 0) return -1;
    if (worst_of) worst_of[e] = (uint8_t)worst;
    if (build_routes_of(x, e) != e) r[ENG_T_route] = r[ENG_T_set] = r[ENG_T_setport] = 0;
    for (int tab = 0; tab < ENG_T_COUNT; tab++)
      rows[tab] += r[tab];
    if (each) memcpy(each[e], r, sizeof r);
    hpcc |= x[e].params->ccp.kind == CC_HPCC;
  }
  rows[ENG_T_pint] = hpcc ? rows[ENG_T_pool] : 0;
  rows[ENG_T_rint] = hpcc ? rows[ENG_T_ring] : 0;
  return 0;
}

/* Whether every table of rows fits one world (eng_world_row_limit). */
static int build_rows_fit(const int64_t rows[ENG_T_COUNT]) {
  const int64_t limit = eng_world_row_limit();
  for (int tab = 0; tab < ENG_T_COUNT; tab++)
    if (rows[tab] > limit) return 0;
  return 1;
}

/* build_batch_rows for a world (worst_storage 1: every ring worst-case; 0: as
 * MULTIVERSE_RINGS says), except that where the worst-case rings auto took
 * would make a table too large for one world and compact rings would not,
 * every ring is compact: a batch cut into more worlds runs them one after the
 * other, which costs more than the few experiments whose compact rings
 * overflow run again (H200, tests/bench/RESULTS.md, session 23: 512 WebSearch
 * DCQCN variants in one world of compact rings 63.8 s of kernel, against
 * 38.6-39.3 s for each world of 256 with worst-case rings). */
static int build_batch_fit(int32_t n, const eng_exp_desc_t *x, int worst_storage,
                           int64_t rows[ENG_T_COUNT], uint8_t *worst_of,
                           int64_t (*each)[ENG_T_COUNT]) {
  const char *v = getenv("MULTIVERSE_RINGS"); /* worst: no fallback (the driver checks the word) */
  const int rings = worst_storage ? BUILD_RINGS_WORST : BUILD_RINGS_AUTO;
  if (build_batch_rows(n, x, rings, rows, worst_of, each)) return -1;
  if (rings == BUILD_RINGS_WORST || (v && strcmp(v, "worst") == 0) || build_rows_fit(rows))
    return 0;
  if (build_batch_rows(n, x, BUILD_RINGS_COMPACT, rows, worst_of, each)) return -1;
  if (build_rows_fit(rows)) return 0;
  /* too large either way: the count of the rings asked for (the batch is cut) */
  return build_batch_rows(n, x, rings, rows, worst_of, each);
}

int eng_world_batch_rows(int32_t n, const eng_exp_desc_t *x, int worst_storage,
                         int64_t rows[ENG_T_COUNT], uint8_t *worst_of) {
  return build_batch_fit(n, x, worst_storage, rows, worst_of, NULL);
}

static int build_count(eng_world_t *w, const eng_world_desc_t *d, int64_t (*each)[ENG_T_COUNT],
                       char *err, size_t errlen) {
  w->worst_rings_of = malloc((size_t)d->n_exps + 1);
  if (!w->worst_rings_of ||
      build_batch_fit(d->n_exps, d->exps, d->worst_storage, w->n, w->worst_rings_of, each)) {
    snprintf(err, errlen, "out of memory counting the world's rows");
    return ENG_E_NOMEM;
  }
  /* Rows are addressed with int32 offsets. */
  int64_t limit = eng_world_row_limit();
  for (int tab = 0; tab < ENG_T_COUNT; tab++)
    if (w->n[tab] > limit) {
      snprintf(err, errlen, "batch too large for one world (more than %lld rows in one table)",
               (long long)limit);
      return ENG_E_TOO_BIG;
    }
  return 0;
}

int64_t eng_world_row_limit(void) {
  long long limit; /* the driver refuses a bad value when it starts (drv_env.c) */
  eng_env_int("MULTIVERSE_WORLD_ROWS", 1, INT32_MAX / 2, INT32_MAX / 2, &limit);
  return limit;
}

/* Row offsets where experiment e's rows start in each table. */
typedef struct build_base_t {
  int32_t node, port, flow, task, pred, succ, rbit, poke, route, set, setport, pool, ring, tser,
      tval, flet, cls;
  int32_t cca[4];       /* next row of each CC algorithm's table (by cc_kind_t) */
  int32_t gpu, gpu_end; /* first GPU row of the experiment, and past its last */
} build_base_t;

/* The fields of build_base_t that are tables' rows, each named as its table:
 * an experiment's first rows, advanced by its count (routing tables: the
 * first experiment on a topology counts them, the others 0). */
#define BUILD_BASE_FIELDS(X)                                                                       \
  X(node)                                                                                          \
  X(port)                                                                                          \
  X(flow)                                                                                          \
  X(task)                                                                                          \
  X(pred)                                                                                          \
  X(succ)                                                                                          \
  X(rbit)                                                                                          \
  X(poke)                                                                                          \
  X(route)                                                                                         \
  X(set)                                                                                           \
  X(setport)                                                                                       \
  X(pool)                                                                                          \
  X(ring)                                                                                          \
  X(tser)                                                                                          \
  X(tval)                                                                                          \
  X(flet)                                                                                          \
  X(cls)                                                                                           \
  X(gpu)

/* Where one copy of a topology's routing tables starts. */
typedef struct build_routes_t {
  int32_t route, set, setport;
} build_routes_t;

static void build_trace(eng_world_t *w, int32_t e, const eng_exp_desc_t *xd, build_base_t *b) {
  eng_cols_t *c = &w->c;
  const eng_trace_desc_t *tr = xd->trace;
  if (!tr || tr->every <= 0) return;
  int32_t nser = 1 + 2 * tr->n_flows + tr->n_ports, s = b->tser;
  c->exp_tr_every[e] = tr->every;
  c->exp_tr_next[e] = c->exp_t[e];
  c->exp_tr_cap[e] = tr->max_samples;
  c->exp_tr_ser[e] = b->tser;
  c->exp_tr_nser[e] = nser;
  c->exp_tr_off[e] = b->tval;
  c->tser_kind[s] = ENG_TR_TIME;
  c->tser_exp[s++] = e;
  for (int32_t i = 0; i < tr->n_flows; i++) {
    for (int32_t k = ENG_TR_DELIVERED; k <= ENG_TR_CC; k++) {
      c->tser_exp[s] = e;
      c->tser_kind[s] = k;
      c->tser_row[s++] = c->task[w->exp_task_row[b->task + tr->flows[i]]].flow;
    }
  }
  for (int32_t i = 0; i < tr->n_ports; i++) {
    c->tser_exp[s] = e;
    c->tser_kind[s] = ENG_TR_QUEUE;
    c->tser_row[s++] = b->port + tr->ports[i];
  }
  b->tser = s;
  b->tval += nser * tr->max_samples;
}

/* Scratch arrays of one experiment's build. */
typedef struct build_tmp_t {
  int32_t *tfirst; /* (n_nodes + 1) first task slot of each owner */
  int32_t *ffirst; /* (n_nodes + 1) first flow slot of each source */
  int32_t *row;    /* (n_tasks) task row of task i */
  int32_t *frow;   /* (n_tasks) flow row of task i, -1 */
  int32_t *prev;   /* (n_tasks) previous member of its stream, -1 */
  int32_t *npred, *nsucc;
  uint8_t *tier;   /* (n_nodes) tier of each node (topo_tiers) */
} build_tmp_t;

static void build_tmp_free(build_tmp_t *m) {
  free(m->tfirst);
  free(m->ffirst);
  free(m->row);
  free(m->frow);
  free(m->prev);
  free(m->npred);
  free(m->nsucc);
  free(m->tier);
}

/* Rows of tasks (by owner, task order within one) and flows (by source),
 * stream predecessors, edge counts and the nodes' tiers. */
static int build_tmp(const topo_t *t, const tg_t *g, build_tmp_t *m) {
  size_t nn = (size_t)t->n_nodes + 1, nt = (size_t)g->n + 1;
  int32_t max_stream = -1;
  m->tfirst = calloc(nn, sizeof *m->tfirst);
  m->ffirst = calloc(nn, sizeof *m->ffirst);
  m->row = malloc(nt * sizeof *m->row);
  m->frow = malloc(nt * sizeof *m->frow);
  m->prev = malloc(nt * sizeof *m->prev);
  m->npred = calloc(nt, sizeof *m->npred);
  m->nsucc = calloc(nt, sizeof *m->nsucc);
  m->tier = malloc(nn * sizeof *m->tier);
  if (!m->tfirst || !m->ffirst || !m->row || !m->frow || !m->prev || !m->npred || !m->nsucc ||
      !m->tier || topo_tiers(t, m->tier))
    return -1;
  for (int32_t i = 0; i < g->n; i++) {
    m->tfirst[g->t[i].host + 1]++;
    m->ffirst[g->t[i].host + 1] += g->t[i].kind == TG_FLOW;
    if (g->t[i].stream > max_stream) max_stream = g->t[i].stream;
  }
  for (int32_t i = 0; i < t->n_nodes; i++) {
    m->tfirst[i + 1] += m->tfirst[i];
    m->ffirst[i + 1] += m->ffirst[i];
  }
  int32_t *tfill = malloc(nn * sizeof *tfill), *ffill = malloc(nn * sizeof *ffill);
  int32_t *last = malloc(((size_t)max_stream + 2) * sizeof *last);
  if (!tfill || !ffill || !last) {
    free(tfill);
    free(ffill);
    free(last);
    return -1;
  }
  memcpy(tfill, m->tfirst, nn * sizeof *tfill);
  memcpy(ffill, m->ffirst, nn * sizeof *ffill);
  for (int32_t s = 0; s <= max_stream; s++)
    last[s] = -1;
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *k = &g->t[i];
    m->row[i] = tfill[k->host]++;
    m->frow[i] = k->kind == TG_FLOW ? ffill[k->host]++ : -1;
    m->prev[i] = k->stream >= 0 ? last[k->stream] : -1;
    if (k->stream >= 0) last[k->stream] = i;
    if (m->prev[i] >= 0) {
      m->npred[i]++;
      m->nsucc[m->prev[i]]++;
    }
  }
  for (int32_t j = 0; j < g->n_edges; j++) {
    m->npred[g->e[j].task]++;
    m->nsucc[g->e[j].pred]++;
  }
  free(tfill);
  free(ffill);
  free(last);
  return 0;
}

/* Flow task i of g as a row of the flow table (flow row f, node rows from nb). */
static void build_flow(eng_cols_t *c, const topo_t *t, const eng_params_t *p, const tg_t *g,
                       int32_t i, int32_t f, int32_t task_row, int32_t nb, int32_t cca,
                       int64_t global_rtt) {
  const tg_task_t *k = &g->t[i];
  const topo_routes_t *r = &t->routes;
  eng_fhdr_t *h = &c->flow[f].hdr;
  for (int end = 0; end < 2; end++) {
    int32_t id = end ? k->dst : k->host;
    h->end[end].node = nb + id;
    h->end[end].id = id;
    h->end[end].group = r->host_group[id];
    h->end[end].edge_node = r->host_edge_port[id] >= 0 ? nb + r->group_node[r->host_group[id]] : -1;
    h->end[end].edge_port = r->host_edge_port[id];
    h->end[end].port = end ? k->dport : k->sport;
  }
  h->idx = i;
  c->flow[f].task = task_row;
  c->flow[f].rank = -1;
  c->flow[f].rport = -1;
  c->flow[f].bytes = k->bytes;
  c->flow[f].npkts = (uint32_t)((k->bytes + (uint64_t)p->mtu - 1) / (uint64_t)p->mtu);
  c->flow[f].start = -1;
  c->flow[f].recv = -1;
  c->flow[f].rto_at = ENG_INF;
  c->flow[f].nack_for = UINT32_MAX;
  c->flow[f].cnp_last = -1;
  c->flow[f].cls = p->classes ? (int32_t)k->prio : 0;
  int64_t line = 0; /* the sender's fastest NIC port */
  for (int32_t q = t->port_off[k->host]; q < t->port_off[k->host + 1]; q++)
    if (t->links[t->ports[q].link].rate_bps > line) line = t->links[t->ports[q].link].rate_bps;
  trf_flow_t tf = {k->host, k->dst, k->sport, k->dport, k->prio, k->bytes, k->start, k->line};
  c->flow[f].ccx = cca;
  void *a = p->ccp.kind == CC_DCQCN   ? (void *)&c->dcqcn_s[cca]
            : p->ccp.kind == CC_DCTCP ? (void *)&c->dctcp_s[cca]
            : p->ccp.kind == CC_HPCC  ? (void *)&c->hpcc_s[cca]
                                      : NULL;
  cc_init(&c->flow[f].cc, a, &p->ccp, (double)line,
          global_rtt > 0          ? global_rtt
          : cc_needs_rtt(&p->ccp) ? eng_base_rtt(t, p, &tf)
                                  : 0);
}

/* Node row of the host where predecessor event (task i, on) of g happens. */
static int32_t build_event_host(const tg_t *g, int32_t i, int32_t on) {
  return on == TG_ON_RECV ? g->t[i].dst : g->t[i].host;
}

/* Task, flow, predecessor and successor rows of experiment e; tasks with no
 * predecessor wait in their owner's heap. *t0 receives the earliest start,
 * *cross whether an edge joins two hosts. */
static int build_tasks(eng_world_t *w, int32_t e, const eng_exp_desc_t *xd, const build_tmp_t *m,
                       build_base_t *b, int64_t *t0, int *cross) {
  eng_cols_t *c = &w->c;
  const tg_t *g = xd->tasks;
  const topo_t *t = xd->topo;
  int32_t *pfill = malloc(((size_t)g->n + 1) * sizeof *pfill);
  int32_t *sfill = malloc(((size_t)g->n + 1) * sizeof *sfill);
  if (!pfill || !sfill) {
    free(pfill);
    free(sfill);
    return -1;
  }
  int32_t po = b->pred, so = b->succ;
  const cc_params_t *ccp = &xd->params->ccp;
  int64_t global_rtt = ccp->kind == CC_HPCC && ccp->global_t ? eng_max_base_rtt(t, xd->params) : 0;
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *k = &g->t[i];
    int32_t r = b->task + m->row[i];
    w->exp_task_row[b->task + i] = r;
    c->task[r].exp = e;
    c->task[r].node = b->node + k->host;
    c->task[r].idx = i;
    c->task[r].kind = (uint8_t)k->kind;
    c->task[r].flow = m->frow[i] >= 0 ? b->flow + m->frow[i] : -1;
    c->task[r].tmin = k->start;
    c->task[r].delay = k->delay;
    c->task[r].dur = k->dur;
    c->task[r].need = k->need;
    c->task[r].npred = m->npred[i];
    c->task[r].pred_off = po;
    c->task[r].nsucc = m->nsucc[i];
    c->task[r].succ_off = so;
    c->task[r].start = -1;
    c->task[r].end = -1;
    c->task[r].hkey = ENG_INF;
    c->task[r].hpos = -1;
    c->task[r].gpu = k->gpu >= 0 ? b->gpu + k->gpu : -1;
    c->task[r].gnext = -1;
    pfill[i] = po;
    sfill[i] = so;
    po += m->npred[i];
    so += m->nsucc[i];
    int32_t kind = xd->params->ccp.kind;
    if (k->kind == TG_FLOW)
      build_flow(c, t, xd->params, g, i, b->flow + m->frow[i], r, b->node,
                 kind == CC_NONE ? -1 : b->cca[kind] + m->frow[i], global_rtt);
  }
  for (int32_t i = 0; i < g->n; i++) /* the stream's previous member first */
    if (m->prev[i] >= 0) {
      int32_t pr = m->prev[i];
      c->task[b->task + m->row[i]].spred = 1;
      c->pred_e[pfill[i]++] = (b->task + m->row[pr]) * 2 + TG_ON_END;
      c->succ_e[sfill[pr]++] = (b->task + m->row[i]) * 2 + TG_ON_END;
    }
  *cross = 0;
  for (int32_t j = 0; j < g->n_edges; j++) {
    const tg_edge_t *ed = &g->e[j];
    c->pred_e[pfill[ed->task]++] = (b->task + m->row[ed->pred]) * 2 + ed->on;
    c->succ_e[sfill[ed->pred]++] = (b->task + m->row[ed->task]) * 2 + ed->on;
    *cross |= build_event_host(g, ed->pred, ed->on) != g->t[ed->task].host;
  }
  *t0 = ENG_INF;
  for (int32_t r = b->task; r < b->task + g->n; r++) /* in row order: each owner's heap */
    if (c->task[r].npred == 0) {
      int32_t x = c->task[r].node;
      c->task[r].start = c->task[r].tmin;
      eng_heap_set(c, x, r, eng_key(c->task[r].tmin, ENG_EV_TASK), r - c->node[x].task_off);
      if (c->task[r].tmin < *t0) *t0 = c->task[r].tmin;
    }
  b->pred = po;
  b->succ = so;
  free(pfill);
  free(sfill);
  return 0;
}

/* Experiment e's parameter columns: a copy of every COL line of ENG_PARAMS. */
static void build_params(eng_cols_t *c, int32_t e, const eng_params_t *p) {
#define BUILD_COPY(A, key, unit, type, field, col, range, doc) BUILD_COPY_##col(field)
#define BUILD_COPY_COL(field) c->exp_##field[e] = p->field;
#define BUILD_COPY_NOCOL(field)
  ENG_PARAMS(BUILD_COPY, _)
#undef BUILD_COPY
#undef BUILD_COPY_COL
#undef BUILD_COPY_NOCOL
  c->exp_ccp[e].clock_ns = p->ser_floor_ns; /* pacing on the links' clock */
}

/* Fills experiment e's rows from b (its first rows in each table, advanced
 * as they are taken), with rt[e] where its routing tables are; 0 or -1 when
 * out of memory. Experiments' rows are disjoint: any may be built beside
 * any other. */
static int build_exp(eng_world_t *w, int32_t e, const eng_exp_desc_t *xd, build_base_t *b,
                     build_routes_t *rt) {
  const int worst_rings = w->worst_rings_of[e];
  const int worst_pools =
      build_worst_pools(xd, w->desc.worst_storage ? BUILD_RINGS_WORST : BUILD_RINGS_AUTO);
  if (build_routes_of(w->desc.exps, e) == e) { /* the first on its topology: its copy */
    const topo_routes_t *r = &xd->topo->routes;
    for (int64_t i = 0; i < (int64_t)r->n_rows * r->n_groups; i++)
      w->c.route_set[rt[e].route + i] = r->table[i];
    for (uint32_t s = 0; s <= r->n_sets; s++)
      w->c.set_off[rt[e].set + (int32_t)s] = (uint32_t)rt[e].setport + r->set_off[s];
    for (uint32_t s = 0; s < r->set_off[r->n_sets]; s++)
      w->c.setport_port[rt[e].setport + (int32_t)s] = r->set_ports[s];
  }
  eng_cols_t *c = &w->c;
  const topo_t *t = xd->topo;
  const topo_routes_t *r = &t->routes;
  const eng_params_t *p = xd->params;
  const tg_t *g = xd->tasks;
  build_tmp_t m = {0};
  if (build_tmp(t, g, &m)) {
    build_tmp_free(&m);
    return -1;
  }

  int64_t window = ENG_INF;
  for (int32_t l = 0; l < t->n_links; l++)
    if (t->links[l].delay_ps < window) window = t->links[l].delay_ps;
  c->exp_seed[e] = xd->seed;
  c->exp_next_t[e] = ENG_INF;
  c->exp_fail[e] = ENG_INF;
  c->exp_n_tasks[e] = g->n;
  c->exp_task_off[e] = b->task;
  c->exp_n_flows[e] = m.ffirst[t->n_nodes];
  c->exp_flow_off[e] = b->flow;
  c->exp_node_off[e] = b->node;
  c->exp_n_nodes[e] = t->n_nodes;
  c->exp_port_off[e] = b->port;
  c->exp_n_ports[e] = 2 * t->n_links;
  c->exp_n_cls[e] = eng_build_n_cls(p);
  long long phases; /* eng_phase.h; the driver checked the value when it started */
  eng_env_int("MULTIVERSE_PHASES", 0, 1, ENG_PHASES_AUTO, &phases);
  c->exp_phases[e] = (uint8_t)phases;
  build_params(c, e, p);

  for (int32_t i = 0; i < t->n_nodes; i++) {
    int32_t x = b->node + i;
    int32_t np = t->port_off[i + 1] - t->port_off[i];
    int32_t nf = m.ffirst[i + 1] - m.ffirst[i], nt = m.tfirst[i + 1] - m.tfirst[i];
    c->node_exp[x] = e;
    c->node[x].id = i;
    c->node[x].tier = m.tier[i];
    c->node[x].is_switch = t->is_switch[i];
    c->node[x].port_off = b->port + t->port_off[i];
    c->node[x].n_ports = np;
    c->node[x].flow_off = b->flow + m.ffirst[i];
    c->node[x].n_flows = nf;
    c->node[x].rr = nf - 1;
    c->node[x].task_off = b->task + m.tfirst[i];
    c->node[x].n_tasks = nt;
    c->node[x].rbit_off = b->rbit;
    c->node[x].rbit_words = (nf + 63) / 64;
    b->rbit += np * c->node[x].rbit_words;
    c->node[x].poke_off = b->poke;
    c->node[x].poke_words = (nt + 31) / 32;
    b->poke += 2 * c->node[x].poke_words;
    c->node[x].route_row = r->row[i] < 0 ? -1 : rt[e].route + r->row[i] * r->n_groups;
    c->node[x].set_base = rt[e].set + (int32_t)r->set_base[i];
    c->node[x].flet_off = b->flet;
    if (t->forwards[i]) {
      for (int32_t j = 0; j < ENG_FLOWLETS; j++)
        c->flet_entry[b->flet + j].port = -1;
      b->flet += ENG_FLOWLETS;
    }
    c->node[x].sw_free = t->forwards[i] ? (int32_t)build_pool_pkts(p, np) : 0;
    c->node[x].host_free = t->is_switch[i] ? 0 : p->host_slots;
    c->node[x].free_head = -1;
    c->node[x].pool_next = b->pool;
    b->pool += (int32_t)build_node_slots(t, p, i, worst_pools);
    c->node[x].pool_end = b->pool;
  }

  int64_t t0;
  int cross;
  int rc = build_tasks(w, e, xd, &m, b, &t0, &cross);
  build_tmp_free(&m);
  if (rc) return -1;
  /* The lookahead: nothing a node does reaches another node sooner. */
  if ((cross || t->n_links == 0) && p->sync < window) window = p->sync;
  c->exp_window[e] = window;
  c->exp_status[e] = g->n == 0 ? ENG_OK : ENG_RUNNING;
  c->exp_t[e] = g->n == 0 ? 0 : t0;
  c->exp_t_end[e] = eng_time_add(c->exp_t[e], window) > p->max_time + 1
                        ? p->max_time + 1
                        : eng_time_add(c->exp_t[e], window);

  for (int32_t q = 0; q < 2 * t->n_links; q++) {
    const topo_port_t *tp = &t->ports[q];
    const topo_link_t *l = &t->links[tp->link];
    int32_t pr = b->port + q;
    c->port[pr].node = b->node + tp->node;
    c->port[pr].peer = b->port + t->port_off[tp->peer] + tp->peer_port;
    c->port[pr].rate = l->rate_bps;
    c->port[pr].delay = l->delay_ps;
    c->port[pr].ser_full =
        base_ser_clock(p->mtu + p->header, (uint64_t)l->rate_bps, p->ser_floor_ns);
    c->port[pr].ser_ctrl = base_ser_clock(p->ctrl_bytes, (uint64_t)l->rate_bps, p->ser_floor_ns);
    c->port[pr].cq_head = c->port[pr].cq_tail = -1;
    c->port[pr].paused_since = -1;
    double pmax;
    eng_params_ecn_for(p, l->rate_bps, &c->port[pr].kmin, &c->port[pr].kmax, &pmax);
    c->port[pr].pmax_q32 = build_q32(pmax);
    c->port[pr].err_q32 = build_q32(l->error_rate);
    uint32_t cap = (uint32_t)build_ring_cap(p, l, worst_rings);
    c->port[pr].ring_off = b->ring;
    c->port[pr].ring_mask = cap - 1;
    b->ring += (int32_t)cap;
    /* PFC frames alternate and a PAUSE needs an arrival on this link, so twice
     * the packets in flight bound the frames in flight. */
    c->port[pr].pfc_off = 2 * c->port[pr].ring_off;
    c->port[pr].pfc_mask = 2 * cap - 1;
  }

  eng_build_buffers(c, t, p, b->node, b->port, &b->cls);
  build_trace(w, e, xd, b);
  b->node += t->n_nodes;
  b->port += 2 * t->n_links;
  if (p->ccp.kind != CC_NONE) b->cca[p->ccp.kind] += c->exp_n_flows[e];
  b->flow += c->exp_n_flows[e];
  for (int32_t i = 0; i < g->n; i++) /* GPUs: rows 0..max gpu index */
    if (g->t[i].gpu >= 0 && b->gpu + g->t[i].gpu + 1 > b->gpu_end)
      b->gpu_end = b->gpu + g->t[i].gpu + 1;
  for (int32_t q = b->gpu; q < b->gpu_end; q++)
    c->gpu_run[q] = -1;
  b->gpu = b->gpu_end;
  b->task += g->n;
  return 0;
}

/* The ways of experiment e's flows (eng_fway_t), each walked from its end by
 * eng_route, once every experiment's routing tables are in place (an
 * experiment reads the copy of the first on its topology). */
static void build_ways(eng_cols_t *c, int32_t e) {
  const int32_t f0 = c->exp_flow_off[e], f1 = f0 + c->exp_n_flows[e];
  const int ecmp = c->exp_lb[e] == ENG_LB_ECMP;
  for (int32_t f = f0; f < f1; f++)
    for (int data = 0; data < 2; data++) {
      eng_fhops_t *way = &c->flow_way[f].dir[data];
      const eng_fend_t *to = &c->flow[f].hdr.end[data];
      for (int32_t h = 0; h < ENG_WAY_HOPS; h++) {
        way->node[h] = -1;
        way->port[h] = 0;
      }
      int32_t x = c->flow[f].hdr.end[!data].node, h = 0;
      for (int32_t hop = 0; ecmp && h < ENG_WAY_HOPS && x != to->node && hop < c->exp_n_nodes[e];
           hop++) {
        const int32_t lp = eng_route(c, x, f, data ? ENG_PKT_DATA : ENG_PKT_ACK, 0);
        if (lp < 0) break;
        if (eng_route_direct(c, x, to) < 0) { /* looked up in a set */
          way->node[h] = x;
          way->port[h++] = (uint16_t)lp;
        }
        x = c->port[c->port[c->node[x].port_off + lp].peer].node;
      }
    }
}

int64_t eng_world_estimate(const eng_world_desc_t *d) {
  int64_t rows[ENG_T_COUNT], bytes = 0;
  if (eng_world_batch_rows(d->n_exps, d->exps, d->worst_storage, rows, NULL)) return -1;
  for (int t = 0; t < ENG_T_COUNT; t++)
    bytes += rows[t] * eng_world_row_bytes(t);
  return bytes;
}

/* Where each experiment's rows start (its rows as counted, after those of
 * the experiments before it) and where its routing tables are (the first
 * experiment on its topology holds the copy). */
static void build_bases(const eng_world_desc_t *d, const int64_t (*each)[ENG_T_COUNT],
                        build_base_t *base, build_routes_t *rt) {
  build_base_t b = {0};
  for (int32_t e = 0; e < d->n_exps; e++) {
    const int64_t *r = each[e];
    const int32_t owner = build_routes_of(d->exps, e);
    b.gpu_end = b.gpu;
    base[e] = b;
    rt[e] = owner == e ? (build_routes_t){b.route, b.set, b.setport} : rt[owner];
#define BUILD_ADVANCE(field) b.field += (int32_t)r[ENG_T_##field];
    BUILD_BASE_FIELDS(BUILD_ADVANCE)
#undef BUILD_ADVANCE
    b.cca[CC_DCQCN] += (int32_t)r[ENG_T_dcqcn];
    b.cca[CC_DCTCP] += (int32_t)r[ENG_T_dctcp];
    b.cca[CC_HPCC] += (int32_t)r[ENG_T_hpcc];
  }
}

/* Whether an experiment built from `from` took at most its counted rows r
 * (to reached): else its rows ran into the next one's, a bug of the count. */
static int build_within(const build_base_t *from, const build_base_t *to, const int64_t *r) {
  int ok = 1;
#define BUILD_WITHIN(field) ok &= to->field - from->field <= r[ENG_T_##field];
  BUILD_BASE_FIELDS(BUILD_WITHIN)
#undef BUILD_WITHIN
  return ok;
}

int eng_world_create(const eng_world_desc_t *d, eng_world_t **out, char *err, size_t errlen) {
  int rc = ENG_E_NOMEM;
  build_routes_t *rt = NULL;
  build_base_t *base = NULL;
  int64_t(*each)[ENG_T_COUNT] = malloc(((size_t)d->n_exps + 1) * sizeof *each);
  eng_world_t *w = calloc(1, sizeof *w);
  *out = NULL;
  if (!w || !each) goto fail_oom;
  rc = build_count(w, d, each, err, errlen);
  if (rc) goto fail;
  rc = ENG_E_NOMEM;
  w->n_exps = d->n_exps;
  w->desc = *d;
  w->desc.exps = malloc(((size_t)d->n_exps + 1) * sizeof *d->exps);
  if (!w->desc.exps) goto fail_oom;
  memcpy((eng_exp_desc_t *)w->desc.exps, d->exps, (size_t)d->n_exps * sizeof *d->exps);
  eng_cols_alloc(w);
  w->exp_task_row = calloc((size_t)w->n[ENG_T_task] + 1, sizeof(int32_t));
  rt = malloc(((size_t)d->n_exps + 1) * sizeof *rt);
  base = malloc(((size_t)d->n_exps + 1) * sizeof *base);
  if (!eng_cols_ok(w) || !w->exp_task_row || !rt || !base) goto fail_oom;
  build_bases(d, (const int64_t(*)[ENG_T_COUNT])each, base, rt);
  int bad = 0, over = 0;
  int threads = d->threads < d->n_exps ? d->threads : d->n_exps; /* none idle */
  if (threads < 1) threads = 1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(| : bad, over)
  for (int32_t e = 0; e < d->n_exps; e++) {
    build_base_t b = base[e];
    bad |= build_exp(w, e, &d->exps[e], &b, rt) != 0;
    over |= !build_within(&base[e], &b, each[e]);
  }
  if (!bad && !over) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int32_t e = 0; e < d->n_exps; e++)
      build_ways(&w->c, e);
  }
  if (over) {
    snprintf(err, errlen, "internal error: an experiment took more rows than its count");
    rc = -1;
    goto fail;
  }
  if (bad) goto fail_oom;
  free(rt);
  free(base);
  free(each);
  *out = w;
  return 0;
fail_oom:
  snprintf(err, errlen, "out of memory building the world (%lld bytes of tables)",
           w ? (long long)eng_world_bytes(w) : 0LL);
fail:
  free(rt);
  free(base);
  free(each);
  eng_world_destroy(w);
  return rc;
}

/* Building the flow level's tables: each flow's path (the packet level's ECMP
 * choices, docs/model.md Routing), its wire bits and latencies, the task graph
 * with its stream edges, link directions with their tiers; then every task
 * without predecessors waits in its experiment's event heap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/flw_step.h"
#include "base/base_clock.h"
#include "sim/eng_hash.h"

/* Follows the ECMP choices from host `from` to host `to` of a packet whose
 * 5-tuple is (s, d, sp, dp): writes the topology port of each hop (when
 * `port` is not NULL) and returns the hop count, or -1 (unroutable, or longer
 * than cap). */
static int flw_path(const topo_t *t, const eng_params_t *p, int32_t from, int32_t to, int32_t s,
                    int32_t d, uint32_t sp, uint32_t dp, int32_t *port, int cap) {
  uint16_t set[1024];
  int hops = 0;
  for (int32_t x = from; x != to; hops++) {
    int n = topo_next_hops(t, x, to, set, 1024);
    if (n <= 0 || hops == cap) return -1;
    uint32_t h = p->ecmp_ns3 ? eng_hash_ecmp_ns3(x, s, d, sp, dp) : eng_hash_ecmp(x, s, d, sp, dp);
    uint32_t k = h % (uint32_t)n;
    int32_t q = t->port_off[x] + set[p->ecmp_ns3 ? (uint32_t)n - 1 - k : k];
    if (port) port[hops] = q;
    x = t->ports[q].peer;
  }
  return hops;
}

int64_t flw_row_bytes(int table) {
  int64_t b = 0;
#define FLW_ROW_BYTES(tab, type, name)                                                             \
  if (FLW_T_##tab == table) b += (int64_t)sizeof(type);
  FLW_COLUMNS(FLW_ROW_BYTES)
#undef FLW_ROW_BYTES
  if (table == FLW_T_exp) b += FLW_T_COUNT * (int64_t)(sizeof(int64_t) + sizeof(int32_t));
  return b;
}

/* Hops from host s to host d (every ECMP path is a shortest one), memoised
 * per pair in an open-addressing table of `cap` (a power of two) slots. */
typedef struct flw_dist_t {
  uint64_t *key; /* (cap) s << 32 | d, plus 1; 0: empty */
  int32_t *hops;
  uint64_t cap;
} flw_dist_t;

static int32_t flw_dist(flw_dist_t *m, const topo_t *t, int32_t s, int32_t d) {
  uint64_t key = ((uint64_t)(uint32_t)s << 32 | (uint32_t)d) + 1;
  uint64_t h = (key * 0x9e3779b97f4a7c15ULL) >> 20;
  for (uint64_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (m->key[i] == key) return m->hops[i];
    if (m->key[i]) continue;
    m->key[i] = key;
    return m->hops[i] = topo_distance(t, s, d);
  }
}

int flw_exp_rows(const eng_exp_desc_t *x, int64_t rows[FLW_T_COUNT], char *err, size_t errlen) {
  const tg_t *g = x->tasks;
  const topo_t *t = x->topo;
  int64_t hops = 0, flows = 0, streamed = 0;
  int32_t gpus = 0;
  flw_dist_t m = {.cap = 64};
  while (m.cap < 2 * (uint64_t)g->n)
    m.cap *= 2;
  m.key = calloc(m.cap, sizeof *m.key);
  m.hops = malloc(m.cap * sizeof *m.hops);
  if (!m.key || !m.hops) {
    free(m.key);
    free(m.hops);
    snprintf(err, errlen, "out of memory sizing the flow level's tables");
    return -1;
  }
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *k = &g->t[i];
    streamed += k->stream >= 0;
    if (k->gpu + 1 > gpus) gpus = k->gpu + 1;
    if (k->kind != TG_FLOW) continue;
    int32_t h = flw_dist(&m, t, k->host, k->dst); /* links are both ways: so is the ACK's path */
    if (h <= 0 || h > TOPO_MAX_HOPS) {
      snprintf(err, errlen, "task %d: no route from host %d to host %d", i, k->host, k->dst);
      free(m.key);
      free(m.hops);
      return -1;
    }
    hops += h;
    flows++;
  }
  free(m.key);
  free(m.hops);
  rows[FLW_T_task] = g->n;
  rows[FLW_T_pred] = g->n_edges + streamed;
  rows[FLW_T_succ] = g->n_edges + streamed;
  rows[FLW_T_flow] = flows;
  rows[FLW_T_hop] = hops;
  rows[FLW_T_link] = 2 * (int64_t)t->n_links;
  rows[FLW_T_gpu] = gpus;
  for (int k = 0; k < FLW_T_COUNT; k++)
    if (rows[k] > INT32_MAX - 1) {
      snprintf(err, errlen, "too large for the flow level (more than 2^31 %s)",
               k == FLW_T_hop ? "hops of flow paths" : "rows in one table");
      return -1;
    }
  return 0;
}

/* Flow f of experiment view v: task k (index i); its hops from *hop on, at
 * most `room` of them. -1 if its path is not as long as sizing counted (a
 * broken invariant: ECMP paths are shortest paths). */
static int flw_build_flow(flw_view_t *v, const eng_exp_desc_t *x, const tg_task_t *k, int32_t i,
                          int32_t f, int32_t *hop, int32_t room) {
  const topo_t *t = x->topo;
  const eng_params_t *p = x->params;
  int32_t port[TOPO_MAX_HOPS];
  int J = flw_path(t, p, k->host, k->dst, k->host, k->dst, k->sport, k->dport, port, TOPO_MAX_HOPS);
  if (J <= 0 || J > room - *hop) return -1;
  uint64_t n = (k->bytes + (uint64_t)p->mtu - 1) / (uint64_t)p->mtu;
  int64_t pkt = (int64_t)(k->bytes < (uint64_t)p->mtu ? k->bytes : (uint64_t)p->mtu) + p->header;
  int64_t lat = 0, mx = 0, ack = 0;
  v->flow_task[f] = i;
  v->flow_dst[f] = k->dst;
  v->flow_hop_off[f] = *hop;
  v->flow_nhop[f] = J;
  v->flow_bits[f] = (int64_t)(k->bytes + n * (uint64_t)p->header) * 8;
  v->flow_recv[f] = -1;
  for (int j = 0; j < J; j++) {
    const topo_link_t *l = &t->links[t->ports[port[j]].link];
    int64_t s = base_ser_clock(pkt, (uint64_t)l->rate_bps, p->ser_floor_ns);
    lat += l->delay_ps + s;
    mx = s > mx ? s : mx;
    v->hop_link[*hop] = port[j];
    v->hop_flow[*hop] = f;
    v->hop_next[*hop] = v->hop_prev[*hop] = -1;
    ++*hop;
  }
  v->flow_lat[f] = lat - mx; /* the bottleneck's serialisation is the transfer's */
  int A = flw_path(t, p, k->dst, k->host, k->dst, k->host, k->dport, k->sport, port, TOPO_MAX_HOPS);
  for (int j = 0; j < A; j++) {
    const topo_link_t *l = &t->links[t->ports[port[j]].link];
    ack += base_ser_clock(p->ctrl_bytes, (uint64_t)l->rate_bps, p->ser_floor_ns) + l->delay_ps;
  }
  v->flow_ack[f] = ack;
  return A > 0 ? 0 : -1;
}

/* Previous member of each task's stream (-1), and predecessor and successor
 * counts. */
static int flw_streams(const tg_t *g, int32_t *prev, int32_t *npred, int32_t *nsucc) {
  int32_t max_stream = -1;
  for (int32_t i = 0; i < g->n; i++)
    if (g->t[i].stream > max_stream) max_stream = g->t[i].stream;
  int32_t *last = malloc(((size_t)max_stream + 2) * sizeof *last);
  if (!last) return -1;
  for (int32_t s = 0; s <= max_stream; s++)
    last[s] = -1;
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *k = &g->t[i];
    prev[i] = k->stream >= 0 ? last[k->stream] : -1;
    if (k->stream >= 0) last[k->stream] = i;
    npred[i] = nsucc[i] = 0;
  }
  for (int32_t i = 0; i < g->n; i++)
    if (prev[i] >= 0) {
      npred[i]++;
      nsucc[prev[i]]++;
    }
  for (int32_t j = 0; j < g->n_edges; j++) {
    npred[g->e[j].task]++;
    nsucc[g->e[j].pred]++;
  }
  free(last);
  return 0;
}

/* Experiment e's rows (its offsets and counts are set). */
static int flw_build_exp(flw_cols_t *c, int32_t e, const eng_exp_desc_t *x) {
  flw_view_t v = flw_view(c, e);
  const tg_t *g = x->tasks;
  const topo_t *t = x->topo;
  size_t nt = (size_t)g->n + 1;
  int32_t *prev = malloc(nt * sizeof *prev), *npred = malloc(nt * sizeof *npred);
  int32_t *nsucc = malloc(nt * sizeof *nsucc);
  uint8_t *tier = malloc((size_t)t->n_nodes + 1);
  int rc = -1;
  if (!prev || !npred || !nsucc || !tier || flw_streams(g, prev, npred, nsucc) ||
      topo_tiers(t, tier))
    goto out;
  v.exp_sync[0] = x->params->sync;
  v.exp_overlap_q16[0] = x->params->overlap_q16;
  v.exp_max_time[0] = x->params->max_time;
  v.exp_status[0] = ENG_RUNNING;
  v.exp_first[0] = INT64_MAX;
  int32_t po = 0, so = 0, f = 0, hop = 0;
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *k = &g->t[i];
    v.task_kind[i] = (uint8_t)k->kind;
    v.task_host[i] = k->host;
    v.task_gpu[i] = k->gpu;
    v.task_need[i] = k->need;
    v.task_npred[i] = npred[i];
    v.task_pred_off[i] = po;
    v.task_nsucc[i] = nsucc[i];
    v.task_succ_off[i] = so;
    v.task_tmin[i] = k->start;
    v.task_delay[i] = k->delay;
    v.task_dur[i] = k->dur;
    v.task_start[i] = v.task_end[i] = -1;
    v.task_hkey[i] = FLW_INF;
    v.task_hpos[i] = -1;
    v.task_gnext[i] = -1;
    v.task_flow[i] = -1;
    po += npred[i];
    so += nsucc[i];
    npred[i] = v.task_pred_off[i]; /* from here: where the next edge goes */
    nsucc[i] = v.task_succ_off[i];
    if (k->kind == TG_FLOW) {
      v.task_flow[i] = f;
      if (flw_build_flow(&v, x, k, i, f++, &hop, c->cnt[FLW_T_hop][e])) goto out;
    }
  }
  for (int32_t i = 0; i < g->n; i++) /* the stream's previous member first */
    if (prev[i] >= 0) {
      v.task_spred[i] = 1;
      v.pred_e[npred[i]++] = prev[i] * 2 + TG_ON_END;
      v.succ_e[nsucc[prev[i]]++] = i * 2 + TG_ON_END;
    }
  for (int32_t j = 0; j < g->n_edges; j++) {
    const tg_edge_t *ed = &g->e[j];
    v.pred_e[npred[ed->task]++] = ed->pred * 2 + ed->on;
    v.succ_e[nsucc[ed->pred]++] = ed->task * 2 + ed->on;
  }
  for (int32_t q = 0; q < 2 * t->n_links; q++) {
    v.link_cap[q] = t->links[t->ports[q].link].rate_bps;
    v.link_tier[q] = tier[t->ports[q].node];
    v.link_head[q] = v.link_lpos[q] = -1;
  }
  for (int32_t k = 0; k < c->cnt[FLW_T_gpu][e]; k++)
    v.gpu_run[k] = -1;
  for (int32_t i = 0; i < g->n; i++)
    if (v.task_npred[i] == 0) {
      v.task_start[i] = v.task_tmin[i];
      flw_ev_set(&v, i, v.task_tmin[i], FLW_EV_START);
    }
  rc = 0;
out:
  free(prev);
  free(npred);
  free(nsucc);
  free(tier);
  return rc;
}

void flw_world_destroy(flw_world_t *w) {
  if (!w) return;
#define FLW_FREE(tab, type, name) free(w->c.tab##_##name);
  FLW_COLUMNS(FLW_FREE)
#undef FLW_FREE
  for (int k = 0; k < FLW_T_COUNT; k++) {
    free(w->c.off[k]);
    free(w->c.cnt[k]);
  }
  free(w);
}

int64_t flw_world_bytes(const flw_world_t *w) {
  int64_t b = 0;
  for (int k = 0; k <= FLW_T_COUNT; k++)
    b += w->rows[k] * flw_row_bytes(k);
  return b;
}

int flw_world_create(int32_t n, const eng_exp_desc_t *x, flw_world_t **out, char *err,
                     size_t errlen) {
  flw_world_t *w = calloc(1, sizeof *w);
  *out = NULL;
  if (!w) goto fail_oom;
  w->n_exps = n;
  w->rows[FLW_T_exp] = n;
  for (int k = 0; k < FLW_T_COUNT; k++) {
    w->c.off[k] = malloc(((size_t)n + 1) * sizeof *w->c.off[k]);
    w->c.cnt[k] = malloc(((size_t)n + 1) * sizeof *w->c.cnt[k]);
    if (!w->c.off[k] || !w->c.cnt[k]) goto fail_oom;
  }
  for (int32_t e = 0; e < n; e++) {
    int64_t rows[FLW_T_COUNT];
    if (flw_exp_rows(&x[e], rows, err, errlen)) { /* validated: cannot happen */
      flw_world_destroy(w);
      return ENG_E_INPUT;
    }
    for (int k = 0; k < FLW_T_COUNT; k++) {
      w->c.off[k][e] = w->rows[k];
      w->c.cnt[k][e] = (int32_t)rows[k];
      w->rows[k] += rows[k];
    }
  }
#define FLW_ALLOC(tab, type, name)                                                                 \
  w->c.tab##_##name = calloc((size_t)w->rows[FLW_T_##tab] + 1, sizeof(type));                      \
  if (!w->c.tab##_##name) goto fail_oom;
  FLW_COLUMNS(FLW_ALLOC)
#undef FLW_ALLOC
  for (int32_t e = 0; e < n; e++)
    if (flw_build_exp(&w->c, e, &x[e])) goto fail_oom;
  *out = w;
  return 0;
fail_oom:
  snprintf(err, errlen, "out of memory building the flow level's tables of %d experiments", n);
  flw_world_destroy(w);
  return ENG_E_NOMEM;
}

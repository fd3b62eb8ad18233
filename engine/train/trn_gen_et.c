/* trn: a Chakra trace set as the iteration's task graph, node for node (docs/chakra.md):
 * rank r is GPU r; a compute node is a compute task of its duration (or the roofline's
 * time of its FLOPs and bytes); its data and control dependencies are edges; the k-th
 * collective of every member of a communicator group is one collective among them
 * (coll_append: rings and all-to-alls over the network, the intra-server model inside
 * servers); the k-th send from a to b with a tag meets b's k-th receive from a with it
 * and becomes a flow. As ASTRA-sim's hardware resource allows, each rank runs one GPU
 * compute node, one CPU node and one collective or send at a time, in id order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/trn_gen_int.h"

enum { RES_GPU = 0, RES_CPU = 1, RES_COMM = 2, RES_NONE = 3 };

typedef struct idx_t {
  uint64_t id;
  int32_t i; /* node index in its rank */
} idx_t;

typedef struct eb_t {
  trn_gb_t *b;
  const trn_gen_et_desc_t *d;
  const trn_et_t *et;
  int64_t *off;     /* (ranks + 1) first node of each rank in done/pre */
  int32_t *done;    /* per node: the join that ends when the node has completed */
  int32_t *pre;     /* per node: a join of its dependencies (communication nodes), -1 */
  idx_t **order;    /* per rank: its nodes by id */
  int32_t roofline; /* compute nodes timed by the roofline */
} eb_t;

static int oom(eb_t *e) {
  snprintf(e->b->err, e->b->errlen, "out of memory");
  return -1;
}

static int fail(eb_t *e, int32_t r, const trn_et_node_t *n, const char *what) {
  const trn_et_rank_t *k = &e->et->ranks[r];
  snprintf(e->b->err, e->b->errlen, "%s: node %llu (%s): %s", k->path, (unsigned long long)n->id,
           trn_et_node_name(k, n), what);
  return -1;
}

static const trn_et_rank_t *rank_of(const eb_t *e, int32_t r) {
  return &e->et->ranks[r];
}

/* Index in rank r of node `id` (its nodes sorted by id in order[r]), -1. */
static int32_t find(const eb_t *e, int32_t r, uint64_t id) {
  int32_t lo = 0, hi = rank_of(e, r)->n_nodes - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    uint64_t x = e->order[r][mid].id;
    if (x == id) return e->order[r][mid].i;
    if (x < id)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

static int by_id(const void *a, const void *b) {
  uint64_t x = ((const idx_t *)a)->id, y = ((const idx_t *)b)->id;
  return (x > y) - (x < y);
}

/* Which of the rank's one-at-a-time resources a node holds (ASTRA-sim's
 * HardwareResource): a CPU node the CPU, a GPU compute node the GPU, a collective or a
 * send the communication slot; receives, metadata and invalid nodes none. */
static int resource(const trn_et_node_t *n) {
  if (n->kind == TRN_ET_COMP) return n->cpu ? RES_CPU : RES_GPU;
  if (n->kind == TRN_ET_COLL || n->kind == TRN_ET_SEND) return RES_COMM;
  return RES_NONE;
}

/* ps of a compute node: its duration; without one the roofline of its num_ops and
 * tensor_size (GPU nodes); else ASTRA-sim's 1 ns. */
static int64_t compute_ps(eb_t *e, const trn_et_node_t *n) {
  if (n->dur_ps > 0) return n->dur_ps;
  if (!n->cpu && n->num_ops > 0 && e->d->gpu_spec) {
    e->roofline++;
    return trn_op_time_ps(e->d->gpu_spec, (double)n->num_ops, (double)n->tensor_size, 1);
  }
  return 1000;
}

/* Edges of task t from node i's dependencies (their done joins) and the previous
 * holder of its resource. */
static int deps(eb_t *e, int32_t r, int32_t i, int32_t t, int32_t prev) {
  const trn_et_rank_t *k = rank_of(e, r);
  const trn_et_node_t *n = &k->nodes[i];
  for (int32_t j = 0; j < n->n_deps; j++) {
    int32_t p = find(e, r, k->deps[n->deps + j]);
    if (trn_gb_edge(e->b, t, e->done[e->off[r] + p], TG_ON_END)) return -1;
  }
  return trn_gb_edge(e->b, t, prev, TG_ON_END);
}

/* Phase 1: every node's done join; compute, metadata and replayed nodes; the
 * dependency joins of communication nodes. */
static int nodes(eb_t *e) {
  trn_gb_t *b = e->b;
  trn_meta_t js = {TRN_CAT_SYNC, TRN_W_LAYER, -1, -1, -1};
  for (int32_t r = 0; r < e->et->n_ranks; r++)
    for (int32_t i = 0; i < rank_of(e, r)->n_nodes; i++)
      if ((e->done[e->off[r] + i] = trn_gb_task(b, TG_JOIN, r, 0, 0, js)) < 0) return -1;
  for (int32_t r = 0; r < e->et->n_ranks; r++) {
    const trn_et_rank_t *k = rank_of(e, r);
    int32_t prev[3] = {-1, -1, -1};
    for (int32_t o = 0; o < k->n_nodes; o++) {
      int32_t i = e->order[r][o].i;
      const trn_et_node_t *n = &k->nodes[i];
      int res = resource(n), d = e->done[e->off[r] + i];
      int32_t before = res < RES_NONE ? prev[res] : -1;
      e->pre[e->off[r] + i] = -1;
      if (n->kind == TRN_ET_COMP || (n->kind == TRN_ET_COLL && n->coll == TRN_ET_BROADCAST)) {
        /* a compute node, or a broadcast that ASTRA-sim replays for its duration */
        int comp = n->kind == TRN_ET_COMP;
        trn_meta_t m = {comp ? TRN_CAT_COMPUTE : TRN_CAT_DP, comp ? TRN_W_LAYER : TRN_W_RED, -1, -1,
                        tg_label(&b->o->g, trn_et_node_name(k, n))};
        if (m.aux < 0) return oom(e);
        int64_t ps = comp ? compute_ps(e, n) : n->dur_ps > 0 ? n->dur_ps : 1000;
        int32_t t = trn_gb_task(b, comp ? TG_COMPUTE : TG_COLL, r, ps, 0, m);
        if (t < 0 || deps(e, r, i, t, before) || trn_gb_edge(b, d, t, TG_ON_END)) return -1;
      } else if (n->kind == TRN_ET_COLL || n->kind == TRN_ET_SEND || n->kind == TRN_ET_RECV) {
        int32_t p = trn_gb_task(b, TG_JOIN, r, 0, 0, js);
        if (p < 0 || deps(e, r, i, p, before)) return -1;
        e->pre[e->off[r] + i] = p;
      } else if (deps(e, r, i, d, before)) { /* metadata and invalid nodes: no work */
        return -1;
      }
      if (res < RES_NONE) prev[res] = d;
    }
  }
  return 0;
}

static coll_kind_t kind_of(int coll) {
  return coll == TRN_ET_ALL_REDUCE       ? COLL_ALLREDUCE
         : coll == TRN_ET_ALL_GATHER     ? COLL_ALLGATHER
         : coll == TRN_ET_REDUCE_SCATTER ? COLL_REDUCESCATTER
                                         : COLL_ALLTOALL;
}

/* nccl-tests' size of a collective whose comm_size is ASTRA-sim's: an all-gather's is
 * each rank's input (ASTRA-sim's ring ends with n times it), the others' the buffer. A
 * collective of fewer bytes than members moves a byte per member. */
static uint64_t coll_bytes(int coll, uint64_t size, int32_t n) {
  uint64_t s = coll == TRN_ET_ALL_GATHER ? size * (uint64_t)n : size;
  return s < (uint64_t)n ? (uint64_t)n : s;
}

/* The collectives of group g (-1: every rank): each member's, by id (list, count); every
 * member must have as many; the k-th of each member run together. */
static int group_colls(eb_t *e, int32_t g, int32_t *mem, int32_t **list, int32_t *count) {
  const trn_et_t *et = e->et;
  int32_t n = g < 0 ? et->n_ranks : et->groups[g].n;
  for (int32_t j = 0; j < n; j++) {
    int32_t r = mem[j] = g < 0 ? j : et->groups[g].ranks[j];
    const trn_et_rank_t *k = rank_of(e, r);
    count[j] = 0;
    for (int32_t o = 0; o < k->n_nodes; o++) {
      const trn_et_node_t *x = &k->nodes[e->order[r][o].i];
      if (x->kind == TRN_ET_COLL && x->coll != TRN_ET_BROADCAST && x->group == g)
        list[j][count[j]++] = e->order[r][o].i;
    }
  }
  for (int32_t j = 1; j < n; j++)
    if (count[j] != count[0]) {
      snprintf(e->b->err, e->b->errlen,
               "%s: %d collectives of communicator group %s, %s has %d: every member runs each "
               "of them",
               rank_of(e, mem[j])->path, count[j], g < 0 ? "(every rank)" : et->groups[g].name,
               rank_of(e, mem[0])->path, count[0]);
      return -1;
    }
  int32_t *after = malloc(3 * ((size_t)n + 1) * sizeof *after), *done = after + n + 1,
          *gpu = done + n + 1;
  if (!after) return oom(e);
  int rc = 0;
  for (int32_t c = 0; n > 0 && c < count[0] && !rc; c++) {
    const trn_et_node_t *x0 = &rank_of(e, mem[0])->nodes[list[0][c]];
    int local = 1;
    for (int32_t j = 0; j < n && !rc; j++) {
      const trn_et_node_t *x = &rank_of(e, mem[j])->nodes[list[j][c]];
      if (x->coll != x0->coll || x->size != x0->size) {
        char m[512];
        snprintf(m, sizeof m,
                 "its %s of %llu bytes is collective %d of its group, which rank %d runs as %s "
                 "of %llu bytes (node %llu)",
                 trn_et_coll_name(x->coll), (unsigned long long)x->size, c, mem[0],
                 trn_et_coll_name(x0->coll), (unsigned long long)x0->size,
                 (unsigned long long)x0->id);
        rc = fail(e, mem[j], x, m);
      }
      after[j] = e->pre[e->off[mem[j]] + list[j][c]];
      gpu[j] = mem[j];
      local &= mem[j] / e->b->gps == mem[0] / e->b->gps;
    }
    if (rc) break;
    int cat = x0->coll == TRN_ET_ALL_TO_ALL ? TRN_CAT_EP : local ? TRN_CAT_TP : TRN_CAT_DP;
    trn_meta_t cm = {0, TRN_W_LAYER, -1, -1,
                     tg_label(&e->b->o->g, trn_et_node_name(rank_of(e, mem[0]), x0))};
    if (cm.aux < 0) {
      rc = oom(e);
    } else if (n == 1) { /* a group of one: nothing to exchange */
      done[0] = after[0];
    } else {
      rc = trn_gb_coll(e->b, kind_of(x0->coll), coll_bytes(x0->coll, x0->size, n), n, gpu, after,
                       done, cat, cm);
    }
    for (int32_t j = 0; j < n && !rc; j++)
      rc = trn_gb_edge(e->b, e->done[e->off[mem[j]] + list[j][c]], done[j], TG_ON_END);
  }
  free(after);
  return rc;
}

/* Phase 2: collectives, group by group, after checking that no rank runs a collective
 * of a group it is not in. */
static int collectives(eb_t *e) {
  const trn_et_t *et = e->et;
  int32_t R = et->n_ranks;
  int rc = 0;
  int32_t *mem = malloc((size_t)R * sizeof *mem), *count = calloc((size_t)R, sizeof *count);
  int32_t **list = calloc((size_t)R, sizeof *list);
  uint8_t *in = malloc((size_t)R);
  if (!mem || !count || !list || !in) rc = oom(e);
  for (int32_t r = 0; r < R && !rc; r++)
    if (!(list[r] = malloc(((size_t)rank_of(e, r)->n_nodes + 1) * sizeof *list[r]))) rc = oom(e);
  for (int32_t g = 0; g < et->n_groups && !rc; g++) {
    memset(in, 0, (size_t)R);
    for (int32_t j = 0; j < et->groups[g].n; j++)
      in[et->groups[g].ranks[j]] = 1;
    for (int32_t r = 0; r < R && !rc; r++)
      for (int32_t i = 0; i < rank_of(e, r)->n_nodes && !rc; i++) {
        const trn_et_node_t *x = &rank_of(e, r)->nodes[i];
        if (x->kind == TRN_ET_COLL && x->group == g && !in[r]) {
          char m[160];
          snprintf(m, sizeof m, "a collective of communicator group %s, which rank %d is not in",
                   et->groups[g].name, r);
          rc = fail(e, r, x, m);
        }
      }
  }
  for (int32_t g = -1; g < et->n_groups && !rc; g++)
    rc = group_colls(e, g, mem, list, count);
  for (int32_t r = 0; list && r < R; r++)
    free(list[r]);
  free(list);
  free(mem);
  free(count);
  free(in);
  return rc;
}

/* A send or a receive, for matching: (src, dst, tag), then its place at its rank. */
typedef struct p2p_t {
  int32_t src, dst;
  uint32_t tag;
  int32_t o, i; /* its position among its rank's nodes by id; its node index */
} p2p_t;

static int by_key(const void *a, const void *b) {
  const p2p_t *x = a, *y = b;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
  if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
  return (x->o > y->o) - (x->o < y->o);
}

static int pair(eb_t *e, const p2p_t *s, const p2p_t *v) {
  trn_gb_t *b = e->b;
  const trn_et_node_t *ns = &rank_of(e, s->src)->nodes[s->i],
                      *nv = &rank_of(e, v->dst)->nodes[v->i];
  if (ns->size != nv->size) {
    char m[256];
    snprintf(m, sizeof m, "sends %llu bytes to rank %d, whose receive (node %llu) takes %llu",
             (unsigned long long)ns->size, s->dst, (unsigned long long)nv->id,
             (unsigned long long)nv->size);
    return fail(e, s->src, ns, m);
  }
  int32_t ps = e->pre[e->off[s->src] + s->i], pv = e->pre[e->off[v->dst] + v->i];
  int32_t ds = e->done[e->off[s->src] + s->i], dv = e->done[e->off[v->dst] + v->i];
  uint64_t bytes = ns->size > 0 ? ns->size : 1;
  trn_meta_t m = {TRN_CAT_PP, TRN_W_ACT, -1, -1, -1};
  if (!b->nvlink && s->src / b->gps == s->dst / b->gps) { /* NCCL's send/receive step */
    int32_t gpus[2] = {s->src, s->dst}, after[2] = {ps, pv}, done[2];
    if (trn_gb_coll(b, COLL_SENDRECV, bytes, 2, gpus, after, done, TRN_CAT_PP, m)) return -1;
    b->o->spans[b->o->n_spans - 1].recv_side = 1;
    return trn_gb_edge(b, ds, done[0], TG_ON_END) || trn_gb_edge(b, dv, done[1], TG_ON_END);
  }
  /* between servers: a flow from the send's issue (ASTRA-sim sends eagerly); the send
   * completes when it is acknowledged, the receive when it is posted and the data in */
  int32_t f = trn_gb_flow(b, s->src, s->dst, bytes, m);
  if (f < 0 || trn_gb_edge(b, f, ps, TG_ON_END) || trn_gb_edge(b, ds, f, TG_ON_END) ||
      trn_gb_edge(b, dv, pv, TG_ON_END) || trn_gb_edge(b, dv, f, TG_ON_RECV))
    return -1;
  return trn_gb_p2p_spans(b, s->src, s->dst, f, bytes);
}

/* Phase 3: the k-th send from a to b with a tag meets b's k-th receive from a with it. */
static int p2p(eb_t *e) {
  int64_t n_s = 0, n_r = 0, total = e->off[e->et->n_ranks];
  p2p_t *s = malloc(((size_t)total + 1) * sizeof *s), *v = malloc(((size_t)total + 1) * sizeof *v);
  int rc = 0;
  if (!s || !v) rc = oom(e);
  for (int32_t r = 0; r < e->et->n_ranks && !rc; r++) {
    const trn_et_rank_t *k = rank_of(e, r);
    for (int32_t o = 0; o < k->n_nodes; o++) {
      int32_t i = e->order[r][o].i;
      const trn_et_node_t *x = &k->nodes[i];
      if (x->kind == TRN_ET_SEND) s[n_s++] = (p2p_t){r, x->peer, x->tag, o, i};
      if (x->kind == TRN_ET_RECV) v[n_r++] = (p2p_t){x->peer, r, x->tag, o, i};
    }
  }
  if (!rc) {
    qsort(s, (size_t)n_s, sizeof *s, by_key);
    qsort(v, (size_t)n_r, sizeof *v, by_key);
  }
  int64_t a = 0, c = 0;
  while (!rc && (a < n_s || c < n_r)) {
    int cmp = a == n_s ? 1 : c == n_r ? -1 : by_key(&s[a], &v[c]);
    if (a < n_s && c < n_r && s[a].src == v[c].src && s[a].dst == v[c].dst && s[a].tag == v[c].tag)
      cmp = 0;
    if (cmp == 0) {
      rc = pair(e, &s[a++], &v[c++]);
    } else {
      const p2p_t *x = cmp < 0 ? &s[a] : &v[c];
      int32_t r = cmp < 0 ? x->src : x->dst;
      char m[160];
      snprintf(m, sizeof m, "%s rank %d with tag %u has no matching %s there",
               cmp < 0 ? "a send to" : "a receive from", cmp < 0 ? x->dst : x->src, x->tag,
               cmp < 0 ? "receive" : "send");
      rc = fail(e, r, &rank_of(e, r)->nodes[x->i], m);
    }
  }
  free(s);
  free(v);
  return rc;
}

int trn_gen_et(const trn_gen_et_desc_t *d, trn_graph_t *out, char *err, size_t errlen) {
  const trn_et_t *et = d->et;
  trn_gen_desc_t gd = {.model = d->model, .sync_ps = d->sync_ps, .channels = d->channels};
  trn_gb_t b = {.o = out, .d = &gd, .err = err, .errlen = errlen};
  eb_t e = {.b = &b, .d = d, .et = et};
  int rc = -1;
  memset(out, 0, sizeof *out);
  if (d->gpus != et->n_ranks) {
    snprintf(err, errlen, "the cluster has %lld GPUs, the Chakra trace set %s %d ranks",
             (long long)d->gpus, et->prefix, et->n_ranks);
    return -1;
  }
  trn_gb_imported(&b, et->n_ranks, d->gpus_per_server, d->nics_per_server, d->gpu, d->nvlink);
  b.host = malloc((size_t)b.gpus * sizeof *b.host);
  out->gpu_stage = malloc((size_t)b.gpus * sizeof *out->gpu_stage);
  e.off = malloc(((size_t)b.gpus + 1) * sizeof *e.off);
  e.order = calloc((size_t)b.gpus, sizeof *e.order);
  if (!b.host || !out->gpu_stage || !e.off || !e.order) {
    oom(&e);
    goto done;
  }
  e.off[0] = 0;
  for (int32_t r = 0; r < b.gpus; r++) {
    int64_t server = r / d->gpus_per_server, local = r % d->gpus_per_server;
    b.host[r] =
        (int32_t)(server * d->nics_per_server + local * d->nics_per_server / d->gpus_per_server);
    out->gpu_stage[r] = -1;
    e.off[r + 1] = e.off[r] + et->ranks[r].n_nodes;
    e.order[r] = malloc(((size_t)et->ranks[r].n_nodes + 1) * sizeof *e.order[r]);
    if (!e.order[r]) {
      oom(&e);
      goto done;
    }
    for (int32_t i = 0; i < et->ranks[r].n_nodes; i++)
      e.order[r][i] = (idx_t){et->ranks[r].nodes[i].id, i};
    qsort(e.order[r], (size_t)et->ranks[r].n_nodes, sizeof *e.order[r], by_id);
  }
  if (e.off[b.gpus] > INT32_MAX / 8) {
    snprintf(err, errlen, "%s: %lld nodes in all: too large a task graph", et->prefix,
             (long long)e.off[b.gpus]);
    goto done;
  }
  e.done = malloc(2 * ((size_t)e.off[b.gpus] + 1) * sizeof *e.done);
  if (!e.done) {
    oom(&e);
    goto done;
  }
  e.pre = e.done + e.off[b.gpus] + 1;
  if (nodes(&e) || collectives(&e) || p2p(&e) || trn_gb_sort_spans(&b)) goto done;
  tg_assign_ports(&out->g);
  out->roofline_tasks = e.roofline;
  rc = 0;
done:
  for (int32_t r = 0; e.order && r < b.gpus; r++)
    free(e.order[r]);
  free(e.order);
  free(e.off);
  free(e.done);
  free(b.host);
  if (rc) trn_graph_free(out);
  return rc;
}

/* coll: one collective appended to a task graph: members placed on servers
 * and NICs, the hierarchical phases (model-timed steps inside servers, flows
 * between them), and each member's done join. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_int.h"

int32_t coll_b_task(coll_b_t *b, tg_kind_t kind, int32_t own, int32_t to, uint64_t bytes,
                    int64_t dur) {
  int32_t i = b->g->n - b->first;
  if (i >= b->cap) {
    int32_t cap = b->cap ? 2 * b->cap : 256;
    int32_t *o = realloc(b->own, (size_t)cap * sizeof *o);
    if (o) b->own = o;
    int32_t *r = o ? realloc(b->rx, (size_t)cap * sizeof *r) : NULL;
    if (!r) {
      snprintf(b->err, b->errlen, "out of memory");
      return -1;
    }
    b->rx = r;
    b->cap = cap;
  }
  tg_task_t t = tg_task_default(kind);
  t.host = b->host[own];
  t.gpu = b->gpu[own];
  t.start = b->d->start;
  t.label = b->label;
  if (kind == TG_FLOW) {
    t.dst = b->host[to];
    t.bytes = bytes;
    t.prio = b->d->prio;
  }
  t.dur = dur;
  int32_t k = tg_add(b->g, &t);
  if (k < 0) {
    snprintf(b->err, b->errlen, "out of memory");
    return -1;
  }
  b->own[i] = own;
  b->rx[i] = kind == TG_FLOW ? to : -1;
  return k;
}

int coll_b_edge(coll_b_t *b, int32_t task, int32_t pred, tg_on_t on) {
  if (pred < 0) return 0;
  if (tg_edge(b->g, task, pred, on)) {
    snprintf(b->err, b->errlen, "out of memory");
    return -1;
  }
  return 0;
}

int32_t coll_b_window(const coll_b_t *b, int32_t def) {
  return b->d->window > 0 ? b->d->window : def;
}

uint64_t coll_b_parts(uint64_t bytes, uint64_t chunk) {
  uint64_t p = chunk ? (bytes + chunk - 1) / chunk : 1;
  if (p > bytes) p = bytes;
  return p ? p : 1;
}

/* The host where task p's end happens. */
static int32_t end_host(const coll_b_t *b, int32_t p) {
  return b->g->t[p].host;
}

/* One intra-server step of every server: a coll task per member, waiting for
 * pred[j] of every member j of its server and for extra[server] (-1: none).
 * A member learns of another host's event `sync` late (docs/model.md), so a
 * step with such a predecessor lasts the model's time minus sync: a step
 * whose members are all ready at T ends at T + the model's time. */
static int intra(coll_b_t *b, coll_kind_t kind, uint64_t bytes, const int32_t *pred,
                 const int32_t *extra, int32_t *out) {
  int64_t ps;
  if (!b->cl->model || !b->cl->gpu) {
    snprintf(b->err, b->errlen,
             "%d members share a server: the intra-server model and the GPU "
             "type are needed",
             b->per);
    return -1;
  }
  if (coll_model_time(b->cl->model, b->cl->gpu, kind, b->per, bytes, &ps, b->err, b->errlen))
    return -1;
  for (int32_t i = 0; i < b->n; i++) {
    int32_t s = b->server[i], x = extra ? extra[s] : -1;
    int remote = x >= 0 && end_host(b, x) != b->host[i];
    for (int32_t j = 0; j < b->per; j++) {
      int32_t p = pred[b->at[s * b->per + j]];
      remote |= p >= 0 && end_host(b, p) != b->host[i];
    }
    int64_t dur = ps - (remote ? b->cl->sync_ps : 0);
    out[i] = coll_b_task(b, TG_COLL, i, -1, 0, dur > 0 ? dur : 0);
    if (out[i] < 0 || coll_b_edge(b, out[i], x, TG_ON_END)) return -1;
    for (int32_t j = 0; j < b->per; j++)
      if (coll_b_edge(b, out[i], pred[b->at[s * b->per + j]], TG_ON_END)) return -1;
  }
  return 0;
}

/* For each member, a join of the arrivals of the flows to it among the tasks
 * from `since` on (-1 where none arrived): when its data of a phase is in. */
static int arrived(coll_b_t *b, int32_t since, int32_t *out) {
  int32_t end = b->g->n;
  for (int32_t i = 0; i < b->n; i++)
    out[i] = -1;
  for (int32_t t = since; t < end; t++) /* mark, then create in member order */
    if (b->rx[t - b->first] >= 0) out[b->rx[t - b->first]] = 0;
  for (int32_t i = 0; i < b->n; i++)
    if (out[i] == 0 && (out[i] = coll_b_task(b, TG_JOIN, i, -1, 0, 0)) < 0) return -1;
  for (int32_t t = since; t < end; t++) {
    int32_t i = b->rx[t - b->first];
    if (i >= 0 && coll_b_edge(b, out[i], t, TG_ON_RECV)) return -1;
  }
  return 0;
}

/* Phases between servers: one ring, tree or chain per slot. */
static int between(coll_b_t *b, coll_kind_t kind, const int32_t *ready) {
  int32_t m = b->m, per = b->per, n = b->n;
  int32_t *mem = malloc((size_t)m * sizeof *mem), *rdy = malloc((size_t)m * sizeof *rdy);
  uint64_t *blocks = malloc((size_t)m * sizeof *blocks);
  int rc = -1;
  if (!mem || !rdy || !blocks) {
    snprintf(b->err, b->errlen, "out of memory");
    goto done;
  }
  for (int32_t j = 0; j < per; j++) {
    uint64_t total = coll_piece(b->d->bytes, (uint64_t)per, (uint64_t)j);
    for (int32_t s = 0; s < m; s++) {
      mem[s] = b->at[s * per + j];
      rdy[s] = ready[mem[s]];
      /* allreduce: the slot's share; allgather, reducescatter: the block of
       * global rank s * per + j (rank order: servers, then slots) */
      blocks[s] = kind == COLL_ALLREDUCE
                      ? coll_piece(total, (uint64_t)m, (uint64_t)s)
                      : coll_piece(b->d->bytes, (uint64_t)n, (uint64_t)(s * per + j));
    }
    if (kind == COLL_ALLREDUCE && b->d->algo == COLL_TREE ? coll_tree(b, m, mem, total, rdy)
                                                          : coll_ring(b, kind, m, mem, blocks, rdy))
      goto done;
  }
  rc = 0;
done:
  free(mem);
  free(rdy);
  free(blocks);
  return rc;
}

/* Broadcast and reduce: the root's slot carries the data between servers
 * along a chain of servers from the root's (broadcast) or to it (reduce). */
static int rooted(coll_b_t *b, const int32_t *after, int32_t *c1) {
  int32_t m = b->m, per = b->per, root = b->d->root;
  int32_t rs = b->server[root], j = b->slot[root];
  int32_t *mem = malloc((size_t)m * sizeof *mem), *rdy = malloc((size_t)m * sizeof *rdy);
  int32_t *got = malloc((size_t)b->n * sizeof *got), *extra = malloc((size_t)m * sizeof *extra);
  int rc = -1;
  if (!mem || !rdy || !got || !extra) {
    snprintf(b->err, b->errlen, "out of memory");
    goto done;
  }
  if (b->d->kind == COLL_BROADCAST) {
    for (int32_t i = 0; i < m; i++) {
      mem[i] = b->at[((rs + i) % m) * per + j];
      rdy[i] = after[mem[i]];
    }
    int32_t since = b->g->n;
    if (coll_chain(b, m, mem, b->d->bytes, COLL_NCCL_STEP_BYTES, rdy)) goto done;
    if (per > 1) {
      if (arrived(b, since, got)) goto done;
      for (int32_t s = 0; s < m; s++)
        extra[s] = got[b->at[s * per + j]];
      if (intra(b, COLL_BROADCAST, b->d->bytes, after, extra, c1)) goto done;
    }
  } else {
    const int32_t *ready = after;
    if (per > 1) {
      if (intra(b, COLL_REDUCE, b->d->bytes, after, NULL, c1)) goto done;
      ready = c1;
    }
    for (int32_t i = 0; i < m; i++) {
      mem[i] = b->at[((rs + 1 + i) % m) * per + j];
      rdy[i] = ready[mem[i]];
    }
    if (coll_chain(b, m, mem, b->d->bytes, COLL_NCCL_STEP_BYTES, rdy)) goto done;
  }
  rc = 0;
done:
  free(mem);
  free(rdy);
  free(got);
  free(extra);
  return rc;
}

/* The phases of d->kind (docs/collectives.md). */
static int phases(coll_b_t *b, const int32_t *after) {
  coll_kind_t k = b->d->kind;
  uint64_t S = b->d->bytes;
  int32_t n = b->n;
  int32_t *c1 = malloc((size_t)n * sizeof *c1), *got = malloc((size_t)n * sizeof *got);
  int rc = -1;
  if (!c1 || !got) {
    snprintf(b->err, b->errlen, "out of memory");
    goto done;
  }
  if (b->m == 1 && k != COLL_BROADCAST && k != COLL_REDUCE) { /* one server: the model */
    rc = intra(b, k, S, after, NULL, c1);
    goto done;
  }
  switch (k) {
  case COLL_ALLREDUCE:
  case COLL_REDUCESCATTER: {
    const int32_t *ready = after;
    if (b->per > 1) {
      if (intra(b, COLL_REDUCESCATTER, S, after, NULL, c1)) goto done;
      ready = c1;
    }
    int32_t since = b->g->n;
    if (between(b, k, ready)) goto done;
    if (k == COLL_ALLREDUCE && b->per > 1 &&
        (arrived(b, since, got) || intra(b, COLL_ALLGATHER, S, got, NULL, c1)))
      goto done;
    break;
  }
  case COLL_ALLGATHER: {
    int32_t since = b->g->n;
    if (between(b, k, after)) goto done;
    if (b->per > 1 && (arrived(b, since, got) || intra(b, COLL_ALLGATHER, S, got, NULL, c1)))
      goto done;
    break;
  }
  case COLL_ALLTOALL:
    if (b->per > 1 && intra(b, COLL_ALLTOALL, S / (uint64_t)n * (uint64_t)b->per, after, NULL, c1))
      goto done;
    if (coll_a2a(b, S, after)) goto done;
    break;
  case COLL_BROADCAST:
  case COLL_REDUCE:
    if (rooted(b, after, c1)) goto done;
    break;
  default: { /* sendrecv between servers */
    int32_t mem[2] = {0, 1}, rdy[2] = {after[0], after[1]};
    if (coll_chain(b, 2, mem, S, S, rdy)) goto done;
  }
  }
  rc = 0;
done:
  free(c1);
  free(got);
  return rc;
}

/* Checks the descriptor and places the members; 0 or -1. */
static int place(coll_b_t *b, const coll_cluster_t *cl, const coll_desc_t *d, int32_t n,
                 const int32_t *gpus) {
  int32_t gps = cl->gpus_per_server > 0 ? cl->gpus_per_server : 1;
  int32_t nics = cl->nics_per_server > 0 ? cl->nics_per_server : gps;
  if (cl->gpus_per_server < 0 || cl->nics_per_server < 0 || cl->sync_ps < 0) {
    snprintf(b->err, b->errlen, "gpus_per_server, nics_per_server and sync must be >= 0");
    return -1;
  }
  if (d->kind < 0 || d->kind >= COLL_N_KINDS || (d->algo != COLL_RING && d->algo != COLL_TREE) ||
      (d->algo == COLL_TREE && d->kind != COLL_ALLREDUCE)) {
    snprintf(b->err, b->errlen, "unknown collective or algorithm (the tree is for allreduce)");
    return -1;
  }
  if (n < 1 || d->bytes < 1 || d->channels < 0 || d->window < 0 || d->a2a_window < 0 ||
      d->start < 0) {
    snprintf(b->err, b->errlen,
             "%s: needs members >= 1, bytes >= 1, and channels, windows and "
             "start >= 0",
             coll_name(d->kind));
    return -1;
  }
  if ((d->kind == COLL_BROADCAST || d->kind == COLL_REDUCE) && (d->root < 0 || d->root >= n)) {
    snprintf(b->err, b->errlen, "%s: root %d is not a member (0..%d)", coll_name(d->kind), d->root,
             n - 1);
    return -1;
  }
  if (d->kind == COLL_SENDRECV && n != 2) {
    snprintf(b->err, b->errlen, "sendrecv: needs 2 members (sender, receiver), got %d", n);
    return -1;
  }
  int32_t *count = calloc((size_t)n, sizeof *count);
  int32_t *srv_id = malloc((size_t)n * sizeof *srv_id); /* global server of local index */
  if (!count || !srv_id) goto oom;
  b->m = 0;
  for (int32_t i = 0; i < n; i++) {
    if (gpus[i] < 0) {
      snprintf(b->err, b->errlen, "member %d: GPU %d is not a GPU index", i, gpus[i]);
      goto fail;
    }
    for (int32_t k = 0; k < i; k++)
      if (gpus[k] == gpus[i]) {
        snprintf(b->err, b->errlen, "members %d and %d are both GPU %d", k, i, gpus[i]);
        goto fail;
      }
    int32_t srv = gpus[i] / gps, local = gpus[i] % gps, s = 0;
    int32_t nic = cl->gpu_nic ? cl->gpu_nic[local] : (int32_t)((int64_t)local * nics / gps);
    if (nic < 0 || nic >= nics) {
      snprintf(b->err, b->errlen, "GPU %d of a server uses NIC %d, not in 0..%d", local, nic,
               nics - 1);
      goto fail;
    }
    while (s < b->m && srv_id[s] != srv)
      s++;
    if (s == b->m) srv_id[b->m++] = srv;
    b->host[i] = (int32_t)((int64_t)srv * nics + nic);
    b->server[i] = s;
    b->slot[i] = count[s]++;
  }
  b->per = count[0];
  for (int32_t s = 1; s < b->m; s++)
    if (count[s] != b->per) {
      snprintf(b->err, b->errlen,
               "%s: server of GPU %d holds %d members, the first one %d: "
               "members must be spread evenly over their servers",
               coll_name(d->kind), srv_id[s] * gps, count[s], b->per);
      goto fail;
    }
  b->at = malloc((size_t)n * sizeof *b->at);
  if (!b->at) goto oom;
  for (int32_t i = 0; i < n; i++)
    b->at[b->server[i] * b->per + b->slot[i]] = i;
  free(count);
  free(srv_id);
  return 0;
oom:
  snprintf(b->err, b->errlen, "out of memory");
fail:
  free(count);
  free(srv_id);
  return -1;
}

int coll_append(tg_t *g, const coll_cluster_t *cl, const coll_desc_t *d, int32_t n,
                const int32_t *gpus, const int32_t *after, int32_t *done, char *err,
                size_t errlen) {
  coll_b_t b = {.g = g,
                .cl = cl,
                .d = d,
                .n = n,
                .gpu = gpus,
                .first = g->n,
                .label = -1,
                .err = err,
                .errlen = errlen};
  int32_t *pred = NULL;
  int rc = -1;
  if (n < 1) {
    snprintf(err, errlen, "%s: no members", coll_name(d->kind));
    return -1;
  }
  b.host = malloc(3 * (size_t)n * sizeof *b.host);
  pred = malloc((size_t)n * sizeof *pred);
  if (!b.host || !pred) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  b.server = b.host + n;
  b.slot = b.server + n;
  for (int32_t i = 0; i < n; i++)
    pred[i] = after ? after[i] : -1;
  for (int32_t i = 0; i < n; i++)
    if (pred[i] >= g->n) {
      snprintf(err, errlen, "member %d waits for task %d, which does not exist", i, pred[i]);
      goto done;
    }
  if (place(&b, cl, d, n, gpus)) goto done;
  if (d->label && (b.label = tg_label(g, d->label)) < 0) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  if (n > 1 && phases(&b, pred)) goto done;
  /* Done: every task of the member has ended, every flow to it arrived. */
  int32_t end = g->n;
  for (int32_t i = 0; i < n; i++)
    if ((done[i] = coll_b_task(&b, TG_JOIN, i, -1, 0, 0)) < 0 ||
        coll_b_edge(&b, done[i], pred[i], TG_ON_END))
      goto done;
  for (int32_t t = b.first; t < end; t++) {
    int32_t o = b.own[t - b.first], r = b.rx[t - b.first];
    if (coll_b_edge(&b, done[o], t, TG_ON_END) ||
        (r >= 0 && coll_b_edge(&b, done[r], t, TG_ON_RECV)))
      goto done;
  }
  rc = 0;
done:
  free(b.host);
  free(b.at);
  free(b.own);
  free(b.rx);
  free(pred);
  return rc;
}

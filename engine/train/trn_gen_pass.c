/* trn: each pipeline rank's program on its GPUs, step by step and GPU by GPU in
 * lockstep: a pass becomes segments (compute, overlapped TP collectives, then the
 * blocking TP step every TP rank waits for), cut where work from elsewhere joins
 * (expert all-to-alls, gradient buckets, ZeRO-3 gathers) or, with task_grain
 * "layer", at every layer; a call becomes a join on the stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/trn_gen_int.h"

typedef struct seg_t {
  int64_t compute, tp, async;
  int32_t layer; /* first layer (within the chunk) of the segment */
  int open;
} seg_t;

/* One pass being built on the n GPUs of rank r (GPU base + i; a TP group is t
 * consecutive ones). */
typedef struct pass_t {
  trn_gb_t *b;
  int64_t r;
  int32_t base, n;
  int32_t *C, *A; /* (n) compute and overlapped-TP task of the last segment */
  int32_t *wait;  /* (n) task the next compute also waits for (all-to-all), -1 */
  int32_t gath;   /* launch whose gather the next compute waits for (ZeRO-3), -1 */
  trn_meta_t meta;
  int32_t layer0; /* global layer of the chunk's layer 0 */
} pass_t;

int trn_gen_tp_step(trn_gb_t *b, int32_t base, int32_t n, const int32_t *p1, const int32_t *p2,
                    int64_t ps, trn_meta_t meta) {
  int32_t t = (int32_t)b->t;
  meta.cat = TRN_CAT_TP;
  for (int32_t i = 0; i < n; i++) {
    int32_t g = base + i, g0 = i - i % t, remote = 0;
    for (int32_t j = g0; j < g0 + t; j++)
      remote |= b->host[base + j] != b->host[g];
    /* Members learn of each other's ends sync late: the step lasts the model's time
     * after the last member is ready (as coll's intra-server steps). */
    int64_t dur = ps - (remote ? b->d->sync_ps : 0);
    int32_t k = trn_gb_task(b, TG_COLL, g, dur, 1, meta);
    if (k < 0) return -1;
    for (int32_t j = g0; j < g0 + t; j++)
      if (trn_gb_edge(b, k, p1[j], TG_ON_END) || (p2 && trn_gb_edge(b, k, p2[j], TG_ON_END)))
        return -1;
    if (trn_gb_span(b, (trn_span_t){.gpu = g,
                                    .cat = TRN_CAT_TP,
                                    .kind = COLL_ALLREDUCE,
                                    .first = k,
                                    .end = k + 1,
                                    .done = k,
                                    .lead = ps - b->o->g.t[k].dur,
                                    .task = k}))
      return -1;
    b->gb[g].last = k;
  }
  return 0;
}

/* The segment's tasks on every GPU of the pass. */
static int flush(pass_t *x, seg_t *sg) {
  trn_gb_t *b = x->b;
  if (!sg->open) return 0;
  trn_meta_t m = x->meta;
  m.aux = x->layer0 + (sg->layer < 0 ? 0 : sg->layer);
  int async = sg->async > 0 && b->t > 1;
  for (int32_t i = 0; i < x->n; i++) {
    int32_t g = x->base + i, before = b->gb[g].last;
    m.cat = TRN_CAT_COMPUTE;
    int32_t c = trn_gb_task(b, TG_COMPUTE, g, sg->compute, 1, m);
    if (c < 0 || trn_gb_edge(b, c, x->wait[i], TG_ON_END)) return -1;
    if (x->gath >= 0) b->gb[g].waiter[x->gath] = c;
    x->C[i] = c;
    x->A[i] = -1;
    if (async) {
      m.cat = TRN_CAT_TP;
      int32_t a = trn_gb_task(b, TG_COLL, g, sg->async, 0, m);
      if (a < 0 || trn_gb_edge(b, a, before, TG_ON_END) ||
          trn_gb_edge(b, a, x->wait[i], TG_ON_END) ||
          trn_gb_span(b, (trn_span_t){.gpu = g,
                                      .cat = TRN_CAT_TP,
                                      .kind = COLL_REDUCESCATTER,
                                      .first = a,
                                      .end = a + 1,
                                      .done = a,
                                      .task = a}))
        return -1;
      x->A[i] = a;
    }
    x->wait[i] = -1;
    b->gb[g].last = c;
  }
  x->gath = -1;
  if (b->t > 1 && sg->tp > 0 &&
      trn_gen_tp_step(b, x->base, x->n, x->C, async ? x->A : NULL, sg->tp, m))
    return -1;
  memset(sg, 0, sizeof *sg);
  return 0;
}

/* An expert all-to-all in every EP group of the pass's GPUs. */
static int all_to_all(pass_t *x) {
  trn_gb_t *b = x->b;
  int64_t ep = b->ep;
  int32_t *mem = malloc(3 * (size_t)ep * sizeof *mem);
  if (!mem) {
    snprintf(b->err, b->errlen, "out of memory");
    return -1;
  }
  int32_t *after = mem + ep, *done = mem + 2 * ep;
  trn_meta_t m = x->meta;
  m.what = TRN_W_A2A;
  int rc = 0;
  for (int64_t d0 = 0; d0 < b->dp && !rc; d0 += ep)
    for (int64_t tp = 0; tp < b->t && !rc; tp++) {
      for (int64_t k = 0; k < ep; k++) {
        mem[k] = trn_gb_gpu(b, tp, d0 + k, x->r);
        after[k] = b->gb[mem[k]].last;
      }
      rc = trn_gb_coll(b, COLL_ALLTOALL, b->tm.a2a_bytes, (int32_t)ep, mem, after, done, TRN_CAT_EP,
                       m);
      for (int64_t k = 0; k < ep && !rc; k++)
        x->wait[mem[k] - x->base] = done[k];
    }
  free(mem);
  return rc;
}

int32_t trn_gen_buckets(trn_gb_t *b, int first, int last, int32_t lc, int32_t *bucket_of,
                        int64_t *dense, int64_t *expert) {
  trn_part_params_t q = trn_part_params(b->s);
  int32_t k = 0;
  int64_t acc = 0;
  dense[0] = expert[0] = 0;
  for (int32_t l = lc; l >= -1; l--) {
    int64_t d = l == lc ? (last ? q.last_extra : -1)
                : l < 0 ? (first ? q.first_extra : -1)
                        : q.layer_dense;
    int64_t e = l >= 0 && l < lc ? q.layer_expert : 0;
    bucket_of[l + 1] = k;
    if (d < 0) continue;
    dense[k] += d;
    expert[k] += e;
    acc += d + e;
    if (acc >= b->bucket && l > -1) {
      k++;
      dense[k] = expert[k] = 0;
      acc = 0;
    }
  }
  if (acc == 0 && k > 0) { /* the last bucket was closed exactly at its end */
    for (int32_t l = -1; l <= lc; l++)
      if (bucket_of[l + 1] == k) bucket_of[l + 1] = k - 1;
    k--;
  }
  return k + 1;
}

/* Records a data-parallel launch of bucket k triggered on each GPU by trig[i]. */
static int launch(pass_t *x, uint8_t what, int32_t bucket, int64_t dense, int64_t expert,
                  const int32_t *trig, int32_t *k_out) {
  trn_gb_t *b = x->b;
  trn_launch_t l = {what, bucket, x->meta.chunk, dense, expert};
  int32_t k = trn_gb_launch(b, x->r, l);
  if (k < 0) return -1;
  for (int32_t i = 0; i < x->n; i++)
    if (trn_gb_trigger(b, x->base + i, k, trig ? trig[i] : b->gb[x->base + i].last)) return -1;
  if (k_out) *k_out = k;
  return 0;
}

/* The pieces of a pass, in order. */
static int32_t pieces(trn_gb_t *b, int fwd, int first, int last, int32_t lc, trn_piece_t *out) {
  const trn_tmpl_t *tm = &b->tm;
  int32_t n = 0;
  if (fwd) {
    if (first) out[n++] = tm->embed_f, out[n - 1].layer = -1;
    for (int32_t l = 0; l < lc; l++)
      for (int32_t i = 0; i < tm->n_fwd; i++)
        out[n++] = tm->fwd[i], out[n - 1].layer = l;
    if (last) out[n++] = tm->head_f, out[n - 1].layer = lc;
  } else {
    if (last) out[n++] = tm->head_b, out[n - 1].layer = lc;
    for (int32_t l = lc - 1; l >= 0; l--)
      for (int32_t i = 0; i < tm->n_bwd; i++)
        out[n++] = tm->bwd[i], out[n - 1].layer = l;
    if (first) out[n++] = tm->embed_b, out[n - 1].layer = -1;
  }
  return n;
}

typedef struct scratch_t {
  trn_piece_t *pc;
  int32_t *bucket_of;
  int64_t *dense, *expert;
} scratch_t;

static int pass(pass_t *x, const trn_step_t *st, scratch_t *sc) {
  trn_gb_t *b = x->b;
  const trn_plan_t *pl = &b->s->plan;
  int fwd = st->kind == TRN_STEP_FWD;
  int64_t vs = st->chunk * b->p + x->r, nvs = b->p * b->v;
  int first = vs == 0, last = vs == nvs - 1;
  int32_t lc = (int32_t)(b->s->model.layers / nvs);
  int32_t n = pieces(b, fwd, first, last, lc, sc->pc);
  int32_t nb = trn_gen_buckets(b, first, last, lc, sc->bucket_of, sc->dense, sc->expert);
  int reduce =
      !fwd && b->dp > 1 && (pl->zero >= 2 || (pl->overlap_grad_reduce && st->mb == b->m - 1));
  int per_bucket = reduce && pl->overlap_grad_reduce, gather = pl->zero == 3;
  x->meta =
      (trn_meta_t){TRN_CAT_COMPUTE, fwd ? TRN_W_FWD : TRN_W_BWD, (int16_t)st->chunk, st->mb, -1};
  x->layer0 = (int32_t)vs * lc;
  x->gath = -1;
  if ((fwd && !first) || (!fwd && !last)) { /* the received tensor is gathered first */
    int32_t i = 0;
    while (sc->pc[i].a2a)
      i++;
    sc->pc[i].tp_ps += b->tm.recv_gather_ps;
  }
  seg_t sg = {0};
  int32_t cur = -1, prefetched = -1; /* bucket of the pieces so far; its next's gather */
  int64_t rd = 0, re = 0;
  for (int32_t i = 0; i < n; i++) {
    const trn_piece_t *p = &sc->pc[i];
    int32_t bk = sc->bucket_of[(p->layer > lc ? lc : p->layer) + 1];
    if (p->a2a) {
      if (flush(x, &sg) || all_to_all(x)) return -1;
      continue;
    }
    if (gather && bk != cur) { /* ZeRO-3: wait for this bucket's parameters, and
                                * start gathering the next bucket's */
      int32_t next = fwd ? bk - 1 : bk + 1, k = prefetched;
      if (flush(x, &sg)) return -1;
      if (cur < 0 && launch(x, TRN_W_GATH, bk, sc->dense[bk], sc->expert[bk], NULL, &k)) return -1;
      prefetched = -1;
      if (next >= 0 && next < nb &&
          launch(x, TRN_W_GATH, next, sc->dense[next], sc->expert[next], NULL, &prefetched))
        return -1;
      x->gath = k;
    }
    cur = bk;
    if (!sg.open) {
      sg.open = 1;
      sg.layer = p->layer;
    }
    sg.compute += p->compute_ps;
    sg.tp += p->tp_ps;
    sg.async += p->async_ps;
    rd += p->dense;
    re += p->expert;
    int32_t j = i + 1;
    while (j < n && sc->pc[j].a2a)
      j++;
    int end_bucket =
        j == n || sc->bucket_of[(sc->pc[j].layer > lc ? lc : sc->pc[j].layer) + 1] != bk;
    if (per_bucket && end_bucket && (rd || re)) {
      if (flush(x, &sg) || launch(x, TRN_W_RED, bk, rd, re, x->C, NULL)) return -1;
      rd = re = 0;
    } else if ((pl->task_grain == TRN_GRAIN_LAYER || per_bucket) && p->end_layer) {
      /* a reducing pass is cut at every layer too: a bucket is ready when its last
       * layer's compute ends, not after the TP steps of the layers before it */
      if (flush(x, &sg)) return -1;
    }
  }
  if (flush(x, &sg)) return -1;
  if (reduce && !per_bucket && (rd || re) && launch(x, TRN_W_RED, 0, rd, re, NULL, NULL)) return -1;
  return 0;
}

int trn_gen_passes(trn_gb_t *b) {
  int32_t per = (int32_t)(b->t * b->dp);
  int32_t lc = (int32_t)(b->s->model.layers / (b->p * b->v));
  int32_t max_pieces = 2 + lc * 12;
  pass_t x = {.b = b, .n = per};
  scratch_t sc;
  int rc = -1;
  x.C = malloc(3 * (size_t)per * sizeof *x.C);
  sc.pc = malloc((size_t)max_pieces * sizeof *sc.pc);
  sc.bucket_of = malloc(((size_t)lc + 2) * sizeof *sc.bucket_of);
  sc.dense = malloc(2 * ((size_t)lc + 3) * sizeof *sc.dense);
  if (!x.C || !sc.pc || !sc.bucket_of || !sc.dense) {
    snprintf(b->err, b->errlen, "out of memory");
    goto done;
  }
  sc.expert = sc.dense + lc + 3;
  x.A = x.C + per;
  x.wait = x.A + per;
  for (int64_t r = 0; r < b->p; r++) {
    x.r = r;
    x.base = (int32_t)r * per;
    for (int32_t i = 0; i < per; i++)
      x.wait[i] = -1;
    for (int32_t k = 0; k < b->n_steps[r]; k++) {
      const trn_step_t *st = &b->prog[r][k];
      if (st->kind != TRN_STEP_CALL) {
        if (pass(&x, st, &sc)) goto done;
        continue;
      }
      trn_meta_t m = {TRN_CAT_SYNC, st->op[0].grad ? TRN_W_GRAD : TRN_W_ACT, -1, st->op[0].mb, k};
      for (int32_t i = 0; i < per; i++) {
        trn_gpu_b_t *g = &b->gb[x.base + i];
        int32_t j = trn_gb_task(b, TG_JOIN, x.base + i, 0, 1, m);
        if (j < 0) goto done;
        g->call_mark[k] = g->last;
        g->call_join[k] = j;
        g->last = j;
      }
    }
    /* Gradients reduced after the whole program (no overlap): one collective per
     * model chunk, all of its parameters. */
    const trn_plan_t *pl = &b->s->plan;
    if (!pl->overlap_grad_reduce && pl->zero <= 1)
      for (int64_t c = 0; c < b->v; c++) {
        int64_t vs = c * b->p + r;
        int32_t nb = trn_gen_buckets(b, vs == 0, vs == b->p * b->v - 1, lc, sc.bucket_of, sc.dense,
                                     sc.expert);
        int64_t d = 0, e = 0;
        for (int32_t k = 0; k < nb; k++)
          d += sc.dense[k], e += sc.expert[k];
        x.meta.chunk = (int16_t)c;
        if (launch(&x, TRN_W_RED, 0, d, e, NULL, NULL)) goto done;
      }
  }
  rc = 0;
done:
  free(x.C);
  free(sc.pc);
  free(sc.bucket_of);
  free(sc.dense);
  return rc;
}

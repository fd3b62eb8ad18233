/* trn: Megatron-LM's pipeline schedules as programs of steps per pipeline rank:
 * 1F1B (forward_backward_pipelining_without_interleaving) and the interleaved
 * schedule (..._with_interleaving), with their blocking point-to-point calls in
 * the same order and grouping (megatron/schedules.py). */
#include <stdlib.h>
#include <string.h>

#include "train/trn_gen.h"

typedef struct prog_t {
  trn_step_t *s;
  int32_t n, cap;
  int64_t p, v, r;
  int32_t *fcount, *bcount; /* (v) passes done per chunk: the next pass's micro-batch */
  int32_t *in, *gin;        /* (v) receives posted per chunk: the next one's micro-batch */
  int failed;
} prog_t;

static trn_step_t *push(prog_t *g, uint8_t kind) {
  if (g->n == g->cap) {
    int32_t cap = g->cap ? 2 * g->cap : 64;
    trn_step_t *s = realloc(g->s, (size_t)cap * sizeof *s);
    if (!s) {
      g->failed = 1;
      return NULL;
    }
    g->s = s;
    g->cap = cap;
  }
  trn_step_t *s = &g->s[g->n++];
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->chunk = s->mb = -1;
  return s;
}

static void pass(prog_t *g, int fwd, int32_t chunk) {
  trn_step_t *s = push(g, fwd ? TRN_STEP_FWD : TRN_STEP_BWD);
  if (!s) return;
  s->chunk = chunk;
  s->mb = fwd ? g->fcount[chunk]++ : g->bcount[chunk]++;
}

/* A call under construction: ops are added, an empty call is dropped. */
typedef struct call_t {
  uint8_t n;
  trn_p2p_t op[4];
} call_t;

static void op(call_t *c, int send, int grad, int64_t vs, int32_t mb) {
  c->op[c->n++] = (trn_p2p_t){(uint8_t)send, (uint8_t)grad, (int32_t)vs, mb};
}

static void emit(prog_t *g, const call_t *c) {
  if (!c->n) return;
  trn_step_t *s = push(g, TRN_STEP_CALL);
  if (!s) return;
  s->n_ops = c->n;
  memcpy(s->op, c->op, sizeof c->op);
}

/* The last micro-batch a pass of `chunk` handled (the one just emitted). */
static int32_t last_mb(const prog_t *g, int fwd, int32_t chunk) {
  return (fwd ? g->fcount[chunk] : g->bcount[chunk]) - 1;
}

/* Receives of activations for `chunk` and of gradients for `chunk` take the next
 * micro-batch of its queue (input_tensors / output_tensor_grads are FIFO). */
static void recv_act(prog_t *g, call_t *c, int32_t chunk) {
  op(c, 0, 0, chunk * g->p + g->r, g->in[chunk]++);
}
static void recv_grad(prog_t *g, call_t *c, int32_t chunk) {
  op(c, 0, 1, chunk * g->p + g->r, g->gin[chunk]++);
}
/* Sends of the output of the pass just done of `chunk`. */
static void send_act(prog_t *g, call_t *c, int32_t chunk) {
  op(c, 1, 0, chunk * g->p + g->r + 1, last_mb(g, 1, chunk));
}
static void send_grad(prog_t *g, call_t *c, int32_t chunk) {
  op(c, 1, 1, chunk * g->p + g->r - 1, last_mb(g, 0, chunk));
}

static void one_f_one_b(prog_t *g, int64_t m) {
  int64_t p = g->p, r = g->r;
  int64_t warm = p - r - 1 < m ? p - r - 1 : m, rest = m - warm;
  int first = r == 0, last = r == p - 1;
  for (int64_t i = 0; i < warm; i++) {
    call_t a = {0}, b = {0};
    if (!first) recv_act(g, &a, 0);
    emit(g, &a);
    pass(g, 1, 0);
    if (!last) send_act(g, &b, 0);
    emit(g, &b);
  }
  if (rest > 0 && !first) {
    call_t a = {0};
    recv_act(g, &a, 0);
    emit(g, &a);
  }
  for (int64_t i = 0; i < rest; i++) {
    call_t a = {0}, b = {0};
    pass(g, 1, 0);
    if (!last) {
      send_act(g, &a, 0);
      recv_grad(g, &a, 0);
    }
    emit(g, &a);
    pass(g, 0, 0);
    if (!first) {
      send_grad(g, &b, 0);
      if (i < rest - 1) recv_act(g, &b, 0);
    }
    emit(g, &b);
  }
  for (int64_t i = 0; i < warm; i++) {
    call_t a = {0}, b = {0};
    if (!last) recv_grad(g, &a, 0);
    emit(g, &a);
    pass(g, 0, 0);
    if (!first) send_grad(g, &b, 0);
    emit(g, &b);
  }
}

/* get_model_chunk_id of Megatron's interleaved schedule. */
static int32_t chunk_of(const prog_t *g, int64_t k, int fwd) {
  int64_t group = g->p * g->v, in = ((k % group) + group) % group;
  int32_t c = (int32_t)(in / g->p);
  return fwd ? c : (int32_t)g->v - 1 - c;
}

static void interleaved(prog_t *g, int64_t m) {
  int64_t p = g->p, v = g->v, r = g->r, total = m * v, warm;
  int first = r == 0, last = r == p - 1, all_warm = 0;
  if (m == p) {
    warm = total;
    all_warm = 1;
  } else {
    warm = (p - r - 1) * 2 + (v - 1) * p;
    if (warm > total) warm = total;
  }
  int64_t rest = total - warm;
  if (!first) {
    call_t a = {0};
    recv_act(g, &a, 0);
    emit(g, &a);
  }
  for (int64_t k = 0; k < warm; k++) {
    call_t a = {0};
    int32_t c = chunk_of(g, k, 1), next = chunk_of(g, k + 1, 1);
    pass(g, 1, c);
    int recv_prev = !(first && next == 0) && k != total - 1;
    if (!(last && c == v - 1)) send_act(g, &a, c);
    if (recv_prev) recv_act(g, &a, next);
    if (k == warm - 1 && !all_warm && !last) recv_grad(g, &a, (int32_t)v - 1);
    emit(g, &a);
  }
  for (int64_t k = 0; k < rest; k++) {
    call_t a = {0};
    int64_t fk = k + warm, bk = k;
    int32_t cf = chunk_of(g, fk, 1), cb = chunk_of(g, bk, 0), nf, nb;
    pass(g, 1, cf);
    pass(g, 0, cb);
    int recv_prev = 1, recv_next = 1;
    if (first) {
      nf = chunk_of(g, fk - (p - 1), 1);
      if (nf == v - 1) recv_prev = 0;
      nf++;
    } else {
      nf = chunk_of(g, fk + 1, 1);
    }
    if (last) {
      nb = chunk_of(g, bk - (p - 1), 0);
      if (nb == 0) recv_next = 0;
      nb--;
    } else {
      nb = chunk_of(g, bk + 1, 0);
    }
    if (k == rest - 1) recv_prev = 0;
    if (!(last && cf == v - 1)) send_act(g, &a, cf);
    if (!(first && cb == 0)) send_grad(g, &a, cb);
    if (recv_prev) recv_act(g, &a, nf);
    if (recv_next) recv_grad(g, &a, nb);
    emit(g, &a);
  }
  if (all_warm && !last) {
    call_t a = {0};
    recv_grad(g, &a, (int32_t)v - 1);
    emit(g, &a);
  }
  for (int64_t k = rest; k < total; k++) {
    call_t a = {0};
    int32_t c = chunk_of(g, k, 0), next = chunk_of(g, k + 1, 0);
    pass(g, 0, c);
    int recv_next = !(last && next == v - 1) && k != total - 1;
    if (!(first && c == 0)) send_grad(g, &a, c);
    if (recv_next) recv_grad(g, &a, next);
    emit(g, &a);
  }
}

int32_t trn_schedule(int64_t pp, int64_t v, int64_t m, int64_t rank, trn_step_t **steps) {
  prog_t g = {.p = pp, .v = v, .r = rank};
  int32_t *counts = calloc(4 * (size_t)v, sizeof *counts);
  *steps = NULL;
  if (!counts) return -1;
  g.fcount = counts;
  g.bcount = counts + v;
  g.in = counts + 2 * v;
  g.gin = counts + 3 * v;
  if (v > 1)
    interleaved(&g, m);
  else
    one_f_one_b(&g, m);
  free(counts);
  if (g.failed) {
    free(g.s);
    return -1;
  }
  *steps = g.s;
  return g.n;
}

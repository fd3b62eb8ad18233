/* ref: the flow level of docs/model.md ("The flow-level model") written apart
 * from engine/flow, as plainly as possible: at each step every candidate time
 * (starts, ends, drains, receptions) is computed again from scratch, every
 * event of the earliest instant is applied (in an order of its own: the model
 * says the order within an instant does not matter), and every rate is filled
 * again over all flows by scanning the links. Quadratic, for small graphs. */
#include <stdlib.h>
#include <string.h>

#include "ref/ref_int.h"

typedef unsigned __int128 u128;

enum { FL_IDLE = 0, FL_SENDING = 1, FL_DRAINED = 2, FL_RECEIVED = 3 };

typedef struct fref_t {
  const topo_t *t;
  const tg_t *g;
  const eng_params_t *p;
  int32_t n, n_links; /* tasks, link directions (ports) */
  int32_t *prev;      /* (n) previous member of its stream, -1 */
  int64_t *start, *end, *recv;
  uint8_t *started;
  /* flows (by task) */
  int32_t *nhop, **hops; /* its path: ports */
  int64_t *lat, *ack, *bits, *rate, *drain_at;
  u128 *rem;
  int64_t *tupd;
  uint8_t *state;
  /* compute tasks slowed by their GPU's communication */
  int64_t *work; /* units left (dur x 2^16 at full speed) */
  int64_t *wrate, *wupd;
  uint8_t *running; /* a compute task with its end pending */
  int32_t n_gpus;
  int32_t *comm; /* (n_gpus) communication tasks running */
} fref_t;

static int64_t tadd(int64_t a, int64_t b) {
  const int64_t top = ((int64_t)1 << 60) - 2;
  return b >= top - a ? top : a + b;
}

/* The ECMP path from host `from` to `to` of a packet hashed as (s, d, sp, dp):
 * its ports into out (NULL: counted only); -1 if unroutable. */
static int path(ref_routing_t *r, const eng_params_t *p, int32_t from, int32_t to, int32_t s,
                int32_t d, uint32_t sp, uint32_t dp, int32_t *out) {
  uint16_t set[1024];
  int k = 0;
  for (int32_t x = from; x != to; k++) {
    int n = ref_next_hops(r, x, to, set, 1024);
    if (n <= 0 || k > r->t->n_nodes) return -1;
    int32_t q =
        r->port0[x] + set[ref_ecmp_index(p, ref_hash_ecmp(p, x, s, d, sp, dp), (uint32_t)n)];
    if (out) out[k] = q;
    x = r->peer[q];
  }
  return k;
}

/* When event (task i, on) is known at host `at`; -1 if it has not happened. */
static int64_t known(const fref_t *s, int32_t i, int32_t on, int32_t at) {
  const tg_task_t *k = &s->g->t[i];
  int64_t when = on == TG_ON_RECV ? s->recv[i] : s->end[i];
  int32_t where = on == TG_ON_RECV ? k->dst : k->host;
  if (when < 0) return -1;
  return where == at ? when : tadd(when, s->p->sync);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* When task i can start given the events so far, or -1. */
static int64_t can_start(const fref_t *s, int32_t i, int64_t *scratch) {
  const tg_t *g = s->g;
  const tg_task_t *k = &g->t[i];
  int64_t kmax = -1;
  int32_t m = 0, all = 1;
  for (int32_t j = 0; j < g->n_edges; j++) {
    if (g->e[j].task != i) continue;
    int64_t w = known(s, g->e[j].pred, g->e[j].on, k->host);
    if (w < 0) {
      all = 0;
      continue;
    }
    scratch[m++] = w;
    if (w > kmax) kmax = w;
  }
  int64_t K;
  if (k->need == 0) {
    if (!all) return -1;
    K = kmax;
  } else {
    if (m < k->need) return -1;
    qsort(scratch, (size_t)m, sizeof *scratch, cmp_i64);
    K = scratch[k->need - 1];
  }
  if (s->prev[i] >= 0) { /* the stream's previous member has ended */
    int64_t w = known(s, s->prev[i], TG_ON_END, k->host);
    if (w < 0) return -1;
    if (w > K) K = w;
  }
  int64_t at = K < 0 ? k->start : tadd(K, k->delay);
  return at < k->start ? k->start : at;
}

static int slows(const fref_t *s, int32_t i) {
  return s->g->t[i].gpu >= 0 && s->p->overlap_q16 != 65536;
}

/* The end of running compute task i at its current rate. */
static int64_t work_end(const fref_t *s, int32_t i) {
  return tadd(s->wupd[i], (s->work[i] + s->wrate[i] - 1) / s->wrate[i]);
}

/* GPU gpu's communication count changes by d at t: its compute re-rates when
 * the count becomes 1 or 0. */
static void comm(fref_t *s, int32_t gpu, int d, int64_t t) {
  s->comm[gpu] += d;
  if (s->comm[gpu] != (d > 0 ? 1 : 0)) return;
  int64_t rate = s->comm[gpu] > 0 ? 65536 : s->p->overlap_q16;
  for (int32_t i = 0; i < s->n; i++) {
    if (!s->running[i] || s->g->t[i].gpu != gpu) continue;
    int64_t done = (t - s->wupd[i]) * s->wrate[i];
    s->work[i] = done >= s->work[i] ? 0 : s->work[i] - done;
    s->wupd[i] = t;
    s->wrate[i] = rate;
  }
}

/* Max-min fair rates of the sending flows, from scratch: the link of the least
 * exact share first (ties: the lower port), its unfrozen flows at the share
 * rounded down. */
static void fill(fref_t *s, int64_t t) {
  int64_t *rc = calloc((size_t)s->n_links + 1, sizeof *rc);
  int32_t *nu = calloc((size_t)s->n_links + 1, sizeof *nu);
  uint8_t *frozen = calloc((size_t)s->n + 1, 1);
  REF_CHECK(rc && nu && frozen);
  for (int32_t q = 0; q < s->n_links; q++)
    rc[q] = s->t->links[s->t->ports[q].link].rate_bps;
  for (int32_t i = 0; i < s->n; i++) {
    if (s->state[i] != FL_SENDING) continue;
    u128 sent = (u128)(uint64_t)s->rate[i] * (uint64_t)(t - s->tupd[i]);
    s->rem[i] = sent >= s->rem[i] ? 0 : s->rem[i] - sent;
    s->tupd[i] = t;
    for (int h = 0; h < s->nhop[i]; h++)
      nu[s->hops[i][h]]++;
  }
  for (;;) {
    int32_t best = -1;
    for (int32_t q = 0; q < s->n_links; q++) {
      if (nu[q] == 0) continue;
      if (best < 0 ||
          (u128)(uint64_t)rc[q] * (uint32_t)nu[best] < (u128)(uint64_t)rc[best] * (uint32_t)nu[q])
        best = q;
    }
    if (best < 0) break;
    int64_t share = rc[best] / nu[best];
    for (int32_t i = 0; i < s->n; i++) {
      if (s->state[i] != FL_SENDING || frozen[i]) continue;
      int on = 0;
      for (int h = 0; h < s->nhop[i]; h++)
        on |= s->hops[i][h] == best;
      if (!on) continue;
      frozen[i] = 1;
      s->rate[i] = share;
      for (int h = 0; h < s->nhop[i]; h++) {
        rc[s->hops[i][h]] -= share;
        nu[s->hops[i][h]]--;
      }
    }
  }
  for (int32_t i = 0; i < s->n; i++) {
    if (s->state[i] != FL_SENDING) continue;
    s->drain_at[i] = -1;
    if (s->rate[i] <= 0) continue;
    u128 left = (s->rem[i] + (u128)(uint64_t)s->rate[i] - 1) / (u128)(uint64_t)s->rate[i];
    s->drain_at[i] = tadd(t, left > (u128)INT64_MAX ? INT64_MAX : (int64_t)left);
  }
  free(rc);
  free(nu);
  free(frozen);
}

/* Applies every event due at t; returns whether the set of sending flows
 * changed. Repeats until nothing more happens at t. */
static int apply(fref_t *s, int64_t t, int64_t *scratch, int *changed) {
  const tg_t *g = s->g;
  int any = 0;
  for (int32_t i = 0; i < s->n; i++) { /* starts first: order is free within t */
    const tg_task_t *k = &g->t[i];
    if (s->started[i] || can_start(s, i, scratch) != t) continue;
    any = 1;
    s->started[i] = 1;
    s->start[i] = t;
    if (k->kind == TG_FLOW) {
      s->state[i] = FL_SENDING;
      s->rem[i] = (u128)(uint64_t)s->bits[i] * 1000000000000ULL;
      s->rate[i] = 0;
      s->tupd[i] = t;
      s->drain_at[i] = -1; /* until it has a rate */
      *changed = 1;
      if (slows(s, i)) comm(s, k->gpu, +1, t);
    } else if (k->kind == TG_JOIN || k->dur == 0) {
      s->end[i] = t;
    } else if (k->kind == TG_COMPUTE && slows(s, i)) {
      s->running[i] = 1;
      s->work[i] = k->dur * s->p->overlap_q16;
      s->wupd[i] = t;
      s->wrate[i] = s->comm[k->gpu] > 0 ? 65536 : s->p->overlap_q16;
    } else {
      if (k->kind == TG_COLL && slows(s, i)) comm(s, k->gpu, +1, t);
    }
  }
  for (int32_t i = 0; i < s->n; i++) {
    const tg_task_t *k = &g->t[i];
    if (!s->started[i] || s->end[i] >= 0) continue;
    if (k->kind == TG_FLOW) {
      if (s->state[i] == FL_SENDING && s->drain_at[i] == t) {
        s->state[i] = FL_DRAINED;
        s->drain_at[i] = tadd(t, s->lat[i]); /* now: its reception */
        *changed = any = 1;
      } else if (s->state[i] == FL_DRAINED && s->drain_at[i] == t) {
        s->state[i] = FL_RECEIVED;
        s->recv[i] = t;
        any = 1;
      } else if (s->state[i] == FL_RECEIVED && tadd(s->recv[i], s->ack[i]) == t) {
        s->end[i] = t;
        if (slows(s, i)) comm(s, k->gpu, -1, t);
        any = 1;
      }
    } else if (k->kind == TG_COMPUTE && s->running[i]) {
      if (work_end(s, i) == t) {
        s->running[i] = 0;
        s->end[i] = t;
        any = 1;
      }
    } else if (tadd(s->start[i], k->dur) == t) {
      s->end[i] = t;
      if (k->kind == TG_COLL && slows(s, i)) comm(s, k->gpu, -1, t);
      any = 1;
    }
  }
  return any;
}

/* The earliest pending instant, or -1. */
static int64_t next_instant(fref_t *s, int64_t *scratch) {
  int64_t best = -1;
  for (int32_t i = 0; i < s->n; i++) {
    const tg_task_t *k = &s->g->t[i];
    int64_t w = -1;
    if (!s->started[i])
      w = can_start(s, i, scratch);
    else if (s->end[i] >= 0)
      continue;
    else if (k->kind == TG_FLOW)
      w = s->state[i] == FL_RECEIVED ? tadd(s->recv[i], s->ack[i]) : s->drain_at[i];
    else if (k->kind == TG_COMPUTE && s->running[i])
      w = work_end(s, i);
    else
      w = tadd(s->start[i], k->dur);
    if (w >= 0 && (best < 0 || w < best)) best = w;
  }
  return best;
}

int ref_flow_run(const topo_t *t, const tg_t *g, const eng_params_t *p, ref_result_t *out) {
  fref_t s = {.t = t, .g = g, .p = p, .n = g->n, .n_links = 2 * t->n_links};
  ref_routing_t r;
  size_t n = (size_t)g->n + 1;
  REF_CHECK(ref_routing_init(&r, t) == 0);
  memset(out, 0, sizeof *out);
  s.prev = malloc(n * sizeof *s.prev);
  s.start = malloc(n * sizeof *s.start);
  s.end = malloc(n * sizeof *s.end);
  s.recv = malloc(n * sizeof *s.recv);
  s.started = calloc(n, 1);
  s.nhop = calloc(n, sizeof *s.nhop);
  s.hops = calloc(n, sizeof *s.hops);
  s.lat = calloc(n, sizeof *s.lat);
  s.ack = calloc(n, sizeof *s.ack);
  s.bits = calloc(n, sizeof *s.bits);
  s.rate = calloc(n, sizeof *s.rate);
  s.drain_at = calloc(n, sizeof *s.drain_at);
  s.rem = calloc(n, sizeof *s.rem);
  s.tupd = calloc(n, sizeof *s.tupd);
  s.state = calloc(n, 1);
  s.work = calloc(n, sizeof *s.work);
  s.wrate = calloc(n, sizeof *s.wrate);
  s.wupd = calloc(n, sizeof *s.wupd);
  s.running = calloc(n, 1);
  int64_t *scratch = malloc(((size_t)g->n_edges + 1) * sizeof *scratch);
  REF_CHECK(s.prev && s.start && s.end && s.recv && s.started && s.nhop && s.hops && s.lat &&
            s.ack && s.bits && s.rate && s.drain_at && s.rem && s.tupd && s.state && s.work &&
            s.wrate && s.wupd && s.running && scratch);
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *k = &g->t[i];
    s.start[i] = s.end[i] = s.recv[i] = s.prev[i] = -1;
    for (int32_t j = i - 1; k->stream >= 0 && j >= 0; j--)
      if (g->t[j].stream == k->stream) {
        s.prev[i] = j;
        break;
      }
    if (k->gpu + 1 > s.n_gpus) s.n_gpus = k->gpu + 1;
    if (k->kind != TG_FLOW) continue;
    int32_t hop[TOPO_MAX_HOPS + 1];
    int J = path(&r, p, k->host, k->dst, k->host, k->dst, k->sport, k->dport, hop);
    REF_CHECK(J > 0 && J <= TOPO_MAX_HOPS);
    s.nhop[i] = J;
    s.hops[i] = malloc((size_t)J * sizeof **s.hops);
    REF_CHECK(s.hops[i]);
    /* latency: every hop's delay and one packet's serialisation, but the
     * slowest hop's, which the transfer's time holds */
    int64_t first =
        (int64_t)(k->bytes < (uint64_t)p->mtu ? k->bytes : (uint64_t)p->mtu) + p->header;
    int64_t slowest = 0;
    for (int h = 0; h < J; h++) {
      const topo_link_t *l = &t->links[r.link[hop[h]]];
      int64_t ser = ref_ser_at(p, first, l->rate_bps);
      s.hops[i][h] = hop[h];
      s.lat[i] += l->delay_ps + ser;
      if (ser > slowest) slowest = ser;
    }
    s.lat[i] -= slowest;
    int A = path(&r, p, k->dst, k->host, k->dst, k->host, k->dport, k->sport, hop);
    REF_CHECK(A > 0);
    for (int h = 0; h < A; h++) {
      const topo_link_t *l = &t->links[r.link[hop[h]]];
      s.ack[i] += ref_ser_at(p, p->ctrl_bytes, l->rate_bps) + l->delay_ps;
    }
    uint64_t pkts = (k->bytes + (uint64_t)p->mtu - 1) / (uint64_t)p->mtu;
    s.bits[i] = (int64_t)(k->bytes + pkts * (uint64_t)p->header) * 8;
  }
  s.comm = calloc((size_t)s.n_gpus + 1, sizeof *s.comm);
  REF_CHECK(s.comm);
  out->status = REF_OK;
  for (;;) {
    int64_t now = next_instant(&s, scratch);
    if (now < 0) break;
    if (now > p->max_time) {
      out->status = REF_TIMED_OUT;
      break;
    }
    int changed = 0;
    while (apply(&s, now, scratch, &changed)) {
    }
    if (changed) fill(&s, now);
  }
  out->n_tasks = g->n;
  out->start_ps = s.start;
  out->end_ps = s.end;
  out->recv_ps = s.recv;
  for (int32_t i = 0; i < g->n; i++) {
    if (s.end[i] > out->last_end_ps) out->last_end_ps = s.end[i];
    if (s.end[i] < 0 && out->status == REF_OK) out->status = REF_FAILED;
    if (!s.started[i]) s.start[i] = -1;
    free(s.hops[i]);
  }
  free(s.prev);
  free(s.started);
  free(s.nhop);
  free(s.hops);
  free(s.lat);
  free(s.ack);
  free(s.bits);
  free(s.rate);
  free(s.drain_at);
  free(s.rem);
  free(s.tupd);
  free(s.state);
  free(s.work);
  free(s.wrate);
  free(s.wupd);
  free(s.running);
  free(s.comm);
  free(scratch);
  ref_routing_free(&r);
  return 0;
}

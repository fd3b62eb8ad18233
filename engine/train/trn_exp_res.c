/* trn: a training experiment's results from its task times: the iteration time, the
 * GPU whose work ends last and how its time splits into compute, exposed TP, EP, PP
 * and DP communication and bubble (docs/training.md, Results), throughput, MFU,
 * memory, and the network's counters. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_units.h"
#include "train/trn_exp_int.h"

static const char *const names[TRN_RESULT_COUNT] = {
#define TRN_RESULT_NAME(name, unit, what) #name,
    TRN_RESULTS(TRN_RESULT_NAME)
#undef TRN_RESULT_NAME
};
static const char *const units[TRN_RESULT_COUNT] = {
#define TRN_RESULT_UNIT(name, unit, what) unit,
    TRN_RESULTS(TRN_RESULT_UNIT)
#undef TRN_RESULT_UNIT
};

const char *trn_result_name(int i) {
  return i >= 0 && i < TRN_RESULT_COUNT ? names[i] : "?";
}
const char *trn_result_unit(int i) {
  return i >= 0 && i < TRN_RESULT_COUNT ? units[i] : "?";
}

int32_t trn_exp_last_gpu(const trn_exp_t *x, const eng_batch_t *b, int32_t e) {
  int32_t best = -1;
  int64_t when = -1;
  for (int32_t i = 0; i < x->graph.g.n; i++) {
    eng_task_times_t tt;
    int32_t g = x->graph.g.t[i].gpu;
    if (g < 0 || eng_task_times(b, e, i, &tt)) continue;
    if (tt.end > when || (tt.end == when && g < best)) {
      when = tt.end;
      best = g;
    }
  }
  return best;
}

int trn_exp_span_times(const trn_exp_t *x, const eng_batch_t *b, int32_t e, const trn_span_t *s,
                       int64_t *start, int64_t *end) {
  eng_task_times_t tt;
  if (eng_task_times(b, e, s->done, &tt) || tt.start < 0) return -1;
  if (s->end == s->first + 1) { /* a task of its own (a TP step, a pipeline flow) */
    *start = tt.start - s->lead;
    *end = s->recv_side ? tt.recv : tt.end;
    return *end >= 0 ? 0 : -1;
  }
  /* A collective member: from the first of its tasks that starts (joins only if it
   * owns nothing else) to its done join's end. */
  int64_t first = -1, first_join = -1;
  for (int32_t i = s->first; i < s->end; i++) {
    eng_task_times_t u;
    const tg_task_t *t = &x->graph.g.t[i];
    if (t->gpu != s->gpu || eng_task_times(b, e, i, &u) || u.start < 0) continue;
    int64_t *m = t->kind == TG_JOIN ? &first_join : &first;
    if (*m < 0 || u.start < *m) *m = u.start;
  }
  *start = (first >= 0 ? first : first_join >= 0 ? first_join : tt.start) - s->lead;
  *end = tt.end;
  return tt.end >= 0 ? 0 : -1;
}

typedef struct ev_t {
  int64_t t;
  int32_t prio, delta;
} ev_t;

static int by_time(const void *a, const void *b) {
  const ev_t *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t;
}

/* Priority of a category when intervals overlap: compute, TP, EP, PP, DP. */
static int prio_of(int cat) {
  switch (cat) {
  case TRN_CAT_COMPUTE:
    return 0;
  case TRN_CAT_TP:
    return 1;
  case TRN_CAT_EP:
    return 2;
  case TRN_CAT_PP:
    return 3;
  default:
    return 4;
  }
}

/* Appends the interval [s, f] of priority p as its two events, growing the
 * array; -1 if out of memory. */
static int ev_pair(ev_t **ev, int32_t *n, int32_t *cap, int64_t s, int64_t f, int p) {
  if (*n + 2 > *cap) {
    ev_t *m = realloc(*ev, (size_t)*cap * 2 * sizeof *m);
    if (!m) return -1;
    *ev = m;
    *cap *= 2;
  }
  (*ev)[(*n)++] = (ev_t){s, p, 1};
  (*ev)[(*n)++] = (ev_t){f, p, -1};
  return 0;
}

/* Splits [0, end] of GPU g: seconds per priority (0..4) and idle (5). */
static int exposure(const trn_exp_t *x, const eng_batch_t *b, int32_t e, int32_t g, int64_t end,
                    double out[6]) {
  const trn_graph_t *o = &x->graph;
  int32_t n_sp = o->span_off[g + 1] - o->span_off[g], n = 0;
  int32_t cap = 2 * n_sp + 16;
  ev_t *ev = malloc((size_t)cap * sizeof *ev);
  if (!ev) return -1;
  for (int32_t i = 0; i < o->g.n; i++) { /* compute tasks */
    eng_task_times_t tt;
    if (o->g.t[i].gpu != g || o->meta[i].cat != TRN_CAT_COMPUTE) continue;
    if (eng_task_times(b, e, i, &tt) || tt.start < 0 || tt.end <= tt.start) continue;
    if (ev_pair(&ev, &n, &cap, tt.start, tt.end, 0)) goto oom;
  }
  for (int32_t k = o->span_off[g]; k < o->span_off[g + 1]; k++) {
    int64_t s, f;
    if (trn_exp_span_times(x, b, e, &o->spans[k], &s, &f) || f <= s) continue;
    if (ev_pair(&ev, &n, &cap, s, f, prio_of(o->spans[k].cat))) goto oom;
  }
  qsort(ev, (size_t)n, sizeof *ev, by_time);
  int32_t count[5] = {0};
  int64_t acc[6] = {0}, now = 0;
  for (int32_t i = 0; i <= n; i++) {
    int64_t t = i < n ? ev[i].t : end;
    if (t > end) t = end;
    if (t > now) {
      int p = 0;
      while (p < 5 && count[p] == 0)
        p++;
      acc[p] += t - now;
      now = t;
    }
    if (i < n) count[ev[i].prio] += ev[i].delta;
  }
  for (int i = 0; i < 6; i++)
    out[i] = (double)acc[i] * BASE_S_PER_PS;
  free(ev);
  return 0;
oom:
  free(ev);
  return -1;
}

/* SimAI's pipeline bubble (trn_graph_t.prebubble): (pp - 1) / (ga vpp) of GPU 0's pass
 * outside the embedding, seconds; 0 without one. */
static double simai_bubble(const trn_exp_t *x, const eng_batch_t *b, int32_t e) {
  const trn_graph_t *o = &x->graph;
  if (!o->bubble_den) return 0;
  int64_t pre = 0;
  for (int32_t i = 0; i < o->n_prebubble; i++) {
    eng_task_times_t from, to;
    eng_task_times(b, e, o->prebubble[2 * i], &from);
    eng_task_times(b, e, o->prebubble[2 * i + 1], &to);
    if (o->prebubble[2 * i] == o->prebubble[2 * i + 1])
      pre += from.end - from.start;
    else if (from.end >= 0 && to.end >= from.end)
      pre += to.end - from.end;
  }
  return (double)pre * BASE_S_PER_PS * (double)o->bubble_num / (double)o->bubble_den;
}

void trn_exp_results(const trn_exp_t *x, const eng_batch_t *b, int32_t e, trn_result_t *r) {
  memset(r, 0, sizeof *r);
  r->last_gpu = -1;
  r->message = x->message;
  double *v = r->v;
  for (int i = 0; i < TRN_RESULT_COUNT; i++) /* what is not known is missing, not 0 */
    v[i] = NAN;
  if (!x->imported && x->status != BASE_INVALID) {
    const trn_memory_t *m = &x->memory;
    v[TRN_R_peak_memory_bytes] = m->total;
    v[TRN_R_weights_bytes] = m->weights;
    v[TRN_R_grads_bytes] = m->grads;
    v[TRN_R_optimizer_bytes] = m->optimizer;
    v[TRN_R_activations_bytes] = m->activations;
    v[TRN_R_act_extra_bytes] = m->act_extra;
    v[TRN_R_reserve_bytes] = m->reserve;
    v[TRN_R_gpus] = (double)x->setup.cluster.gpus;
  }
  if (x->status == BASE_INVALID) {
    r->status = BASE_INVALID;
    return;
  }
  if (x->status == BASE_OOM) {
    r->status = BASE_OOM;
    return;
  }
  v[TRN_R_gpus] = x->gpus;
  v[TRN_R_tasks] = x->graph.g.n;
  v[TRN_R_flows] = x->graph.n_flows;
  v[TRN_R_flow_bytes] = (double)x->graph.flow_bytes;
  if (!b) {
    r->status = BASE_FAILED;
    r->message = "not run";
    return;
  }
  eng_result_t er;
  eng_exp_result(b, e, &er);
  v[TRN_R_packet_hops] = (double)er.packet_hops;
  v[TRN_R_drops] = (double)er.drops;
  v[TRN_R_pfc_pauses] = (double)er.pfc_pauses;
  v[TRN_R_ecn_marks] = (double)er.ecn_marks;
  v[TRN_R_cnps] = (double)er.cnps;
  v[TRN_R_retransmits] = (double)er.retransmits;
  v[TRN_R_timeouts] = (double)er.timeouts;
  v[TRN_R_paused_s] = (double)er.paused_ps * BASE_S_PER_PS;
  if (er.status != ENG_OK) {
    r->status = er.status == ENG_INVALID ? BASE_INVALID : BASE_FAILED;
    r->message = er.status == ENG_INVALID ? er.message
                 : er.status == ENG_TIMED_OUT
                     ? "timed out: the iteration did not end within network.max_time_s"
                     : eng_fail_text(er.fail);
    return;
  }
  double T = (double)er.end_ps * BASE_S_PER_PS, split[6];
  r->last_gpu = trn_exp_last_gpu(x, b, e);
  if (r->last_gpu >= 0 && exposure(x, b, e, r->last_gpu, er.end_ps, split) == 0) {
    v[TRN_R_compute_s] = split[0];
    v[TRN_R_exposed_tp_s] = split[1];
    v[TRN_R_exposed_ep_s] = split[2];
    v[TRN_R_exposed_pp_s] = split[3];
    v[TRN_R_exposed_dp_s] = split[4];
    v[TRN_R_bubble_s] = split[5];
  }
  double bubble = simai_bubble(x, b, e);
  T += bubble;
  v[TRN_R_bubble_s] += bubble;
  v[TRN_R_iteration_time_s] = T;
  if (!x->imported && T > 0) {
    const trn_setup_t *s = &x->setup;
    v[TRN_R_tokens_per_s] = (double)(s->plan.global_batch * s->model.seq_len) / T;
    v[TRN_R_mfu] =
        x->costs.model_flops / (T * s->cluster.gpu.peak_tflops * 1e12 * (double)s->cluster.gpus);
  }
  r->status = BASE_OK;
}

/* ref: task graphs (docs/model.md "Tasks and dependencies"): known times,
 * k-of-n joins, streams, and the TASK events that start and end tasks. */
#include <string.h>

#include "ref/ref_int.h"

/* Successor lists, owners' task numbers, stream neighbours; 0 or -1. */
static int build(ref_sim_t *s) {
  const tg_t *g = s->g;
  int32_t n = g->n, n_nodes = s->t->n_nodes, max_stream = -1;
  for (int32_t i = 0; i < n; i++)
    if (g->t[i].stream > max_stream) max_stream = g->t[i].stream;
  s->tasks = calloc(n ? (size_t)n : 1, sizeof *s->tasks);
  s->task_of = malloc((n ? (size_t)n : 1) * sizeof *s->task_of);
  s->succ_off = calloc((size_t)n + 1, sizeof *s->succ_off);
  s->succ = malloc(((size_t)g->n_edges + 1) * sizeof *s->succ);
  int32_t *last = malloc(((size_t)max_stream + 2) * sizeof *last); /* last member per stream */
  if (!s->tasks || !s->task_of || !s->succ_off || !s->succ || !last) {
    free(last);
    return -1;
  }
  for (int32_t k = 0; k < g->n_edges; k++) {
    const tg_edge_t *e = &g->e[k];
    if (e->task < 0 || e->task >= n || e->pred < 0 || e->pred >= n || e->task == e->pred ||
        (e->on != TG_ON_END && e->on != TG_ON_RECV) ||
        (e->on == TG_ON_RECV && g->t[e->pred].kind != TG_FLOW)) {
      fprintf(stderr, "ref: edge %d (task %d after task %d, on %d) is invalid\n", k, e->task,
              e->pred, e->on);
      free(last);
      return -1;
    }
    s->succ_off[e->pred + 1]++;
    s->tasks[e->task].n_pred++;
  }
  for (int32_t i = 0; i < n; i++)
    s->succ_off[i + 1] += s->succ_off[i];
  for (int32_t k = 0; k < g->n_edges; k++) { /* fill, then shift the offsets back */
    const tg_edge_t *e = &g->e[k];
    s->succ[s->succ_off[e->pred]++] = (ref_edge_out_t){e->task, e->on};
  }
  for (int32_t i = n; i > 0; i--)
    s->succ_off[i] = s->succ_off[i - 1];
  s->succ_off[0] = 0;
  /* Owners' task lists in task order: a task's number is its TASK event index. */
  for (int32_t i = 0; i < n; i++)
    s->nodes[g->t[i].host].n_tasks++;
  for (int32_t x = 0, off = 0; x < n_nodes; x++) {
    s->nodes[x].task0 = off;
    off += s->nodes[x].n_tasks;
    s->nodes[x].n_tasks = 0;
  }
  for (int32_t i = 0; i < n; i++) {
    ref_node_t *nd = &s->nodes[g->t[i].host];
    s->tasks[i].number = nd->n_tasks;
    s->task_of[nd->task0 + nd->n_tasks++] = i;
  }
  for (int32_t q = 0; q <= max_stream; q++)
    last[q] = -1;
  int rc = 0;
  for (int32_t i = 0; i < n; i++) {
    ref_task_t *k = &s->tasks[i];
    const tg_task_t *d = &g->t[i];
    k->stream_prev = k->stream_next = -1;
    k->stream_at = k->sched = -1;
    k->need = d->need > 0 ? d->need : k->n_pred;
    if (d->need < 0 || d->need > k->n_pred) {
      fprintf(stderr, "ref: task %d (line %d): needs %d of %d predecessors\n", i, d->line, d->need,
              k->n_pred);
      rc = -1;
      break;
    }
    if (k->need < k->n_pred && !(k->k_low = malloc((size_t)k->need * sizeof *k->k_low))) {
      rc = -1;
      break;
    }
    if (d->stream < 0) continue;
    int32_t prev = last[d->stream];
    if (prev >= 0 && g->t[prev].host != d->host) {
      fprintf(stderr, "ref: task %d (line %d): stream %d spans two hosts\n", i, d->line, d->stream);
      rc = -1;
      break;
    }
    k->stream_prev = prev;
    if (prev >= 0) s->tasks[prev].stream_next = i;
    last[d->stream] = i;
  }
  free(last);
  return rc;
}

/* If task i can start, its start time: max(start, K + delay) with K the need-th
 * smallest known time of its edges' events (the latest for need 0), also no
 * earlier than the end of the previous member of its stream; a task without
 * predecessors starts at its start. A start earlier than the pending one
 * replaces it (the pending event turns stale). */
static void evaluate(ref_sim_t *s, int32_t i, int64_t now) {
  ref_task_t *k = &s->tasks[i];
  const tg_task_t *d = &s->g->t[i];
  if (k->started || k->n_known < k->need || (k->stream_prev >= 0 && k->stream_at < 0)) return;
  int64_t at = d->start;
  if (k->n_pred > 0 || k->stream_prev >= 0) {
    int64_t K = k->stream_at;
    if (k->n_pred > 0) {
      int64_t e = k->need < k->n_pred ? k->k_low[k->need - 1] : k->k_max;
      if (e > K) K = e;
    }
    if (K + d->delay > at) at = K + d->delay;
  }
  REF_CHECK(at >= now);
  if (k->sched >= 0 && k->sched <= at) return;
  k->sched = at;
  ref_push(s, at, d->host, REF_EV_TASK, k->number, 0, NULL);
}

/* The event of an edge into task i becomes known to its owner at `known`. */
static void record(ref_sim_t *s, int32_t i, int64_t known) {
  ref_task_t *k = &s->tasks[i];
  if (k->started) return;
  if (k->need == k->n_pred) { /* all (or need == n_pred): the latest */
    if (k->n_known == 0 || known > k->k_max) k->k_max = known;
    k->n_known++;
    return;
  }
  /* Keep the `need` smallest, ascending (insertion). */
  int32_t m = k->n_known < k->need ? k->n_known : k->need;
  if (m == k->need && known >= k->k_low[m - 1]) {
    k->n_known++;
    return;
  }
  int32_t j = m == k->need ? m - 1 : m;
  for (; j > 0 && k->k_low[j - 1] > known; j--)
    k->k_low[j] = k->k_low[j - 1];
  k->k_low[j] = known;
  k->n_known++;
}

void ref_task_happened(ref_sim_t *s, int32_t i, int32_t on, int32_t h, int64_t t) {
  for (int32_t q = s->succ_off[i]; q < s->succ_off[i + 1]; q++) {
    if (s->succ[q].on != on) continue;
    int32_t j = s->succ[q].task;
    record(s, j, s->g->t[j].host == h ? t : t + s->p->sync);
    evaluate(s, j, t);
  }
  int32_t nx = s->tasks[i].stream_next;
  if (on == TG_ON_END && nx >= 0) { /* same host: known at once */
    s->tasks[nx].stream_at = t;
    evaluate(s, nx, t);
  }
}

/* ---- compute slowed by its GPU's communication ------------------------- */

/* Whether task i's compute slows with its GPU's communication. */
static int slows(const ref_sim_t *s, int32_t i) {
  return s->g->t[i].gpu >= 0 && s->p->overlap_q16 != 65536;
}

/* Compute task i works at `rate` from t on: (re)schedule its end. */
static void run_at(ref_sim_t *s, int32_t i, int64_t rate, int64_t t) {
  ref_task_t *k = &s->tasks[i];
  k->rate = rate;
  k->work_t = t;
  k->end_at = t + (k->work + rate - 1) / rate;
  ref_push(s, k->end_at, s->g->t[i].host, REF_EV_TASK, k->number, 1, NULL);
}

/* The number of running communication tasks of GPU g changes by d at t; when
 * it becomes 1 or 0, every compute task of g that runs takes the new rate. */
static void comm_change(ref_sim_t *s, int32_t g, int32_t d, int64_t t) {
  s->gpu_comm[g] += d;
  if (s->gpu_comm[g] != (d > 0 ? 1 : 0)) return;
  int64_t rate = s->gpu_comm[g] ? 65536 : s->p->overlap_q16;
  for (int32_t i = 0; i < s->g->n; i++) {
    const tg_task_t *x = &s->g->t[i];
    ref_task_t *k = &s->tasks[i];
    if (x->gpu != g || x->kind != TG_COMPUTE || !k->started || k->ended || x->dur == 0) continue;
    k->work -= (t - k->work_t) * k->rate;
    if (k->work < 0) k->work = 0;
    run_at(s, i, rate, t);
  }
}

void ref_task_end(ref_sim_t *s, int32_t i, int64_t t) {
  ref_task_t *k = &s->tasks[i];
  REF_CHECK(k->started && !k->ended);
  k->ended = 1;
  int32_t kind = s->g->t[i].kind;
  if (slows(s, i) && (kind == TG_FLOW || kind == TG_COLL)) comm_change(s, s->g->t[i].gpu, -1, t);
  s->res->end_ps[i] = t;
  if (t > s->res->last_end_ps) s->res->last_end_ps = t;
  s->unfinished--;
  ref_task_happened(s, i, TG_ON_END, s->g->t[i].host, t);
}

int ref_task_stale(const ref_sim_t *s, const ref_event_t *ev) {
  int32_t i = s->task_of[s->nodes[ev->node].task0 + ev->index];
  const ref_task_t *k = &s->tasks[i];
  if (ev->aux) return k->ended || k->end_at != ev->t; /* an end that moved */
  return k->started || k->sched != ev->t;
}

void ref_task_event(ref_sim_t *s, const ref_event_t *ev) {
  int32_t i = s->task_of[s->nodes[ev->node].task0 + ev->index];
  const tg_task_t *d = &s->g->t[i];
  if (ev->aux) { /* a compute or coll task's end */
    ref_task_end(s, i, ev->t);
    return;
  }
  ref_task_t *k = &s->tasks[i];
  k->started = 1;
  s->res->start_ps[i] = ev->t;
  if (slows(s, i) && (d->kind == TG_FLOW || d->kind == TG_COLL)) comm_change(s, d->gpu, +1, ev->t);
  if (d->kind == TG_FLOW) {
    ref_flow_start(s, i, ev->t);
  } else if (d->kind == TG_JOIN || d->dur == 0) {
    ref_task_end(s, i, ev->t);
  } else if (d->kind == TG_COMPUTE && slows(s, i)) {
    k->work = d->dur * s->p->overlap_q16;
    run_at(s, i, s->gpu_comm[d->gpu] ? 65536 : s->p->overlap_q16, ev->t);
  } else {
    k->end_at = ev->t + d->dur;
    ref_push(s, k->end_at, d->host, REF_EV_TASK, k->number, 1, NULL);
  }
}

int ref_tasks_init(ref_sim_t *s) {
  if (build(s)) return -1;
  for (int32_t i = 0; i < s->g->n; i++) {
    s->tasks[i].end_at = -1;
    if (s->g->t[i].gpu + 1 > s->n_gpus) s->n_gpus = s->g->t[i].gpu + 1;
  }
  s->gpu_comm = calloc((size_t)s->n_gpus + 1, sizeof *s->gpu_comm);
  if (!s->gpu_comm) return -1;
  s->unfinished = s->g->n;
  for (int32_t i = 0; i < s->g->n; i++)
    if (s->tasks[i].n_pred == 0 && s->tasks[i].stream_prev < 0) evaluate(s, i, 0);
  return 0;
}

void ref_tasks_free(ref_sim_t *s) {
  if (s->tasks)
    for (int32_t i = 0; i < s->g->n; i++)
      free(s->tasks[i].k_low);
  free(s->tasks);
  free(s->gpu_comm);
  free(s->task_of);
  free(s->succ_off);
  free(s->succ);
}

/* Tasks at their owner host (docs/model.md, Tasks and dependencies): the
 * host's event heap (task starts and ends, its flows' timers), the ready
 * bitsets of its flows, the evaluation of a task's predecessors, and what a
 * task's events do. A host writes only its own tasks and flows; an event that
 * concerns another host's task sets a poke bit (an atomic OR) that the owner
 * reads in the next window, when the event is known there. */
#ifndef ENG_TASK_H
#define ENG_TASK_H

#include "sim/eng_net.h"

/* ---- the host's event heap: task rows by (hkey, hidx) ------------------ */

ENG_INLINE int eng_heap_less(const eng_cols_t *c, int32_t a, int32_t b) {
  return c->task[a].hkey < c->task[b].hkey ||
         (c->task[a].hkey == c->task[b].hkey && c->task[a].hidx < c->task[b].hidx);
}

ENG_INLINE void eng_heap_place(eng_cols_t *c, int32_t base, int32_t i, int32_t t) {
  c->heap_task[base + i] = t;
  c->task[t].hpos = i;
}

ENG_INLINE void eng_heap_up(eng_cols_t *c, int32_t base, int32_t i) {
  int32_t t = c->heap_task[base + i];
  while (i > 0) {
    int32_t up = (i - 1) / 2, u = c->heap_task[base + up];
    if (!eng_heap_less(c, t, u)) break;
    eng_heap_place(c, base, i, u);
    i = up;
  }
  eng_heap_place(c, base, i, t);
}

ENG_INLINE void eng_heap_down(eng_cols_t *c, int32_t base, int32_t n, int32_t i) {
  int32_t t = c->heap_task[base + i];
  for (;;) {
    int32_t l = 2 * i + 1, m = i;
    int32_t best = t;
    if (l < n && eng_heap_less(c, c->heap_task[base + l], best)) {
      m = l;
      best = c->heap_task[base + l];
    }
    if (l + 1 < n && eng_heap_less(c, c->heap_task[base + l + 1], best)) {
      m = l + 1;
      best = c->heap_task[base + l + 1];
    }
    if (m == i) break;
    eng_heap_place(c, base, i, best);
    i = m;
  }
  eng_heap_place(c, base, i, t);
}

/* Task t (owned by x) has its pending event at `key` with tie-break hidx;
 * ENG_INF: it has none. */
ENG_OUTLINE void eng_heap_set(eng_cols_t *c, int32_t x, int32_t t, int64_t key, int32_t hidx) {
  int32_t base = c->node[x].task_off, pos = c->task[t].hpos;
  if (key == ENG_INF) {
    c->task[t].hkey = ENG_INF;
    if (pos < 0) return;
    int32_t n = --c->node[x].heap_n;
    c->task[t].hpos = -1;
    if (pos == n) return;
    int32_t moved = c->heap_task[base + n];
    eng_heap_place(c, base, pos, moved);
    eng_heap_up(c, base, pos);
    eng_heap_down(c, base, n, c->task[moved].hpos);
    return;
  }
  if (pos >= 0 && c->task[t].hkey == key && c->task[t].hidx == hidx)
    return; /* in place already (a flow's timer, evaluated again, often is) */
  c->task[t].hkey = key;
  c->task[t].hidx = hidx;
  if (pos < 0) {
    pos = c->node[x].heap_n++;
    eng_heap_place(c, base, pos, t);
  }
  eng_heap_up(c, base, pos);
  eng_heap_down(c, base, c->node[x].heap_n, c->task[t].hpos);
}

/* Key of the earliest pending event in x's heap, ENG_INF if none. */
ENG_INLINE int64_t eng_heap_top(const eng_cols_t *c, int32_t x) {
  return c->node[x].heap_n ? c->task[c->heap_task[c->node[x].task_off]].hkey : ENG_INF;
}

/* ---- ready bitsets: the host's flows eligible to send now, per port -------- */

/* Flow f (of host x) is eligible at local port lp (-1: nowhere). */
ENG_INLINE void eng_ready_at(eng_cols_t *c, int32_t x, int32_t f, int32_t lp) {
  int32_t old = c->flow[f].rport;
  if (old == lp) return;
  int32_t r = c->flow[f].rank, nw = c->node[x].rbit_words, p0 = c->node[x].port_off;
  uint64_t bit = 1ULL << (r % 64);
  if (old >= 0) {
    c->rbit_w[c->node[x].rbit_off + old * nw + r / 64] &= ~bit;
    c->port[p0 + old].n_ready--;
    c->cls[eng_cls(c, p0 + old, c->flow[f].cls)].n_ready--;
  }
  if (lp >= 0) {
    c->rbit_w[c->node[x].rbit_off + lp * nw + r / 64] |= bit;
    c->port[p0 + lp].n_ready++;
    c->cls[eng_cls(c, p0 + lp, c->flow[f].cls)].n_ready++;
  }
  c->flow[f].rport = lp;
}

/* The first rank after `after`, cyclically, eligible at local port lp; -1 if
 * none. */
ENG_INLINE int32_t eng_ready_next(const eng_cols_t *c, int32_t x, int32_t lp, int32_t after) {
  if (c->port[c->node[x].port_off + lp].n_ready == 0) return -1;
  int32_t nr = c->node[x].n_ranks, nw = (nr + 63) / 64;
  const uint64_t *b = &c->rbit_w[c->node[x].rbit_off + lp * c->node[x].rbit_words];
  int32_t from = after + 1 < nr ? after + 1 : 0;
  int32_t wi = from / 64;
  uint64_t m = b[wi] & (~0ULL << (from % 64));
  for (int32_t k = 0; k <= nw; k++) {
    if (m) return wi * 64 + eng_ctz64(m);
    wi = wi + 1 < nw ? wi + 1 : 0;
    m = b[wi];
  }
  return -1;
}

/* ---- predecessors ------------------------------------------------------------ */

/* When predecessor event pe (task row * 2 + tg_on_t) is known at node k->x (ps),
 * or -1: it has not happened, or it happened at another host during this
 * window (it becomes known there `sync` later, and its poke brings it in the
 * next window). */
ENG_INLINE int64_t eng_pred_known(const eng_ctx_t *k, int32_t pe) {
  const eng_cols_t *c = k->c;
  int32_t row = pe >> 1, at;
  int64_t t;
  if ((pe & 1) == TG_ON_RECV) {
    int32_t f = c->task[row].flow;
    at = eng_flow_dst(c, f);
    t = eng_load_i64(&c->flow[f].recv);
  } else {
    at = c->task[row].node;
    t = eng_load_i64(&c->task[row].end);
  }
  if (t < 0) return -1;
  if (at == k->x) return t;
  if (t >= c->exp_t[k->e]) return -1;
  return eng_time_add(t, c->exp_sync[k->e]);
}

/* The need-th smallest known time of task t's predecessors by edges (its
 * stream's previous member is a condition of its own), or -1 if fewer are
 * known: the least T with at least `need` known times <= T (bisection over the
 * time, so memory stays constant). */
ENG_INLINE int64_t eng_kth_known(const eng_ctx_t *k, int32_t t) {
  const eng_cols_t *c = k->c;
  int32_t s = c->task[t].spred;
  int32_t p0 = c->task[t].pred_off + s, n = c->task[t].npred - s, need = c->task[t].need;
  int32_t known = 0;
  int64_t lo = ENG_INF, hi = -1;
  for (int32_t i = 0; i < n; i++) {
    int64_t kt = eng_pred_known(k, c->pred_e[p0 + i]);
    if (kt < 0) continue;
    known++;
    if (kt < lo) lo = kt;
    if (kt > hi) hi = kt;
  }
  if (known < need) return -1;
  while (lo < hi) { /* invariant: the answer lies in [lo, hi] */
    int64_t mid = lo + (hi - lo) / 2;
    int32_t le = 0;
    for (int32_t i = 0; i < n; i++) {
      int64_t kt = eng_pred_known(k, c->pred_e[p0 + i]);
      le += kt >= 0 && kt <= mid;
    }
    if (le >= need)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* Task t (owned by k->x, not started) may be able to start: when its
 * predecessors allow, its start event is placed in the heap, or moved earlier. */
ENG_OUTLINE void eng_task_eval(eng_ctx_t *k, int32_t t) {
  eng_cols_t *c = k->c;
  if (c->task[t].started) return;
  int64_t known;
  if (c->task[t].need == 0) {
    int32_t i = c->task[t].pcur, n = c->task[t].npred, p0 = c->task[t].pred_off;
    int64_t km = c->task[t].kmax;
    for (; i < n; i++) {
      int64_t kt = eng_pred_known(k, c->pred_e[p0 + i]);
      if (kt < 0) break;
      if (kt > km) km = kt;
    }
    c->task[t].pcur = i;
    c->task[t].kmax = km;
    if (i < n) return;
    known = km;
  } else {
    known = eng_kth_known(k, t);
    if (known < 0) return;
    if (c->task[t].spred) { /* and the previous member of its stream has ended */
      int64_t ks = eng_pred_known(k, c->pred_e[c->task[t].pred_off]);
      if (ks < 0) return;
      if (ks > known) known = ks;
    }
  }
  int64_t s = eng_time_add(known, c->task[t].delay);
  if (s < c->task[t].tmin) s = c->task[t].tmin;
  if (c->task[t].start >= 0 && c->task[t].start <= s) return;
  c->task[t].start = s;
  eng_heap_set(c, k->x, t, eng_key(s, ENG_EV_TASK), t - c->node[k->x].task_off);
}

/* Another host's task s must be evaluated again in the next window. */
ENG_INLINE void eng_task_poke(eng_ctx_t *k, int32_t s) {
  eng_cols_t *c = k->c;
  int32_t y = c->task[s].node, i = s - c->node[y].task_off;
  int32_t bank = (int32_t)(c->exp_windows[k->e] & 1);
  eng_atomic_or_u32(&c->poke_w[c->node[y].poke_off + bank * c->node[y].poke_words + i / 32],
                    1u << (i % 32));
  eng_flag_raise(bank ? &c->node_poked1[y] : &c->node_poked0[y]);
  /* The next window must start right after this one, when the owner learns. */
  if (c->exp_t_end[k->e] < k->emit_min) k->emit_min = c->exp_t_end[k->e];
}

/* Event `on` of task t happened at k->now at this host: its successors that
 * wait for it are evaluated (here) or poked (elsewhere). */
ENG_OUTLINE void eng_task_notify(eng_ctx_t *k, int32_t t, int32_t on) {
  eng_cols_t *c = k->c;
  int32_t s0 = c->task[t].succ_off, n = c->task[t].nsucc;
  for (int32_t i = 0; i < n; i++) {
    int32_t se = c->succ_e[s0 + i];
    if ((se & 1) != on) continue;
    int32_t s = se >> 1;
    if (c->task[s].node == k->x)
      eng_task_eval(k, s);
    else
      eng_task_poke(k, s);
  }
}

/* ---- compute slowed by its GPU's communication (overlap_slowdown) --------- */

/* Whether task t's GPU slows its compute while its communication runs. */
ENG_INLINE int eng_slows(const eng_ctx_t *k, int32_t t) {
  return k->c->task[t].gpu >= 0 && k->c->exp_overlap_q16[k->e] != 65536;
}

/* Running compute task t works at `rate` from k->now: its end moves to when
 * its remaining work is done. */
ENG_INLINE void eng_compute_at(eng_ctx_t *k, int32_t t, int32_t rate) {
  eng_cols_t *c = k->c;
  c->task[t].rate = rate;
  c->task[t].tupd = k->now;
  int64_t left = (c->task[t].rem + rate - 1) / rate; /* ps */
  eng_heap_set(c, k->x, t, eng_key(eng_time_add(k->now, left), ENG_EV_TASK), c->task[t].hidx);
}

/* GPU g's communication started or stopped running: its running compute
 * tasks account for the work done so far and go on at the new rate. */
ENG_INLINE void eng_gpu_rerate(eng_ctx_t *k, int32_t g) {
  eng_cols_t *c = k->c;
  int32_t rate = c->gpu_comm[g] > 0 ? 65536 : (int32_t)c->exp_overlap_q16[k->e];
  for (int32_t t = c->gpu_run[g]; t >= 0; t = c->task[t].gnext) {
    int64_t done = (k->now - c->task[t].tupd) * c->task[t].rate;
    c->task[t].rem = done >= c->task[t].rem ? 0 : c->task[t].rem - done;
    eng_compute_at(k, t, rate);
  }
}

/* Compute task t starts at k->now: dur ps of work at full speed, each ps worth
 * overlap_q16 units; slowed it does 65536 units a ps. */
ENG_INLINE void eng_compute_begin(eng_ctx_t *k, int32_t t) {
  eng_cols_t *c = k->c;
  int32_t g = c->task[t].gpu;
  c->task[t].rem = c->task[t].dur * c->exp_overlap_q16[k->e];
  c->task[t].gnext = c->gpu_run[g];
  c->gpu_run[g] = t;
  eng_compute_at(k, t, c->gpu_comm[g] > 0 ? 65536 : (int32_t)c->exp_overlap_q16[k->e]);
}

/* A communication task (flow or coll) of t's GPU begins (+1) or ends (-1). */
ENG_INLINE void eng_comm_change(eng_ctx_t *k, int32_t t, int32_t d) {
  eng_cols_t *c = k->c;
  int32_t g = c->task[t].gpu;
  c->gpu_comm[g] += d;
  if (c->gpu_comm[g] == (d > 0 ? 1 : 0)) eng_gpu_rerate(k, g);
}

/* Task t ended at k->now. */
ENG_OUTLINE void eng_task_end_now(eng_ctx_t *k, int32_t t) {
  eng_cols_t *c = k->c;
  if (eng_slows(k, t)) {
    if (c->task[t].kind == TG_COMPUTE && c->task[t].dur > 0) { /* off its GPU's running list */
      int32_t *at = &c->gpu_run[c->task[t].gpu];
      while (*at != t)
        at = &c->task[*at].gnext;
      *at = c->task[t].gnext;
    } else if (c->task[t].kind == TG_FLOW || c->task[t].kind == TG_COLL) {
      eng_comm_change(k, t, -1);
    }
  }
  eng_store_i64(&c->task[t].end, k->now);
  eng_atomic_add_i64(&c->exp_tasks_done[k->e], 1);
  eng_task_notify(k, t, TG_ON_END);
}

/* System part "schedule": at the start of its step in a window, node x
 * evaluates its tasks poked during the previous window. */
ENG_OUTLINE void eng_node_schedule(eng_ctx_t *k) {
  eng_cols_t *c = k->c;
  int32_t x = k->x, bank = (int32_t)((c->exp_windows[k->e] + 1) & 1);
  uint8_t *flag = bank ? &c->node_poked1[x] : &c->node_poked0[x];
  if (!*flag) return;
  *flag = 0;
  int32_t nw = c->node[x].poke_words, base = c->node[x].poke_off + bank * nw;
  int32_t t0 = c->node[x].task_off;
  for (int32_t w = 0; w < nw; w++) {
    uint32_t m = c->poke_w[base + w];
    if (!m) continue;
    c->poke_w[base + w] = 0;
    while (m) {
      int32_t b = eng_ctz32(m);
      m &= m - 1;
      eng_task_eval(k, t0 + w * 32 + b);
    }
  }
}

/* Whether node x has pokes to read in the current window. */
ENG_INLINE int eng_node_poked(const eng_cols_t *c, int32_t x, int32_t e) {
  return ((c->exp_windows[e] + 1) & 1) ? c->node_poked1[x] : c->node_poked0[x];
}

#endif

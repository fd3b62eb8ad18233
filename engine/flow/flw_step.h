/* The flow level's simulation of one experiment (docs/model.md, The flow-level
 * model), written once for both backends: a sequential event loop over the
 * experiment's tasks, max-min fair rates by progressive filling over the
 * connected component of the links whose flow set changed, in integer bit/s
 * and picoseconds. */
#ifndef FLW_STEP_H
#define FLW_STEP_H

#include "flow/flw_world.h"
#include "tg/tg.h"

#define FLW_INF INT64_MAX
/* Times saturate here (as the packet level's ENG_TMAX): keys t * 4 + class fit. */
#define FLW_TMAX (((int64_t)1 << 60) - 2)

/* Event classes, in their order at one instant. */
enum { FLW_EV_DRAIN = 0, FLW_EV_RECV = 1, FLW_EV_END = 2, FLW_EV_START = 3 };

/* One experiment's rows: every column offset to its first row, indexed by
 * local indices (exp columns: [0]). */
typedef struct flw_view_t {
#define FLW_VIEW_DECL(tab, type, name) type *tab##_##name;
  FLW_COLUMNS(FLW_VIEW_DECL)
#undef FLW_VIEW_DECL
} flw_view_t;

ENG_INLINE flw_view_t flw_view(const flw_cols_t *c, int32_t e) {
  flw_view_t v;
#define FLW_VIEW_SET(tab, type, name)                                                              \
  v.tab##_##name =                                                                                 \
      c->tab##_##name + (FLW_T_##tab == FLW_T_exp ? (int64_t)e : c->off[FLW_T_##tab][e]);
  FLW_COLUMNS(FLW_VIEW_SET)
#undef FLW_VIEW_SET
  return v;
}

ENG_INLINE int64_t flw_time_add(int64_t a, int64_t b) {
  return b >= FLW_TMAX - a ? FLW_TMAX : a + b;
}

/* ---- the event heap: tasks by (hkey, task index) ------------------------ */

ENG_INLINE int flw_ev_less(const flw_view_t *v, int32_t a, int32_t b) {
  return v->task_hkey[a] < v->task_hkey[b] || (v->task_hkey[a] == v->task_hkey[b] && a < b);
}

ENG_INLINE void flw_ev_place(flw_view_t *v, int32_t i, int32_t t) {
  v->task_heap[i] = t;
  v->task_hpos[t] = i;
}

ENG_INLINE void flw_ev_up(flw_view_t *v, int32_t i) {
  int32_t t = v->task_heap[i];
  while (i > 0) {
    int32_t up = (i - 1) / 2, u = v->task_heap[up];
    if (!flw_ev_less(v, t, u)) break;
    flw_ev_place(v, i, u);
    i = up;
  }
  flw_ev_place(v, i, t);
}

ENG_INLINE void flw_ev_down(flw_view_t *v, int32_t i) {
  int32_t n = v->exp_heap_n[0], t = v->task_heap[i];
  for (;;) {
    int32_t l = 2 * i + 1, m = i, best = t;
    if (l < n && flw_ev_less(v, v->task_heap[l], best)) best = v->task_heap[m = l];
    if (l + 1 < n && flw_ev_less(v, v->task_heap[l + 1], best)) best = v->task_heap[m = l + 1];
    if (m == i) break;
    flw_ev_place(v, i, best);
    i = m;
  }
  flw_ev_place(v, i, t);
}

/* Task t's one pending event is (time, class); FLW_INF time: none. */
ENG_INLINE void flw_ev_set(flw_view_t *v, int32_t t, int64_t time, int32_t cls) {
  int32_t pos = v->task_hpos[t];
  if (time == FLW_INF) {
    v->task_hkey[t] = FLW_INF;
    if (pos < 0) return;
    int32_t n = --v->exp_heap_n[0];
    v->task_hpos[t] = -1;
    if (pos == n) return;
    int32_t moved = v->task_heap[n];
    flw_ev_place(v, pos, moved);
    flw_ev_up(v, pos);
    flw_ev_down(v, v->task_hpos[moved]);
    return;
  }
  v->task_hkey[t] = time * 4 + cls;
  if (pos < 0) {
    pos = v->exp_heap_n[0]++;
    flw_ev_place(v, pos, t);
  }
  flw_ev_up(v, pos);
  flw_ev_down(v, v->task_hpos[t]);
}

/* ---- the link heap of progressive filling: links by (share, index) ------ */

/* Link a's queued share krc / knu is below link b's (exactly), or equal and
 * a is the lower link. */
ENG_INLINE int flw_lk_less(const flw_view_t *v, int32_t a, int32_t b) {
  flw_u128_t x = (flw_u128_t)(uint64_t)v->link_krc[a] * (uint32_t)v->link_knu[b];
  flw_u128_t y = (flw_u128_t)(uint64_t)v->link_krc[b] * (uint32_t)v->link_knu[a];
  return x < y || (x == y && a < b);
}

/* Queues link l at its share now. */
ENG_INLINE void flw_lk_key(flw_view_t *v, int32_t l) {
  v->link_krc[l] = v->link_rc[l];
  v->link_knu[l] = v->link_nu[l];
}

ENG_INLINE void flw_lk_place(flw_view_t *v, int32_t i, int32_t l) {
  v->link_lheap[i] = l;
  v->link_lpos[l] = i;
}

ENG_INLINE void flw_lk_push(flw_view_t *v, int32_t *n, int32_t l) {
  int32_t i = (*n)++;
  while (i > 0) {
    int32_t up = (i - 1) / 2, u = v->link_lheap[up];
    if (!flw_lk_less(v, l, u)) break;
    flw_lk_place(v, i, u);
    i = up;
  }
  flw_lk_place(v, i, l);
}

ENG_INLINE int32_t flw_lk_pop(flw_view_t *v, int32_t *n) {
  int32_t top = v->link_lheap[0], last = v->link_lheap[--*n], i = 0;
  v->link_lpos[top] = -1;
  if (*n == 0) return top;
  for (;;) {
    int32_t l = 2 * i + 1, m = i, best = last;
    if (l < *n && flw_lk_less(v, v->link_lheap[l], best)) best = v->link_lheap[m = l];
    if (l + 1 < *n && flw_lk_less(v, v->link_lheap[l + 1], best)) best = v->link_lheap[m = l + 1];
    if (m == i) break;
    flw_lk_place(v, i, best);
    i = m;
  }
  flw_lk_place(v, i, last);
  return top;
}

/* ---- rates --------------------------------------------------------------- */

/* Link l's flow set changes in this instant: its component is filled again. */
ENG_INLINE void flw_touch(flw_view_t *v, int32_t l) {
  int32_t ep = v->exp_epoch[0];
  if (v->link_mark[l] == ep) return;
  v->link_mark[l] = ep;
  v->link_queue[v->exp_n_touch[0]++] = l;
}

/* Flow f's data left at now, at the rate it had since tupd. */
ENG_INLINE void flw_flow_update(flw_view_t *v, int32_t f, int64_t now) {
  flw_u128_t sent = (flw_u128_t)(uint64_t)v->flow_rate[f] * (uint64_t)(now - v->flow_tupd[f]);
  v->flow_rem[f] = sent >= v->flow_rem[f] ? 0 : v->flow_rem[f] - sent;
  v->flow_tupd[f] = now;
}

/* Progressive filling over the component of the touched links: the links
 * reachable from them through flows that share links (their rates alone can
 * change). Repeatedly, the link of the least share (capacity left / flows
 * without a rate, exactly; ties: the lower link) gives each of its flows
 * without a rate the share rounded down, which every link of their paths
 * gives up. Then each flow's drain event is set. */
ENG_INLINE void flw_rerate(flw_view_t *v, int64_t now) {
  int32_t ep = v->exp_epoch[0], nl = v->exp_n_touch[0], nf = 0;
  for (int32_t qi = 0; qi < nl; qi++) { /* the component: links and flows */
    for (int32_t p = v->link_head[v->link_queue[qi]]; p >= 0; p = v->hop_next[p]) {
      int32_t f = v->hop_flow[p];
      if (v->flow_mark[f] == ep) continue;
      v->flow_mark[f] = ep;
      v->flow_queue[nf++] = f;
      for (int32_t q = v->flow_hop_off[f], qe = q + v->flow_nhop[f]; q < qe; q++) {
        int32_t l = v->hop_link[q];
        if (v->link_mark[l] == ep) continue;
        v->link_mark[l] = ep;
        v->link_queue[nl++] = l;
      }
    }
  }
  for (int32_t i = 0; i < nf; i++) {
    int32_t f = v->flow_queue[i];
    flw_flow_update(v, f, now);
    v->flow_frozen[f] = 0;
  }
  int32_t nh = 0;
  for (int32_t i = 0; i < nl; i++) {
    int32_t l = v->link_queue[i];
    v->link_rc[l] = v->link_cap[l];
    v->link_nu[l] = v->link_nact[l];
    if (v->link_nu[l] == 0) continue;
    flw_lk_key(v, l);
    flw_lk_push(v, &nh, l);
  }
  while (nh > 0) {
    int32_t l = flw_lk_pop(v, &nh);
    if (v->link_nu[l] == 0) continue;
    if (v->link_rc[l] != v->link_krc[l] || v->link_nu[l] != v->link_knu[l]) {
      flw_lk_key(v, l); /* shares only grow as flows get rates: queue it again */
      flw_lk_push(v, &nh, l);
      continue;
    }
    int64_t share = v->link_rc[l] / v->link_nu[l];
    for (int32_t p = v->link_head[l]; p >= 0; p = v->hop_next[p]) {
      int32_t f = v->hop_flow[p];
      if (v->flow_frozen[f]) continue;
      v->flow_frozen[f] = 1;
      v->flow_rate[f] = share;
      for (int32_t q = v->flow_hop_off[f], qe = q + v->flow_nhop[f]; q < qe; q++) {
        int32_t k = v->hop_link[q];
        v->link_rc[k] -= share;
        v->link_nu[k]--;
      }
    }
  }
  for (int32_t i = 0; i < nf; i++) {
    int32_t f = v->flow_queue[i];
    int64_t r = v->flow_rate[f], at = FLW_INF;
    if (r > 0) {
      flw_u128_t left = (v->flow_rem[f] + (flw_u128_t)(uint64_t)r - 1) / (flw_u128_t)(uint64_t)r;
      at = left >= (flw_u128_t)(FLW_TMAX - now) ? FLW_TMAX : now + (int64_t)left;
    }
    flw_ev_set(v, v->flow_task[f], at, FLW_EV_DRAIN);
  }
  v->exp_rerates[0] += nf;
  v->exp_n_touch[0] = 0;
}

/* Flow f starts sending (+1) or has sent its last bit (-1). */
ENG_INLINE void flw_flow_links(flw_view_t *v, int32_t f, int32_t d) {
  for (int32_t p = v->flow_hop_off[f], pe = p + v->flow_nhop[f]; p < pe; p++) {
    int32_t l = v->hop_link[p];
    flw_touch(v, l);
    v->link_nact[l] += d;
    if (d > 0) {
      v->hop_prev[p] = -1;
      v->hop_next[p] = v->link_head[l];
      if (v->link_head[l] >= 0) v->hop_prev[v->link_head[l]] = p;
      v->link_head[l] = p;
    } else {
      if (v->hop_prev[p] >= 0)
        v->hop_next[v->hop_prev[p]] = v->hop_next[p];
      else
        v->link_head[l] = v->hop_next[p];
      if (v->hop_next[p] >= 0) v->hop_prev[v->hop_next[p]] = v->hop_prev[p];
      uint64_t c = v->link_carried[l] + (uint64_t)v->flow_bits[f];
      v->link_carried[l] = c < v->link_carried[l] ? UINT64_MAX : c;
    }
  }
}

/* ---- tasks ----------------------------------------------------------------- */

/* When predecessor event pe (task * 2 + tg_on_t) is known at host `at`, ps;
 * -1 if it has not happened. */
ENG_INLINE int64_t flw_pred_known(const flw_view_t *v, int32_t pe, int32_t at) {
  int32_t t = pe >> 1, where;
  int64_t when;
  if ((pe & 1) == TG_ON_RECV) {
    int32_t f = v->task_flow[t];
    where = v->flow_dst[f];
    when = v->flow_recv[f];
  } else {
    where = v->task_host[t];
    when = v->task_end[t];
  }
  if (when < 0) return -1;
  return where == at ? when : flw_time_add(when, v->exp_sync[0]);
}

/* The need-th smallest known time of task t's predecessor events by edges (its
 * stream's previous member is a condition of its own), or -1 if fewer are
 * known. */
ENG_INLINE int64_t flw_kth_known(const flw_view_t *v, int32_t t) {
  int32_t s = v->task_spred[t], at = v->task_host[t];
  int32_t p0 = v->task_pred_off[t] + s, n = v->task_npred[t] - s, need = v->task_need[t];
  int32_t known = 0;
  int64_t lo = FLW_INF, hi = -1;
  for (int32_t i = 0; i < n; i++) {
    int64_t kt = flw_pred_known(v, v->pred_e[p0 + i], at);
    if (kt < 0) continue;
    known++;
    lo = kt < lo ? kt : lo;
    hi = kt > hi ? kt : hi;
  }
  if (known < need) return -1;
  while (lo < hi) { /* the least T with `need` known times <= T */
    int64_t mid = lo + (hi - lo) / 2;
    int32_t le = 0;
    for (int32_t i = 0; i < n; i++) {
      int64_t kt = flw_pred_known(v, v->pred_e[p0 + i], at);
      le += kt >= 0 && kt <= mid;
    }
    if (le >= need)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* Task t may be able to start: its start event is set, or moved earlier. */
ENG_INLINE void flw_task_eval(flw_view_t *v, int32_t t) {
  if (v->task_started[t]) return;
  int32_t at = v->task_host[t];
  int64_t known;
  if (v->task_need[t] == 0) {
    int32_t i = v->task_pcur[t], n = v->task_npred[t], p0 = v->task_pred_off[t];
    int64_t km = v->task_kmax[t];
    for (; i < n; i++) {
      int64_t kt = flw_pred_known(v, v->pred_e[p0 + i], at);
      if (kt < 0) break;
      km = kt > km ? kt : km;
    }
    v->task_pcur[t] = i;
    v->task_kmax[t] = km;
    if (i < n) return;
    known = km;
  } else {
    known = flw_kth_known(v, t);
    if (known < 0) return;
    if (v->task_spred[t]) { /* and the previous member of its stream has ended */
      int64_t ks = flw_pred_known(v, v->pred_e[v->task_pred_off[t]], at);
      if (ks < 0) return;
      known = ks > known ? ks : known;
    }
  }
  int64_t s = flw_time_add(known, v->task_delay[t]);
  s = s < v->task_tmin[t] ? v->task_tmin[t] : s;
  if (v->task_start[t] >= 0 && v->task_start[t] <= s) return;
  v->task_start[t] = s;
  flw_ev_set(v, t, s, FLW_EV_START);
}

/* Event `on` of task t happened: its successors waiting for it are evaluated. */
ENG_INLINE void flw_task_notify(flw_view_t *v, int32_t t, int32_t on) {
  for (int32_t i = v->task_succ_off[t], ie = i + v->task_nsucc[t]; i < ie; i++) {
    int32_t se = v->succ_e[i];
    if ((se & 1) == on) flw_task_eval(v, se >> 1);
  }
}

/* ---- compute slowed by its GPU's communication (as the packet level) ---- */

ENG_INLINE int flw_slows(const flw_view_t *v, int32_t t) {
  return v->task_gpu[t] >= 0 && v->exp_overlap_q16[0] != 65536;
}

ENG_INLINE void flw_compute_at(flw_view_t *v, int32_t t, int32_t rate, int64_t now) {
  v->task_rate[t] = rate;
  v->task_tupd[t] = now;
  int64_t left = (v->task_rem[t] + rate - 1) / rate; /* ps */
  flw_ev_set(v, t, flw_time_add(now, left), FLW_EV_END);
}

ENG_INLINE void flw_gpu_rerate(flw_view_t *v, int32_t g, int64_t now) {
  int32_t rate = v->gpu_comm[g] > 0 ? 65536 : (int32_t)v->exp_overlap_q16[0];
  for (int32_t t = v->gpu_run[g]; t >= 0; t = v->task_gnext[t]) {
    int64_t done = (now - v->task_tupd[t]) * v->task_rate[t];
    v->task_rem[t] = done >= v->task_rem[t] ? 0 : v->task_rem[t] - done;
    flw_compute_at(v, t, rate, now);
  }
}

ENG_INLINE void flw_comm_change(flw_view_t *v, int32_t t, int32_t d, int64_t now) {
  int32_t g = v->task_gpu[t];
  v->gpu_comm[g] += d;
  if (v->gpu_comm[g] == (d > 0 ? 1 : 0)) flw_gpu_rerate(v, g, now);
}

/* Task t ends at now. */
ENG_INLINE void flw_task_end(flw_view_t *v, int32_t t, int64_t now) {
  int32_t kind = v->task_kind[t];
  if (flw_slows(v, t)) {
    if (kind == TG_COMPUTE && v->task_dur[t] > 0) { /* off its GPU's running list */
      int32_t *at = &v->gpu_run[v->task_gpu[t]];
      while (*at != t)
        at = &v->task_gnext[*at];
      *at = v->task_gnext[t];
    } else if (kind == TG_FLOW || kind == TG_COLL) {
      flw_comm_change(v, t, -1, now);
    }
  }
  v->task_end[t] = now;
  v->exp_done[0]++;
  flw_task_notify(v, t, TG_ON_END);
}

/* Task t starts at now. */
ENG_INLINE void flw_task_start(flw_view_t *v, int32_t t, int64_t now) {
  int32_t kind = v->task_kind[t];
  v->task_started[t] = 1;
  if (now < v->exp_first[0]) v->exp_first[0] = now;
  if (kind == TG_FLOW) {
    int32_t f = v->task_flow[t];
    if (flw_slows(v, t)) flw_comm_change(v, t, +1, now);
    v->flow_rem[f] = (flw_u128_t)(uint64_t)v->flow_bits[f] * 1000000000000ULL;
    v->flow_rate[f] = 0;
    v->flow_tupd[f] = now;
    flw_flow_links(v, f, +1); /* its drain event comes with its rate */
    return;
  }
  if (kind == TG_COLL && flw_slows(v, t)) flw_comm_change(v, t, +1, now);
  if (kind == TG_JOIN || v->task_dur[t] == 0) {
    flw_task_end(v, t, now);
    return;
  }
  if (kind == TG_COMPUTE && flw_slows(v, t)) {
    int32_t g = v->task_gpu[t];
    v->task_rem[t] = v->task_dur[t] * v->exp_overlap_q16[0];
    v->task_gnext[t] = v->gpu_run[g];
    v->gpu_run[g] = t;
    flw_compute_at(v, t, v->gpu_comm[g] > 0 ? 65536 : (int32_t)v->exp_overlap_q16[0], now);
    return;
  }
  flw_ev_set(v, t, flw_time_add(now, v->task_dur[t]), FLW_EV_END);
}

/* The pending event of task t (class cls) happens at now. */
ENG_INLINE void flw_event(flw_view_t *v, int32_t t, int32_t cls, int64_t now) {
  flw_ev_set(v, t, FLW_INF, 0);
  v->exp_events[0]++;
  if (cls == FLW_EV_START) {
    flw_task_start(v, t, now);
  } else if (cls == FLW_EV_DRAIN) {
    int32_t f = v->task_flow[t];
    v->flow_rem[f] = 0;
    v->flow_rate[f] = 0;
    flw_flow_links(v, f, -1);
    flw_ev_set(v, t, flw_time_add(now, v->flow_lat[f]), FLW_EV_RECV);
  } else if (cls == FLW_EV_RECV) {
    int32_t f = v->task_flow[t];
    v->flow_recv[f] = now;
    flw_task_notify(v, t, TG_ON_RECV);
    flw_ev_set(v, t, flw_time_add(now, v->flow_ack[f]), FLW_EV_END);
  } else {
    flw_task_end(v, t, now);
  }
}

/* Runs experiment e to its end: instant by instant, every event of the
 * instant in (class, task) order (events it creates at the same instant
 * included), then the rates of the component whose flows changed. */
ENG_INLINE void flw_exp_run(const flw_cols_t *c, int32_t e) {
  flw_view_t v = flw_view(c, e);
  int32_t n_tasks = c->cnt[FLW_T_task][e];
  while (v.exp_heap_n[0] > 0) {
    int64_t now = v.task_hkey[v.task_heap[0]] >> 2;
    if (now > v.exp_max_time[0]) {
      v.exp_status[0] = ENG_TIMED_OUT;
      return;
    }
    v.exp_now[0] = now;
    v.exp_epoch[0]++;
    while (v.exp_heap_n[0] > 0 && (v.task_hkey[v.task_heap[0]] >> 2) == now) {
      int32_t t = v.task_heap[0];
      flw_event(&v, t, (int32_t)(v.task_hkey[t] & 3), now);
    }
    if (v.exp_n_touch[0] > 0) flw_rerate(&v, now);
  }
  if (v.exp_done[0] == n_tasks) {
    v.exp_status[0] = ENG_OK;
  } else {
    v.exp_status[0] = ENG_FAILED;
    v.exp_fail[0] = ENG_FAIL_DEADLOCK;
  }
}

#endif

/* Certified port phases (docs/engine.md, Port phases): a switch window stepped
 * port by port, in place of its events in key order, where a certificate
 * proves that its ports cannot meet through shared state. Included by
 * eng_step.h after the pieces of events it reuses (eng_relayed, eng_queue_bytes,
 * eng_dequeue_acct, eng_tx_time).
 *
 * A switch's ports meet only through its descriptors (sw_free), its
 * buffer (admission, shared, the dynamic PFC threshold), PFC frames and
 * pauses, and flowlet tables; everything else a port's events touch is the
 * port's own (its queues, clocks, draw counters, ring) or an order-free sum
 * (counters, exp_fail, emit_min). When the window's arrivals can neither find
 * no descriptor nor no buffer, nor send a PAUSE or RESUME, whatever their
 * order, and no frame arrives and no flowlet is kept, an egress port's
 * history depends only on the arrivals routed to it, taken in the serial
 * step's order (time, then ingress port), and on its own transmissions (an
 * arrival before a transmission of the same instant). So the switch runs
 * S1: every ingress routes its window's arrivals, then S3: every egress
 * merges the arrivals routed to it and serves its queue, and leaves the state
 * the serial step leaves, up to which descriptor rows hold which packets (a
 * row's identity never reaches a result). Each port's work in a phase is
 * independent of the others': a backend may give ports threads of their own.
 * exp_phases says whether to (MULTIVERSE_PHASES: 1 on, 0 off, unset: each
 * backend's default, ENG_PHASES_AUTO); the results are the same either way
 * (tests/cli/net_equiv.sh phases). The CPU backend runs the phases here, port
 * after port, by default on switches that keep no tree (eng_step.h: the
 * phases visit every port, the tree only the busy ones); the CUDA backend
 * (cu_phase_step) runs them unless told not to
 * with a warp per switch, a thread per port, where a switch steps in a warp
 * of its own: there the buffer's sums and counts change by atomics and the
 * descriptor pool under a lock (eng_ctx_t.lock), whose rows then go to
 * packets in another order (docs/engine.md). */
#ifndef ENG_PHASE_H
#define ENG_PHASE_H

#define ENG_PHASE_CLS 8 /* class queues per port at most (eng_build_n_cls) */
/* Arrivals in a window at most for the CPU's phases (eng_phase_step deals
 * them on its stack, 24 KB); a busier window steps in key order. */
#define ENG_PHASE_CPU_MAX 2048

/* Whether this backend steps in phases: the CPU's (the CUDA kernels compile
 * the call away). */
#ifdef __CUDA_ARCH__
#define ENG_PHASE_BACKEND 0
#else
#define ENG_PHASE_BACKEND 1
#endif

/* The slot of ring position j of link direction p. */
ENG_INLINE int32_t eng_phase_slot(const eng_cols_t *c, int32_t p, uint32_t j) {
  return c->port[p].ring_off + (int32_t)(j & c->port[p].ring_mask);
}

/* Whether ring position j of link direction p holds an arrival of the window
 * that ends at t_end. */
ENG_INLINE int eng_phase_due(const eng_cols_t *c, int32_t p, uint32_t j, int64_t t_end) {
  return j != c->port[p].ring_pub && c->ring_pkt[eng_phase_slot(c, p, j)].t < t_end;
}

/* Whether switch k->x may step its window (ending at t_end) in phases: its
 * experiment asks for them; no flowlets, no tasks; no PFC frame to take and
 * no PAUSE outstanding; descriptors for every arrival; and, for every order
 * of them, room in the buffer and no PAUSE: each ingress class's bytes stay
 * below its threshold at its lowest (the shared buffer as full as the
 * window's arrivals can make it), also counting a packet's own bytes (the
 * headroom admission's test), and no headroom in use (a packet leaving takes
 * its bytes from headroom first: an order between egresses). At most max_n
 * arrivals. The verdict is the AND of the parts below, each a pure read of
 * the state: the node's (eng_phase_node_ok), each port's arrivals
 * (eng_phase_port_in), the switch's room for their sum (eng_phase_room) and,
 * where PFC or headroom is in play, each port's room (eng_phase_port_room).
 * The CPU takes the ports one after the other (eng_phase_ok); the GPU's warp
 * a thread per port (cu_phase_ok). */
ENG_INLINE int eng_phase_node_ok(const eng_ctx_t *k) {
  const eng_cols_t *c = k->c;
  return !c->node[k->x].heap_n && c->exp_lb[k->e] != ENG_LB_ADAPTIVE &&
         c->exp_n_cls[k->e] <= ENG_PHASE_CLS;
}

/* Port lp's part: no PFC frame due at its ingress and no PAUSE sent by its
 * classes; its window's arrivals added to *n and their in-class bytes to
 * *bytes. */
ENG_INLINE int eng_phase_port_in(const eng_ctx_t *k, int32_t lp, int64_t t_end, int64_t *n,
                                 int64_t *bytes) {
  const eng_cols_t *c = k->c;
  const int32_t e = k->e, p = k->p0 + lp, in = c->port[p].peer;
  uint32_t h = c->port[in].pfc_head;
  if (h != c->port[in].pfc_pub &&
      c->pfc_t[c->port[in].pfc_off + (int32_t)(h & c->port[in].pfc_mask)] < t_end)
    return 0;
  if (c->exp_pfc[e] && c->port[p].cls_psent) return 0;
  for (uint32_t j = c->port[in].ring_head; eng_phase_due(c, in, j, t_end); j++) {
    const eng_pkt_t *pk = &c->ring_pkt[eng_phase_slot(c, in, j)];
    (*n)++;
    if (eng_in_class(c, e, pk->type)) *bytes += pk->wire;
  }
  return 1;
}

/* The switch's part, from its window's n arrivals of `bytes` in-class bytes:
 * 0 (not certified), 1 (certified), 2 (certified if every port's room is,
 * eng_phase_port_room: PFC or headroom in play). */
ENG_INLINE int eng_phase_room(const eng_ctx_t *k, int64_t n, int64_t bytes, int64_t max_n) {
  const eng_cols_t *c = k->c;
  const int32_t x = k->x, e = k->e;
  const int pfc = c->exp_pfc[e] != 0, hdrm = c->exp_pfc_headroom[e] >= 0;
  if (n == 0) return 0; /* nothing arrives: the serial step is as short */
  if (n > c->node[x].sw_free || n > max_n) return 0;
  if (!hdrm && c->node[x].buf_used + bytes > c->exp_buffer[e]) return 0;
  return !hdrm && !pfc ? 1 : 2;
}

/* Port lp's room, where eng_phase_room says 2: no headroom in use by its
 * classes, and each class's arrivals at this ingress stay below its
 * threshold at its lowest. */
ENG_INLINE int eng_phase_port_room(const eng_ctx_t *k, int32_t lp, int64_t t_end, int64_t bytes) {
  const eng_cols_t *c = k->c;
  const int32_t x = k->x, e = k->e, ip = k->p0 + lp, in = c->port[ip].peer;
  const int pfc = c->exp_pfc[e] != 0, hdrm = c->exp_pfc_headroom[e] >= 0;
  const int32_t ncl = c->exp_n_cls[e];
  if (hdrm && c->port[ip].cls_hdrm) return 0;
  const int64_t free_b = c->exp_buffer[e] - c->node[x].mmu_fixed - (c->node[x].shared + bytes);
  int64_t b[ENG_PHASE_CLS] = {0};
  for (uint32_t j = c->port[in].ring_head; eng_phase_due(c, in, j, t_end); j++) {
    const eng_pkt_t *pk = &c->ring_pkt[eng_phase_slot(c, in, j)];
    if (eng_in_class(c, e, pk->type)) b[pk->cls] += pk->wire;
  }
  const int64_t xoff = c->exp_pfc_xoff[e] > 0 ? c->exp_pfc_xoff[e]
                       : free_b > 0           ? (free_b * c->port[ip].pfc_a16) >> 16
                                              : 0;
  for (int32_t cl = 0; cl < ncl; cl++) {
    if (!b[cl]) continue;
    int32_t q = eng_cls(c, ip, cl);
    if (pfc && c->cls[q].hdrm > 0) return 0;
    int64_t over = c->cls[q].in_bytes + b[cl] - c->exp_pfc_reserve[e];
    if ((over > b[cl] ? over : b[cl]) >= xoff) return 0;
  }
  return 1;
}

/* Whether switch k->x's port rows' class bits agree with its class rows:
 * cls_live with the queues (dq_head), cls_hdrm with the headroom bytes. The
 * bits are kept beside the rows to be read at once; a stale one would cost
 * phases (cls_hdrm set) or exactness, so builds with asserts check them. */
ENG_INLINE int eng_phase_bits_ok(const eng_ctx_t *k) {
  const eng_cols_t *c = k->c;
  for (int32_t p = k->p0; p < k->p0 + c->node[k->x].n_ports; p++)
    for (int32_t cl = 0; cl < c->exp_n_cls[k->e]; cl++) {
      const eng_cls_t *r = &c->cls[eng_cls(c, p, cl)];
      if ((int)((c->port[p].cls_live >> cl) & 1u) != (r->dq_head >= 0) ||
          (int)((c->port[p].cls_hdrm >> cl) & 1u) != (r->hdrm > 0))
        return 0;
    }
  return 1;
}

/* Whether switch k->x's shared-buffer count is its ports' ingress classes'
 * shared bytes summed (eng_shared_port): every change to it is one class's
 * eng_shared_of after less before, so it is, at every step's end; the GPU's
 * pool may settle a certified window's changes at once by it
 * (MULTIVERSE_CUDA_SETTLE). Builds with asserts check it. */
ENG_INLINE int eng_phase_shared_ok(const eng_ctx_t *k) {
  const eng_cols_t *c = k->c;
  int64_t sum = 0;
  for (int32_t p = k->p0; p < k->p0 + c->node[k->x].n_ports; p++)
    sum += eng_shared_port(c, k->e, p);
  return sum == c->node[k->x].shared;
}

/* The certificate on one thread: the parts above, port after port. */
ENG_NOINLINE int eng_phase_ok(const eng_ctx_t *k, int64_t t_end, int64_t max_n) {
  const int32_t np = k->c->node[k->x].n_ports;
  assert(eng_phase_bits_ok(k));
  assert(eng_phase_shared_ok(k));
  if (!eng_phase_node_ok(k)) return 0;
  int64_t n = 0, bytes = 0;
  for (int32_t lp = 0; lp < np; lp++)
    if (!eng_phase_port_in(k, lp, t_end, &n, &bytes)) return 0;
  int r = eng_phase_room(k, n, bytes, max_n);
  for (int32_t lp = 0; r == 2 && lp < np; lp++)
    r = eng_phase_port_room(k, lp, t_end, bytes) ? 2 : 0;
  return r != 0;
}

/* S3 transmitting only: an egress's arrivals of a certified window join its
 * queues as entries of its stretch, not as descriptors. Whatever the order of
 * the window's events, the certificate proved that every arrival is admitted
 * and that nothing reads which descriptor row holds a packet, so an arrival
 * changes only the sums a queued packet adds (the buffer's, the queue's bytes,
 * its class's bit in cls_live) and takes its place at its queue's tail: after
 * the queue's descriptors (packets of earlier windows) and the stretch's
 * earlier entries of the same queue. A transmission takes the queue's head: a
 * descriptor while the queue has one, else its oldest pending entry, read from
 * the ring slot it arrived in (with its telemetry, to which the egress adds its
 * hop). The entries still queued at the egress's end become descriptors, in
 * order. So a packet that arrives and leaves within the window goes from ring
 * to ring. Queue 0 is the control queue, 1 + cl class cl's; a queue's pending
 * entries are listed in the order they arrived (the stretch's runs are merged
 * by time, so not in its order). */
typedef struct eng_ph_pend_t {
  int32_t head[ENG_PHASE_CLS + 1]; /* the queue's oldest pending entry (a stretch index) */
  int32_t tail[ENG_PHASE_CLS + 1]; /* its newest */
  int32_t n[ENG_PHASE_CLS + 1];    /* its entries that arrived and wait */
  uint32_t live;                   /* bit q: queue q has some (its head, tail and n are set) */
  int16_t *next;                   /* each entry's next in its queue, by stretch index */
  /* The stretch: the CPU's ring slots and ingresses, or the GPU's entries
   * (ent: ring slot << 32 | ingress << 16 | place; NULL on the CPU). */
  const int32_t *slot;
  const uint16_t *from;
  const int64_t *ent;
} eng_ph_pend_t;

/* No entry pending yet, over a stretch (the CPU's slot and from, or the
 * GPU's ent) whose links go in `next`. */
ENG_INLINE eng_ph_pend_t eng_ph_pend(int16_t *next, const int32_t *slot, const uint16_t *from,
                                     const int64_t *ent) {
  eng_ph_pend_t pd;
  pd.live = 0;
  pd.next = next;
  pd.slot = slot;
  pd.from = from;
  pd.ent = ent;
  return pd;
}

/* Stretch entry i's ring slot, and its ingress. */
ENG_INLINE int32_t eng_ph_slot(const eng_ph_pend_t *pd, int32_t i) {
  return pd->ent ? (int32_t)(pd->ent[i] >> 32) : pd->slot[i];
}

ENG_INLINE int32_t eng_ph_from(const eng_ph_pend_t *pd, int32_t i) {
  return pd->ent ? (int32_t)((pd->ent[i] >> 16) & 0xffff) : pd->from[i];
}

/* The queue of packet pk at a switch's egress (eng_ph_pend_t). */
ENG_INLINE int32_t eng_ph_queue(const eng_ctx_t *k, const eng_pkt_t *pk) {
  return eng_in_class(k->c, k->e, pk->type) ? 1 + pk->cls : 0;
}

/* The packet of stretch entry `s` (ring slot) from ingress lp, as the serial
 * step would have queued it (eng_relayed). */
ENG_INLINE eng_pkt_t eng_ph_pkt(const eng_cols_t *c, int32_t s, int32_t lp) {
  return eng_relayed(c->ring_pkt[s], lp);
}

/* Stretch entry i (ring slot `s`, from ingress lp) arrives at egress o of
 * switch k->x, the egress S1 routed it to (eng_relay without the route and
 * without a descriptor). The certificate proved, whatever the order of the
 * window's events, a descriptor for every arrival, room in the buffer below
 * every threshold and no headroom in use: so the packet is admitted without
 * headroom and sends no PAUSE, and those tests are not run again (on the GPU
 * each is a chain of loads on the egress's serial path); only their sums
 * remain. */
ENG_INLINE void eng_ph_arrive(eng_ctx_t *k, int32_t lp, int32_t s, int32_t o, int32_t i,
                              eng_ph_pend_t *pd) {
  eng_cols_t *c = k->c;
  const eng_pkt_t *pk = &c->ring_pkt[s];
  const int32_t ep = k->p0 + o, q = eng_ph_queue(k, pk);
  eng_node_add_i32(k->lock, &c->node[k->x].sw_free, -1);
  if (q) {
    eng_admit_shared(k, eng_cls(c, k->p0 + lp, pk->cls), pk->wire);
    eng_queue_bytes(c, ep, eng_cls(c, ep, pk->cls), pk->wire);
    c->port[ep].cls_live |= (uint8_t)(1u << pk->cls);
  }
  if ((pd->live >> q) & 1u) {
    pd->next[pd->tail[q]] = (int16_t)i;
    pd->n[q]++;
  } else {
    pd->live |= 1u << q;
    pd->head[q] = i;
    pd->n[q] = 1;
  }
  pd->tail[q] = i;
}

/* The oldest pending entry of queue q leaves it; returns its stretch index. */
ENG_INLINE int32_t eng_ph_take(eng_ph_pend_t *pd, int32_t q) {
  const int32_t i = pd->head[q];
  if (--pd->n[q])
    pd->head[q] = pd->next[i];
  else
    pd->live &= ~(1u << q);
  return i;
}

/* Time egress o of switch k->x may next transmit (eng_tx_time, with its
 * pending control packets). */
ENG_INLINE int64_t eng_ph_tx_time(const eng_ctx_t *k, int32_t o, const eng_ph_pend_t *pd) {
  if (!(pd->live & 1u)) return eng_tx_time(k, o);
  const int64_t busy = k->c->port[k->p0 + o].busy_until;
  return busy > k->now ? busy : k->now;
}

/* A transmission of egress o of switch k->x, its queues' heads descriptors or
 * pending entries: eng_tx where no own flow can send and the control queue
 * never waits (eng_ctrl_held). It calls nothing out of line, so the GPU keeps
 * the context in registers: eng_tx's host branch (eng_flow_eval) took its
 * address and put it in local memory, a load on the egress's serial path at
 * each of its fields' reads. */
ENG_INLINE void eng_ph_tx(eng_ctx_t *k, int32_t o, eng_ph_pend_t *pd) {
  eng_cols_t *c = k->c;
  const int32_t p = k->p0 + o;
  int32_t s = -1, rs = -1, cl;
  eng_pkt_t pk;
  if (c->port[p].cq_head >= 0) {
    s = eng_q_pop(c, &c->port[p].cq_head, &c->port[p].cq_tail);
    pk = c->pool_pkt[s];
  } else if (pd->live & 1u) {
    const int32_t i = eng_ph_take(pd, 0);
    rs = eng_ph_slot(pd, i);
    pk = eng_ph_pkt(c, rs, eng_ph_from(pd, i));
  } else if ((cl = eng_next_class(c, k->e, p)) >= 0) {
    const int32_t q = eng_cls(c, p, cl);
    c->port[p].rr_cls = cl;
    if (c->cls[q].dq_head >= 0) {
      pk = eng_dequeue_class(k, p, q, &s);
      if ((pd->live >> (1 + cl)) & 1u) c->port[p].cls_live |= (uint8_t)(1u << cl);
    } else {
      const int32_t i = eng_ph_take(pd, 1 + cl);
      if (!((pd->live >> (1 + cl)) & 1u)) c->port[p].cls_live &= (uint8_t) ~(1u << cl);
      rs = eng_ph_slot(pd, i);
      pk = eng_dequeue_acct(k, p, q, eng_ph_pkt(c, rs, eng_ph_from(pd, i)),
                            eng_int(k, c->rint_v, rs));
    }
  } else {
    return;
  }
  if (s >= 0) {
    eng_emit(k, p, pk, eng_int(k, c->pint_v, s));
    eng_pool_give(k, s); /* after its telemetry went with it */
  } else {
    eng_emit(k, p, pk, eng_int(k, c->rint_v, rs));
    eng_node_add_i32(k->lock, &c->node[k->x].sw_free, 1);
  }
}

/* The entries still queued at egress o's end become descriptors at their
 * queues' tails, in order (eng_enqueue; their sums were added as they
 * arrived). */
ENG_INLINE void eng_ph_settle_queues(eng_ctx_t *k, int32_t o, const eng_ph_pend_t *pd) {
  eng_cols_t *c = k->c;
  const int32_t ep = k->p0 + o;
  for (uint32_t live = pd->live; live; live &= live - 1u) {
    const int32_t q = eng_ctz32(live);
    for (int32_t m = 0, i = pd->head[q]; m < pd->n[q]; m++, i = pd->next[i]) {
      const int32_t rs = eng_ph_slot(pd, i);
      const eng_pkt_t pk = eng_ph_pkt(c, rs, eng_ph_from(pd, i));
      if (eng_enqueue(k, ep, pk, eng_int(k, c->rint_v, rs), q ? eng_cls(c, ep, q - 1) : -1)) return;
    }
  }
}

/* The run of the earliest next arrival among r runs' head times (ties: the
 * lower ingress, the run before), its time in *bt; -1 when none is left. */
ENG_INLINE int32_t eng_ph_least(const int64_t *head_t, int32_t r, int64_t *bt) {
  int32_t bq = -1;
  *bt = ENG_INF;
  for (int32_t q = 0; q < r; q++)
    if (head_t[q] < *bt) {
      *bt = head_t[q];
      bq = q;
    }
  return bq;
}

/* The window of switch k->x (certified by eng_phase_ok with at most
 * ENG_PHASE_CPU_MAX arrivals) in two phases. S1: each ingress routes its
 * arrivals, writing the egress into the ring slot's `next` (a consumed slot:
 * only this step reads it again), and the arrivals are dealt to their egresses
 * in ingress order, then ring order (a counting sort: port_ph_cur counts, then
 * ends each egress's stretch), which consumes each ingress's window; a packet
 * with no route fails its experiment as eng_relay would. S3: each egress
 * merges its stretch, by time and then ingress, with its transmissions
 * (eng_ph_tx at max(busy, now)), transmitting only: an arrival joins the
 * egress S1 dealt it to as a pending entry (eng_ph_arrive: not routed a second
 * time, no descriptor), and those still queued at the egress's end become
 * descriptors (eng_ph_settle_queues); the GPU's S3 (cu_ph_serve) does the
 * same with its sorted scratch entries. k->now ends at the last event's time. Returns its critical
 * path: the busiest ingress's and the busiest egress's events (the ingress's in *in_path). */
ENG_NOINLINE int32_t eng_phase_step(eng_ctx_t *k, int64_t t_end, int32_t *in_path) {
  eng_cols_t *c = k->c;
  const int32_t x = k->x, p0 = k->p0, np = c->node[x].n_ports;
  const int64_t now0 = k->now;
  int64_t last = now0;
  int32_t most_in = 0, most_out = 0;
  int32_t slot[ENG_PHASE_CPU_MAX]; /* the arrivals, grouped by egress */
  uint16_t from[ENG_PHASE_CPU_MAX]; /* each one's ingress */
  int16_t cur[ENG_PHASE_CPU_MAX], end[ENG_PHASE_CPU_MAX]; /* an egress's runs of one ingress */
  int64_t head_t[ENG_PHASE_CPU_MAX]; /* the time of each run's next arrival, ENG_INF: none */
  int16_t nxt[ENG_PHASE_CPU_MAX];    /* an entry's next in its queue (eng_ph_pend_t) */
  for (int32_t o = 0; o < np; o++)
    c->port_ph_cur[p0 + o] = 0;
  for (int32_t lp = 0; lp < np; lp++) { /* S1 */
    int32_t in = c->port[p0 + lp].peer, n = 0;
    for (uint32_t j = c->port[in].ring_head; eng_phase_due(c, in, j, t_end); j++, n++) {
      eng_pkt_t *pk = &c->ring_pkt[eng_phase_slot(c, in, j)];
      pk->next = eng_route_relay(c, x, (int32_t)pk->flow, pk->type, pk->psn, pk->t);
      if (pk->next >= 0) {
        c->port_ph_cur[p0 + pk->next]++;
      } else {
        eng_fail(k, ENG_FAIL_ROUTE);
        if (pk->t > last) last = pk->t;
      }
    }
    k->events += n;
    if (n > most_in) most_in = n;
  }
  for (int32_t o = 0, sum = 0; o < np; o++) { /* each egress's stretch starts */
    int32_t m = c->port_ph_cur[p0 + o];
    c->port_ph_cur[p0 + o] = sum;
    sum += m;
  }
  for (int32_t lp = 0; lp < np; lp++) { /* deal, in ingress then ring order */
    int32_t in = c->port[p0 + lp].peer;
    uint32_t j = c->port[in].ring_head;
    for (; eng_phase_due(c, in, j, t_end); j++) {
      int32_t s = eng_phase_slot(c, in, j), o = c->ring_pkt[s].next;
      if (o < 0) continue;
      int32_t i = c->port_ph_cur[p0 + o]++; /* now the stretch's end */
      slot[i] = s;
      from[i] = (uint16_t)lp;
    }
    /* Consumed: S3 reads the arrivals by slot, and the link's producer
     * reuses a slot only after the commit (ring_hsnap). */
    c->port[in].ring_head = j;
  }
  for (int32_t o = 0; o < np; o++) { /* S3 */
    const int32_t a = o ? c->port_ph_cur[p0 + o - 1] : 0, b = c->port_ph_cur[p0 + o];
    int32_t n = 0, r = 0;
    for (int32_t i = a; i < b; i++)
      if (i == a || from[i] != from[i - 1]) {
        if (r) end[r - 1] = (int16_t)i;
        cur[r++] = (int16_t)i;
      }
    if (r) end[r - 1] = (int16_t)b;
    for (int32_t q = 0; q < r; q++)
      head_t[q] = c->ring_pkt[slot[cur[q]]].t;
    eng_ph_pend_t pd = eng_ph_pend(nxt, slot, from, NULL);
    k->now = now0;
    int64_t bt; /* the next arrival's run and time: only an arrival moves them */
    int32_t bq = eng_ph_least(head_t, r, &bt);
    for (;;) {
      int64_t tx = eng_ph_tx_time(k, o, &pd);
      if (bq >= 0 && bt <= tx) { /* an arrival goes before a transmission of its instant */
        const int32_t i = cur[bq]++;
        k->now = bt;
        eng_ph_arrive(k, from[i], slot[i], o, i, &pd);
        head_t[bq] = cur[bq] < end[bq] ? c->ring_pkt[slot[cur[bq]]].t : ENG_INF;
        bq = eng_ph_least(head_t, r, &bt);
      } else if (tx < t_end) {
        k->now = tx;
        eng_ph_tx(k, o, &pd);
        k->events++;
      } else {
        break;
      }
      n++;
      if (k->now > last) last = k->now;
    }
    if (pd.live) eng_ph_settle_queues(k, o, &pd);
    if (n > most_out) most_out = n;
  }
  k->now = last;
  *in_path = most_in;
  return most_in + most_out;
}

#endif

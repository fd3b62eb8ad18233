/* ref: the event handlers of docs/model.md (arrivals, PFC frames, timers, task
 * events, transmissions) and the sequential run loop over the global event heap.
 *
 * Readings of points model.md leaves open (the engine must agree):
 * - End (model.md): the run goes on after the last task ends until no event is
 *   pending (the network drains), so counters cover the late duplicates and
 *   their ACKs; last_end_ps is the latest task end. Stale timers, stale task
 *   starts (a start moved earlier) and no-op TX events are not events: they do
 *   not decide the status (a pending stale timer past max_time does not make a
 *   run timed_out, nor keep a drained run from failing). Task starts and
 *   compute ends are events: one past max_time with tasks unfinished times out.
 * - Equal keys at one node (t, class, index) run in creation order: a PAUSE and a
 *   RESUME sent on one port at one instant arrive together and apply in order.
 * - An event created at the current instant with a smaller key than the one
 *   being processed (a multi-port host's TX on port p making a lower port
 *   eligible, spraying; a task start made possible by a later task's end) runs
 *   next, before the remaining events of the instant.
 * - A relaying host does a switch's job for relayed data: buffer accounting,
 *   ECN marking and PFC pause/resume, with its own pool (default as a switch's);
 *   its own flows' data is never buffered and it serves control, relayed data,
 *   then own flows.
 * - A NACK counts as sent for its rcv_nxt even when no host descriptor was free.
 * - Every CE marking decision counts in ecn_marks, even on a packet already CE.
 * - ECN with no thresholds (no explicit values, empty table) never marks.
 * Tasks (ref_task.c):
 * - A stream member also waits for the previous member's end, a condition of
 *   its own outside `need` (need counts edges, as tg_check does); that end
 *   enters K, so delay follows it: start = max(start, max(K_edges, prev end) +
 *   delay). A member whose only predecessor is the previous one has
 *   predecessors: its start field is a lower bound and delay applies. A task
 *   with no edges and no previous member starts at its start (no delay).
 * - Every edge is one event: two edges from one predecessor count twice in need
 *   and in K.
 * - need = k: K is the k-th smallest known time over the edge events. A start
 *   only moves earlier, and an event known before K happens before the start,
 *   so the start is max(start, K + delay) with K over all edge events.
 * - Ranks: the round robin runs over ranks modulo F, the host's number of flow
 *   tasks (rr starts at F-1); ranks not given yet (flows not started) are
 *   skipped: after rr, the next given rank above it, else the lowest.
 * - Spraying's `flow` is the flow's task index (its line for a flow file).
 * - A flow's recv is noted at the end of the ARRIVE that brings rcv_nxt to n
 *   (after its ACK and CNP); with reorder, when rcv_nxt jumps to n.
 * - HPCC's base RTT follows the flow's ECMP paths (the data's hash out, the
 *   ACK's back) whatever lb: ser(mtu + header) + delay per hop out, ser(ctrl)
 *   + delay per hop back.
 * - Flows use their sport and dport as given (tg_assign_ports fills zeros).
 * - A cyclic graph is not rejected: its tasks never start; the run fails. */
#include <math.h>
#include <string.h>

#include "ref/ref_int.h"
#include "sim/eng_hash.h"

void ref_push(ref_sim_t *s, int64_t t, int32_t node, int32_t cls, int32_t index, int32_t aux,
              const ref_pkt_t *pkt) {
  ref_event_t e = {.t = t, .node = node, .cls = cls, .index = index, .aux = aux};
  if (pkt) e.pkt = *pkt;
  ref_heap_push(&s->heap, &e);
}

/* Port lp of x may have something to send: try at max(t, busy_until). Extra TX
 * events are harmless (a TX that finds the port busy or nothing to send is a
 * no-op), so callers kick whenever in doubt. */
void ref_kick(ref_sim_t *s, int32_t x, int32_t lp, int64_t t) {
  int64_t b = s->ports[s->nodes[x].port0 + lp].busy_until;
  ref_push(s, t > b ? t : b, x, REF_EV_TX, lp, 0, NULL);
}

static void kick_all(ref_sim_t *s, int32_t x, int64_t t) {
  for (int32_t lp = 0; lp < s->nodes[x].n_ports; lp++)
    ref_kick(s, x, lp, t);
}

/* ---- arrivals --------------------------------------------------------- */

/* A switch, or a relaying host that is not the destination, takes the packet
 * in: its class queue (data; ACK/NACK with ack_with_data) if the buffer
 * admits it, else the control queue. */
static void forward(ref_sim_t *s, int32_t x, int32_t i, ref_pkt_t pkt, int64_t t) {
  ref_node_t *nd = &s->nodes[x];
  int32_t e = ref_route(s, x, &pkt, 1, t);
  ref_port_t *out = &s->ports[nd->port0 + e];
  pkt.in_port = i;
  pkt.host_slot = 0;
  if (nd->pool_free == 0) {
    s->res->drops++;
    return;
  }
  if (ref_in_class(s, pkt.kind)) {
    int32_t cl = ref_class(s, pkt.flow);
    if (!ref_admit(s, x, i, cl, pkt.wire, t)) {
      s->res->drops++;
      return;
    }
    nd->pool_free--;
    out->q += pkt.wire;
    out->qc[cl] += pkt.wire;
    ref_fifo_push(&out->data[cl], &pkt);
  } else {
    nd->pool_free--;
    ref_fifo_push(&out->ctrl, &pkt);
  }
  ref_kick(s, x, e, t);
}

/* The receiver host x emits ACK/NACK(seq) of flow f, if a control descriptor is
 * free. */
static void send_ctrl(ref_sim_t *s, int32_t x, int32_t f, int32_t kind, int64_t seq, uint8_t ce,
                      const cc_int_t *tel, int64_t t) {
  ref_node_t *nd = &s->nodes[x];
  if (nd->host_free == 0) {
    s->res->drops++;
    return;
  }
  ref_pkt_t pkt = {
      .flow = f, .kind = kind, .seq = seq, .wire = s->p->ctrl_bytes, .ce = ce, .host_slot = 1};
  if (ce && cc_ack_is_cnp(&s->ccp)) s->res->cnps++; /* the ACK/NACK carries the CNP flag */
  if (tel) pkt.tel = *tel;                          /* the ACK echoes the data packet's telemetry */
  int32_t e = ref_route(s, x, &pkt, 0, t);
  nd->host_free--;
  ref_fifo_push(&s->ports[nd->port0 + e].ctrl, &pkt);
  ref_kick(s, x, e, t);
}

/* Re-order tolerant receiver (model.md): a packet at or beyond rcv_nxt is held
 * if it lies within ENG_RX_WINDOW packets after rcv_nxt, else dropped; rcv_nxt
 * then moves past every held packet; an ACK goes out when it passes a multiple
 * of ack_every or reaches the end. */
static void at_receiver_reorder(ref_sim_t *s, int32_t x, const ref_pkt_t *pkt, int64_t t) {
  ref_flow_t *fs = &s->flows[pkt->flow];
  if (pkt->seq > fs->rcv_nxt) {
    if (pkt->seq - fs->rcv_nxt - 1 >= ENG_RX_WINDOW)
      s->res->drops++;
    else
      fs->held[pkt->seq] = 1;
    return;
  }
  int64_t old = fs->rcv_nxt;
  fs->rcv_nxt++;
  while (fs->rcv_nxt < fs->n && fs->held[fs->rcv_nxt])
    fs->rcv_nxt++;
  if (fs->rcv_nxt / s->p->ack_every > old / s->p->ack_every || fs->rcv_nxt == fs->n)
    send_ctrl(s, x, pkt->flow, REF_ACK, fs->rcv_nxt, pkt->ce, &pkt->tel, t);
}

static void at_receiver(ref_sim_t *s, int32_t x, const ref_pkt_t *pkt, int64_t t) {
  ref_flow_t *fs = &s->flows[pkt->flow];
  if (s->p->reorder && pkt->seq >= fs->rcv_nxt) {
    at_receiver_reorder(s, x, pkt, t);
  } else if (pkt->seq == fs->rcv_nxt) {
    fs->rcv_nxt++;
    if (fs->rcv_nxt % s->p->ack_every == 0 || fs->rcv_nxt == fs->n)
      send_ctrl(s, x, pkt->flow, REF_ACK, fs->rcv_nxt, pkt->ce, &pkt->tel, t);
  } else if (pkt->seq > fs->rcv_nxt) {
    /* The NACK counts as sent even if no descriptor was free for it. */
    if (fs->nack_for != fs->rcv_nxt) {
      fs->nack_for = fs->rcv_nxt;
      send_ctrl(s, x, pkt->flow, REF_NACK, fs->rcv_nxt, pkt->ce, &pkt->tel, t);
    }
  } else {
    send_ctrl(s, x, pkt->flow, REF_ACK, fs->rcv_nxt, pkt->ce, &pkt->tel, t);
  }
  /* DCQCN notification point: a CNP after the ACK, at most one per interval. */
  if (pkt->ce && cc_np_cnp(&s->ccp, fs->cnp_last, t)) {
    fs->cnp_last = t;
    s->res->cnps++;
    send_ctrl(s, x, pkt->flow, REF_CNP, 0, 0, NULL, t);
  }
  if (fs->rcv_nxt == fs->n && s->res->recv_ps[pkt->flow] < 0) { /* the flow's recv */
    s->res->recv_ps[pkt->flow] = t;
    ref_task_happened(s, pkt->flow, TG_ON_RECV, x, t);
  }
}

/* Next timer of flow f: retransmission or congestion control (-1: none). */
static int64_t flow_timer(const ref_sim_t *s, int32_t f) {
  const ref_flow_t *fs = &s->flows[f];
  int64_t c = cc_timer_at(&fs->alg, &s->ccp);
  if (fs->rto_at >= 0 && fs->rto_at < c) c = fs->rto_at;
  return c == CC_NEVER ? -1 : c;
}

/* Schedules a timer event at the flow's next timer; events that find the
 * timer moved are stale. */
static void arm_timer(ref_sim_t *s, int32_t f) {
  int64_t at = flow_timer(s, f);
  if (at >= 0) ref_push(s, at, s->g->t[f].host, REF_EV_TIMER, s->flows[f].rank, 0, NULL);
}

static void set_timer(ref_sim_t *s, int32_t f, int64_t at) {
  s->flows[f].rto_at = at;
  arm_timer(s, f);
}

static void at_sender(ref_sim_t *s, int32_t x, const ref_pkt_t *pkt, int64_t t) {
  int32_t f = pkt->flow;
  ref_flow_t *fs = &s->flows[f];
  if (pkt->kind == REF_CNP) {
    if (!fs->finished) {
      cc_on_cnp(&fs->alg, &s->ccp, t);
      arm_timer(s, f);
    }
    return;
  }
  int64_t una0 = fs->snd_una;
  if (pkt->kind == REF_ACK) {
    if (pkt->seq > fs->snd_una) {
      fs->snd_una = pkt->seq;
      if (fs->snd_una < fs->n)
        set_timer(s, f, t + s->p->rto);
      else
        fs->rto_at = -1;
    }
  } else if (pkt->seq >= fs->snd_una) { /* NACK; below snd_una it is stale */
    fs->snd_una = pkt->seq;
    fs->snd_nxt = pkt->seq;
    set_timer(s, f, t + s->p->rto);
  }
  if (fs->snd_nxt < fs->snd_una) fs->snd_nxt = fs->snd_una;
  cc_on_ack(&fs->cc, &fs->alg, &s->ccp, (uint32_t)(fs->snd_una - una0), pkt->ce,
            (uint32_t)fs->snd_una, (uint32_t)fs->snd_nxt, s->p->mtu, (uint32_t)pkt->seq,
            s->ccp.kind == CC_HPCC ? &pkt->tel : NULL);
  if (pkt->ce && cc_ack_is_cnp(&s->ccp) && !fs->finished) { /* dcqcn_ns3: the CNP flag */
    cc_on_cnp(&fs->alg, &s->ccp, t);
    arm_timer(s, f);
  }
  if (fs->snd_una == fs->n && !fs->finished) {
    fs->finished = 1;
    fs->rto_at = -1;
    cc_on_finish(&fs->alg, &s->ccp);
    ref_task_end(s, f, t); /* the flow's end, at its source */
  }
  kick_all(s, x, t); /* go-back-N may have made the flow eligible */
}

static void arrive(ref_sim_t *s, const ref_event_t *ev) {
  int32_t x = ev->node;
  const ref_pkt_t *pkt = &ev->pkt;
  const tg_task_t *f = &s->g->t[pkt->flow];
  if (pkt->kind == REF_DATA && f->dst == x)
    at_receiver(s, x, pkt, ev->t);
  else if (pkt->kind != REF_DATA && f->host == x)
    at_sender(s, x, pkt, ev->t);
  else {
    REF_CHECK(s->t->forwards[x] || s->t->is_switch[x]);
    forward(s, x, ev->index, *pkt, ev->t);
  }
}

/* ---- timers ------------------------------------------------------------ */

static int timer_stale(const ref_sim_t *s, const ref_event_t *ev) {
  int32_t f = s->nodes[ev->node].flows[ev->index];
  return s->flows[f].finished || flow_timer(s, f) != ev->t;
}

/* The retransmission timer first (go back to snd_una), then the CC's timers. */
static void timer(ref_sim_t *s, const ref_event_t *ev) {
  int32_t f = s->nodes[ev->node].flows[ev->index];
  ref_flow_t *fs = &s->flows[f];
  if (fs->rto_at == ev->t && fs->snd_una < fs->n) {
    fs->snd_nxt = fs->snd_una;
    fs->rto_at = ev->t + s->p->rto;
    s->res->timeouts++;
  }
  if (cc_timer_at(&fs->alg, &s->ccp) == ev->t) cc_on_timer(&fs->cc, &fs->alg, &s->ccp, ev->t);
  arm_timer(s, f);
  kick_all(s, ev->node, ev->t);
}

/* ---- transmission ------------------------------------------------------- */

/* Payload bytes of flow f sent and not acknowledged. */
static int64_t ref_inflight(const ref_sim_t *s, int32_t f) {
  const ref_flow_t *fs = &s->flows[f];
  int64_t hi = fs->snd_nxt * s->p->mtu;
  if (hi > (int64_t)s->g->t[f].bytes) hi = (int64_t)s->g->t[f].bytes;
  return hi - fs->snd_una * s->p->mtu;
}

/* Rank of the host's next eligible flow whose next packet leaves by lp, or -1:
 * ranks rr+1, rr+2, ... modulo the host's flow task count; a rank not given yet
 * (its flow has not started) is skipped. */
static int32_t host_pick(ref_sim_t *s, int32_t x, int32_t lp, int64_t t) {
  const ref_node_t *nd = &s->nodes[x];
  for (int32_t k = 1; k <= nd->max_flows; k++) {
    int32_t r = (nd->rr + k) % nd->max_flows;
    if (r >= nd->n_flows) continue;
    int32_t f = nd->flows[r];
    const ref_flow_t *fs = &s->flows[f];
    if (fs->snd_nxt >= fs->n) continue;
    int64_t ready = cc_ready_at(&fs->cc, &fs->alg, &s->ccp, ref_inflight(s, f));
    if (ready == CC_NEVER || ready > t) continue;
    if (s->ports[nd->port0 + lp].paused[ref_class(s, f)]) continue;
    ref_pkt_t probe = {.flow = f, .kind = REF_DATA, .seq = fs->snd_nxt};
    if (nd->n_ports == 1 || ref_route(s, x, &probe, 0, t) == lp) return r;
  }
  return -1;
}

enum { SRC_NONE, SRC_CTRL, SRC_QUEUE, SRC_FLOW };

/* A host port with nothing to send at t: try again when the first of its
 * started flows paced by congestion control may send. */
static void kick_later(ref_sim_t *s, int32_t x, int32_t lp, int64_t t) {
  const ref_node_t *nd = &s->nodes[x];
  int64_t best = INT64_MAX;
  for (int32_t k = 0; k < nd->n_flows; k++) {
    int32_t f = nd->flows[k];
    const ref_flow_t *fs = &s->flows[f];
    if (fs->snd_nxt >= fs->n) continue;
    ref_pkt_t probe = {.flow = f, .kind = REF_DATA, .seq = fs->snd_nxt};
    if (nd->n_ports > 1 && ref_route(s, x, &probe, 0, t) != lp) continue;
    int64_t r = cc_ready_at(&fs->cc, &fs->alg, &s->ccp, ref_inflight(s, f));
    if (r == CC_NEVER) continue;
    if (r > t && r < best) best = r;
  }
  if (best < INT64_MAX) ref_push(s, best, x, REF_EV_TX, lp, 0, NULL);
}

/* The control queue's head waits (ack_pause): a host's ACK/NACK whose flow's
 * class is paused on this port. */
static int ctrl_held(const ref_sim_t *s, int32_t x, const ref_port_t *pt) {
  if (!s->p->ack_pause || s->nodes[x].is_switch) return 0;
  const ref_pkt_t *h = &pt->ctrl.buf[pt->ctrl.head];
  return h->kind != REF_CNP && pt->paused[ref_class(s, h->flow)];
}

/* Round robin among the class queues after the one served last: the first
 * holding packets and not paused; -1 if none. */
static int32_t next_class(const ref_sim_t *s, const ref_port_t *pt) {
  for (int32_t k = 1; k <= s->n_cls; k++) {
    int32_t c = (pt->rr + k) % s->n_cls;
    if (pt->data[c].len && !pt->paused[c]) return c;
  }
  return -1;
}

/* What a TX of port lp of x at t would send (no side effects). */
static int tx_source(ref_sim_t *s, int32_t x, int32_t lp, int64_t t, int32_t *rank) {
  const ref_node_t *nd = &s->nodes[x];
  const ref_port_t *pt = &s->ports[nd->port0 + lp];
  if (pt->busy_until > t) return SRC_NONE;
  if (pt->ctrl.len && !ctrl_held(s, x, pt)) return SRC_CTRL;
  if (next_class(s, pt) >= 0) return SRC_QUEUE; /* only forwarding nodes queue data */
  if (nd->is_switch || nd->n_flows == 0) return SRC_NONE;
  *rank = host_pick(s, x, lp, t);
  return *rank >= 0 ? SRC_FLOW : SRC_NONE;
}

/* The next packet of a forwarding node's class queues leaves: accounting and
 * resume; data: ECN, and HPCC's telemetry hop. */
static void dequeue_class(ref_sim_t *s, int32_t x, int32_t lp, ref_pkt_t *pkt, int64_t t) {
  ref_node_t *nd = &s->nodes[x];
  ref_port_t *pt = &s->ports[nd->port0 + lp];
  int32_t cl = next_class(s, pt);
  pt->rr = cl;
  ref_fifo_pop(&pt->data[cl], pkt);
  nd->pool_free++;
  pt->q -= pkt->wire;
  pt->qc[cl] -= pkt->wire;
  ref_release(s, x, pkt->in_port, cl, pkt->wire, t);
  if (pkt->kind != REF_DATA) return;
  uint64_t c = pt->n_deq++; /* data packets this port dequeued before this one */
  if (s->p->ecn && pt->ecn_ok) {
    int mark = 0;
    int64_t q = pt->qc[cl]; /* the class queue's bytes */
    if (q > pt->kmax)
      mark = 1;
    else if (q > pt->kmin) {
      uint64_t u = eng_rng_u32(s->seed, (uint32_t)x, (uint32_t)lp, c);
      mark = u < pt->pmax_q32 * (uint64_t)(q - pt->kmin) / (uint64_t)(pt->kmax - pt->kmin);
    }
    if (mark) {
      pkt->ce = 1;
      s->res->ecn_marks++;
    }
  }
  if (s->ccp.kind == CC_HPCC && pkt->tel.nhop < CC_INT_HOPS) { /* HPCC: this hop */
    /* ns-3's units (hpcc_int_multi) count the bytes sent before the packet */
    uint64_t sent = pt->tx_bytes + (s->ccp.int_multi > 0 ? 0 : (uint64_t)pkt->wire);
    cc_int_hop_t *h = &pkt->tel.hop[pkt->tel.nhop++];
    *h = (cc_int_hop_t){.ts = t,
                        .qlen = (uint32_t)pt->q,
                        .tx = (uint32_t)sent,
                        .rate_mbps = (uint32_t)(pt->rate / 1000000),
                        .tx_hi = (uint32_t)(sent >> 32)};
  }
}

/* Starts pkt on port lp of x at t: busy time, loss draw, arrival at the peer. */
static void transmit(ref_sim_t *s, int32_t x, int32_t lp, const ref_pkt_t *pkt, int64_t t) {
  ref_port_t *pt = &s->ports[s->nodes[x].port0 + lp];
  int64_t ser = ref_ser_at(s->p, pkt->wire, pt->rate);
  uint64_t k = pt->n_tx++; /* earlier transmissions on this port */
  pt->tx_bytes += (uint64_t)pkt->wire;
  pt->busy_until = t + ser;
  s->res->packet_hops++;
  if (pt->loss_q32 && eng_rng_u32(s->seed, (uint32_t)x, 0x10000u + (uint32_t)lp, k) < pt->loss_q32)
    s->res->drops++;
  else
    ref_push(s, t + ser + pt->delay, pt->peer, REF_EV_ARRIVE, pt->peer_port, 0, pkt);
  ref_push(s, pt->busy_until, x, REF_EV_TX, lp, 0, NULL);
}

static void tx(ref_sim_t *s, int32_t x, int32_t lp, int64_t t, int src, int32_t rank) {
  ref_node_t *nd = &s->nodes[x];
  ref_port_t *pt = &s->ports[nd->port0 + lp];
  ref_pkt_t pkt;
  if (src == SRC_CTRL) {
    ref_fifo_pop(&pt->ctrl, &pkt);
    if (pkt.host_slot)
      nd->host_free++;
    else
      nd->pool_free++;
  } else if (src == SRC_QUEUE) {
    dequeue_class(s, x, lp, &pkt, t);
  } else { /* a new data packet of the flow of this rank */
    int32_t f = nd->flows[rank];
    ref_flow_t *fs = &s->flows[f];
    nd->rr = rank;
    pkt = (ref_pkt_t){.flow = f, .kind = REF_DATA, .seq = fs->snd_nxt};
    pkt.wire = ref_wire(s, f, fs->snd_nxt);
    if (fs->snd_nxt < fs->max_sent) s->res->retransmits++;
    fs->snd_nxt++;
    if (fs->snd_nxt > fs->max_sent) fs->max_sent = fs->snd_nxt;
    if (fs->rto_at < 0) set_timer(s, f, t + s->p->rto);
    cc_on_send(&fs->cc, &fs->alg, &s->ccp, t, pkt.wire);
  }
  transmit(s, x, lp, &pkt, t);
  /* A multi-port host's next packet may leave by another port (spraying). */
  if (src == SRC_FLOW && nd->n_ports > 1) kick_all(s, x, t);
}

/* ---- run loop ------------------------------------------------------------ */

static void process(ref_sim_t *s, const ref_event_t *ev, int src, int32_t rank) {
  switch (ev->cls) {
  case REF_EV_PFC: { /* aux: class * 2 + pause */
    ref_port_t *pt = &s->ports[s->nodes[ev->node].port0 + ev->index];
    pt->paused[ev->aux / 2] = (uint8_t)(ev->aux % 2);
    if (ev->aux % 2 == 0) ref_kick(s, ev->node, ev->index, ev->t);
    break;
  }
  case REF_EV_ARRIVE:
    arrive(s, ev);
    break;
  case REF_EV_TIMER:
    timer(s, ev);
    break;
  case REF_EV_TASK:
    ref_task_event(s, ev);
    break;
  default:
    tx(s, ev->node, ev->index, ev->t, src, rank);
  }
}

/* Pops events in key order until the heap empties (ok if every task ended,
 * else failed) or the next event is past max_time. Stale timers, stale task
 * starts and no-op TX events are discarded: they do not decide the status. */
static void run(ref_sim_t *s) {
  ref_result_t *r = s->res;
  while (s->heap.n > 0) {
    ref_event_t ev;
    ref_heap_pop(&s->heap, &ev);
    int src = SRC_NONE;
    int32_t rank = -1;
    if (ev.cls == REF_EV_TIMER && timer_stale(s, &ev)) continue;
    if (ev.cls == REF_EV_TASK && ref_task_stale(s, &ev)) continue;
    if (ev.cls == REF_EV_TX && (src = tx_source(s, ev.node, ev.index, ev.t, &rank)) == SRC_NONE) {
      const ref_port_t *pt = &s->ports[s->nodes[ev.node].port0 + ev.index];
      if (pt->busy_until <= ev.t && !s->nodes[ev.node].is_switch)
        kick_later(s, ev.node, ev.index, ev.t);
      continue;
    }
    if (ev.t > s->p->max_time) { /* ok if only the drain was left */
      r->status = s->unfinished == 0 ? REF_OK : REF_TIMED_OUT;
      return;
    }
    process(s, &ev, src, rank);
  }
  r->status = s->unfinished == 0 ? REF_OK : REF_FAILED;
}

void ref_flow_start(ref_sim_t *s, int32_t f, int64_t t) {
  int32_t x = s->g->t[f].host;
  ref_node_t *nd = &s->nodes[x];
  REF_CHECK(nd->n_flows < nd->max_flows);
  s->flows[f].rank = nd->n_flows;
  nd->flows[nd->n_flows++] = f;
  kick_all(s, x, t);
}

int ref_run(const topo_t *t, const tg_t *g, const eng_params_t *p, uint64_t seed,
            ref_result_t *out) {
  memset(out, 0, sizeof *out);
  ref_sim_t s = {.t = t, .g = g, .p = p, .seed = seed, .res = out};
  size_t n = g->n ? (size_t)g->n : 1;
  out->n_tasks = g->n;
  out->start_ps = malloc(n * sizeof *out->start_ps);
  out->end_ps = malloc(n * sizeof *out->end_ps);
  out->recv_ps = malloc(n * sizeof *out->recv_ps);
  int rc = !out->start_ps || !out->end_ps || !out->recv_ps ? -1 : 0;
  for (int32_t i = 0; rc == 0 && i < g->n; i++)
    out->start_ps[i] = out->end_ps[i] = out->recv_ps[i] = -1;
  if (rc == 0) rc = ref_net_init(&s);
  if (rc == 0) rc = ref_tasks_init(&s);
  if (rc == 0) run(&s);
  ref_tasks_free(&s);
  ref_net_free(&s);
  ref_heap_free(&s.heap);
  if (rc) {
    ref_result_free(out);
    fprintf(stderr, "ref: set-up failed\n");
  }
  return rc;
}

void ref_result_free(ref_result_t *r) {
  free(r->start_ps);
  free(r->end_ps);
  free(r->recv_ps);
  r->start_ps = r->end_ps = r->recv_ps = NULL;
}

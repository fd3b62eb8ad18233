/* Standalone FCT: the flow alone in the network on its ECMP path, sent back to
 * back at line rate, store-and-forward at every hop, plus the return of its
 * last ACK. A closed form (max-plus tandem of identical packets and one last
 * packet); the ACK stream is simulated hop by hop only where ACKs could queue
 * behind one another. Or the ns-3 HPCC simulator's definition
 * (standalone_header); base RTTs, per flow and the network's largest. */
#include <stdlib.h>

#include "sim/eng_net.h"
#include "sim/eng_standalone.h"

/* Follows the ECMP choices of model.md from `from` to host `to`, filling the
 * rate and delay of each hop; returns the hop count, or -1. */
static int sa_path(const topo_t *t, const eng_params_t *p, int32_t from, int32_t to, int32_t s,
                   int32_t d, uint32_t sp, uint32_t dp, int64_t *rate, int64_t *delay, int cap) {
  int hops = 0;
  int32_t x = from;
  uint16_t set[1024];
  while (x != to) {
    int n = topo_next_hops(t, x, to, set, 1024);
    if (n <= 0 || hops == cap) return -1;
    uint32_t h = p->ecmp_ns3 ? eng_hash_ecmp_ns3(x, s, d, sp, dp) : eng_hash_ecmp(x, s, d, sp, dp);
    uint32_t k = h % (uint32_t)n;
    int32_t lp = set[p->ecmp_ns3 ? (uint32_t)n - 1 - k : k]; /* as eng_ecmp_pick */
    const topo_port_t *q = &t->ports[t->port_off[x] + lp];
    rate[hops] = t->links[q->link].rate_bps;
    delay[hops] = t->links[q->link].delay_ps;
    hops++;
    x = q->peer;
  }
  return hops;
}

/* Data arrival time at the destination of packet i (0-based) of n, relative to
 * the start: n-1 packets of wire s then one of wire l. */
typedef struct sa_data_t {
  int J;
  const int64_t *rate, *delay;
  int64_t s, l; /* wire bytes */
  uint32_t n;
  int32_t floor_ns; /* the experiment's clock (ser_floor_ns) */
} sa_data_t;

static int64_t sa_ser(const sa_data_t *q, int64_t bytes, int j) {
  return base_ser_clock(bytes, (uint64_t)q->rate[j], q->floor_ns);
}

static int64_t sa_arrival(const sa_data_t *q, uint32_t i) {
  int64_t sum = 0, mx = 0, dl = 0;
  for (int j = 0; j < q->J; j++) {
    int64_t sj = sa_ser(q, q->s, j);
    sum += sj;
    if (sj > mx) mx = sj;
    dl += q->delay[j];
  }
  if (i + 1 < q->n) return sum + dl + (int64_t)i * mx; /* identical packets */
  /* Last packet: D(n,j) = max(D(n,j-1) + d(j-1), V(n-1,j)) + l_j. */
  int64_t dn = 0, vsum = 0, vmax = 0, vdl = 0;
  for (int j = 0; j < q->J; j++) {
    int64_t sj = sa_ser(q, q->s, j);
    vsum += sj;
    if (sj > vmax) vmax = sj;
    int64_t v = q->n > 1 ? vsum + vdl + (int64_t)(q->n - 2) * vmax : 0;
    int64_t ready = j ? dn + q->delay[j - 1] : 0;
    dn = (ready > v ? ready : v) + sa_ser(q, q->l, j);
    vdl += q->delay[j];
  }
  return dn + q->delay[q->J - 1];
}

/* ns-3's time of one MTU payload on a hop (scratch/third.cc CalculateRoute):
 * whole ns, truncated, ps. */
static int64_t sa_payload_ns3(const eng_params_t *p, int64_t rate) {
  return (int64_t)((uint64_t)p->mtu * 8000000000ULL / (uint64_t)rate) * 1000;
}

int64_t eng_base_rtt(const topo_t *t, const eng_params_t *p, const trf_flow_t *f) {
  if (p->base_rtt_ns3) {
    enum { CAP = 256 };
    int64_t rate[CAP], delay[CAP], rtt = 0;
    int J = sa_path(t, p, f->src, f->dst, f->src, f->dst, f->sport, f->dport, rate, delay, CAP);
    if (J <= 0) return -1;
    for (int j = 0; j < J; j++)
      rtt += 2 * delay[j] + sa_payload_ns3(p, rate[j]);
    return rtt;
  }
  trf_flow_t one = *f;
  one.bytes = (uint64_t)p->mtu;
  eng_params_t exact = *p;
  exact.standalone_header = -1;
  return eng_standalone_fct(t, &exact, &one);
}

/* Longest time towards host `to` from each node over shortest paths: hop cost
 * ser(wire) + delay, or with base_rtt_ns3 2 x delay + one MTU payload (wire
 * < 0 selects it). memo[x] < 0: not known yet. */
static int64_t sa_longest(const topo_t *t, const eng_params_t *p, int32_t x, int32_t to,
                          int64_t wire, int64_t *memo) {
  if (x == to) return 0;
  if (memo[x] >= 0) return memo[x];
  uint16_t set[1024];
  int n = topo_next_hops(t, x, to, set, 1024);
  int64_t best = -1;
  for (int k = 0; k < n; k++) {
    const topo_port_t *q = &t->ports[t->port_off[x] + set[k]];
    const topo_link_t *l = &t->links[q->link];
    int64_t rest = sa_longest(t, p, q->peer, to, wire, memo);
    int64_t hop = wire < 0
                      ? 2 * l->delay_ps + sa_payload_ns3(p, l->rate_bps)
                      : base_ser_clock(wire, (uint64_t)l->rate_bps, p->ser_floor_ns) + l->delay_ps;
    if (rest >= 0 && rest + hop > best) best = rest + hop;
  }
  memo[x] = best;
  return best;
}

int64_t eng_max_base_rtt(const topo_t *t, const eng_params_t *p) {
  int64_t *out = malloc(((size_t)t->n_nodes + 1) * sizeof *out);
  int64_t *back = malloc(((size_t)t->n_nodes + 1) * sizeof *back);
  int64_t best = -1;
  for (int32_t d = 0; out && back && d < t->n_nodes; d++) {
    if (t->is_switch[d]) continue;
    for (int32_t x = 0; x < t->n_nodes; x++)
      out[x] = back[x] = -1;
    for (int32_t s = 0; s < t->n_nodes; s++) {
      if (t->is_switch[s] || s == d) continue;
      int64_t rtt = -1;
      if (p->base_rtt_ns3) {
        rtt = sa_longest(t, p, s, d, -1, out);
      } else { /* a data packet out, its ACK back: symmetric links, so towards d */
        int64_t a = sa_longest(t, p, s, d, p->mtu + p->header, out);
        int64_t b = sa_longest(t, p, s, d, p->ctrl_bytes, back);
        rtt = a < 0 || b < 0 ? -1 : a + b;
      }
      if (rtt > best) best = rtt;
    }
  }
  free(out);
  free(back);
  return best;
}

int64_t eng_standalone_fct(const topo_t *t, const eng_params_t *p, const trf_flow_t *f) {
  enum { CAP = 256 };
  int64_t rate[CAP], delay[CAP], arate[CAP], adelay[CAP];
  int J = sa_path(t, p, f->src, f->dst, f->src, f->dst, f->sport, f->dport, rate, delay, CAP);
  int K = sa_path(t, p, f->dst, f->src, f->dst, f->src, f->dport, f->sport, arate, adelay, CAP);
  if (J <= 0 || K <= 0) return -1;
  uint32_t n = (uint32_t)((f->bytes + (uint64_t)p->mtu - 1) / (uint64_t)p->mtu);
  if (p->standalone_header >= 0) { /* ns-3's: base RTT + bytes at the bottleneck rate */
    int64_t bw = rate[0];
    for (int j = 1; j < J; j++)
      bw = rate[j] < bw ? rate[j] : bw;
    uint64_t bytes = f->bytes + (uint64_t)n * (uint64_t)p->standalone_header;
    return eng_base_rtt(t, p, f) + (int64_t)(bytes * 8000000000ULL / (uint64_t)bw) * 1000;
  }
  int64_t last = (int64_t)(f->bytes - (uint64_t)(n - 1) * (uint64_t)p->mtu);
  sa_data_t q = {J, rate, delay, p->mtu + p->header, last + p->header, n, p->ser_floor_ns};

  /* ACKs never wait if each serialises faster than data arrives at the end. */
  int64_t amax = 0, aback = 0;
  int64_t gap = base_ser_clock(q.s < q.l ? q.s : q.l, (uint64_t)rate[J - 1], p->ser_floor_ns);
  for (int k = 0; k < K; k++) {
    int64_t a = base_ser_clock(p->ctrl_bytes, (uint64_t)arate[k], p->ser_floor_ns);
    if (a > amax) amax = a;
    aback += a + adelay[k];
  }
  if (amax <= gap) return sa_arrival(&q, n - 1) + aback;

  /* Otherwise follow every ACK through the return path (FIFO tandem). */
  int64_t free_at[CAP] = {0}, done = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t rcv = i + 1;
    if (rcv % (uint32_t)p->ack_every && rcv != n) continue;
    int64_t at = sa_arrival(&q, i);
    for (int k = 0; k < K; k++) {
      int64_t start = at > free_at[k] ? at : free_at[k];
      free_at[k] = start + base_ser_clock(p->ctrl_bytes, (uint64_t)arate[k], p->ser_floor_ns);
      at = free_at[k] + adelay[k];
    }
    done = at;
  }
  return done;
}

/* Standalone FCT: the flow alone in the network on its ECMP path, sent back to
 * back at line rate, store-and-forward at every hop, plus the return of its
 * last ACK. A closed form (max-plus tandem of identical packets and one last
 * packet); the ACK stream is simulated hop by hop only where ACKs could queue
 * behind one another. */
#include "sim/eng_net.h"
#include "sim/eng_standalone.h"

/* Follows the ECMP choices of model.md from `from` to host `to`, filling the
 * rate and delay of each hop; returns the hop count, or -1. */
static int sa_path(const topo_t *t, int32_t from, int32_t to, int32_t s, int32_t d, uint32_t sp,
                   uint32_t dp, int64_t *rate, int64_t *delay, int cap) {
  int hops = 0;
  int32_t x = from;
  uint16_t set[1024];
  while (x != to) {
    int n = topo_next_hops(t, x, to, set, 1024);
    if (n <= 0 || hops == cap) return -1;
    uint32_t h = eng_hash_ecmp(x, s, d, sp, dp);
    int32_t lp = set[h % (uint32_t)n];
    const topo_port_t *p = &t->ports[t->port_off[x] + lp];
    rate[hops] = t->links[p->link].rate_bps;
    delay[hops] = t->links[p->link].delay_ps;
    hops++;
    x = p->peer;
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
} sa_data_t;

static int64_t sa_arrival(const sa_data_t *q, uint32_t i) {
  int64_t sum = 0, mx = 0, dl = 0;
  for (int j = 0; j < q->J; j++) {
    int64_t sj = eng_ser(q->s, q->rate[j]);
    sum += sj;
    if (sj > mx) mx = sj;
    dl += q->delay[j];
  }
  if (i + 1 < q->n) return sum + dl + (int64_t)i * mx; /* identical packets */
  /* Last packet: D(n,j) = max(D(n,j-1) + d(j-1), V(n-1,j)) + l_j. */
  int64_t dn = 0, vsum = 0, vmax = 0, vdl = 0;
  for (int j = 0; j < q->J; j++) {
    int64_t sj = eng_ser(q->s, q->rate[j]);
    vsum += sj;
    if (sj > vmax) vmax = sj;
    int64_t v = q->n > 1 ? vsum + vdl + (int64_t)(q->n - 2) * vmax : 0;
    int64_t ready = j ? dn + q->delay[j - 1] : 0;
    dn = (ready > v ? ready : v) + eng_ser(q->l, q->rate[j]);
    vdl += q->delay[j];
  }
  return dn + q->delay[q->J - 1];
}

int64_t eng_base_rtt(const topo_t *t, const eng_params_t *p, const trf_flow_t *f) {
  trf_flow_t one = *f;
  one.bytes = (uint64_t)p->mtu;
  return eng_standalone_fct(t, p, &one);
}

int64_t eng_standalone_fct(const topo_t *t, const eng_params_t *p, const trf_flow_t *f) {
  enum { CAP = 256 };
  int64_t rate[CAP], delay[CAP], arate[CAP], adelay[CAP];
  int J = sa_path(t, f->src, f->dst, f->src, f->dst, f->sport, f->dport, rate, delay, CAP);
  int K = sa_path(t, f->dst, f->src, f->dst, f->src, f->dport, f->sport, arate, adelay, CAP);
  if (J <= 0 || K <= 0) return -1;
  uint32_t n = (uint32_t)((f->bytes + (uint64_t)p->mtu - 1) / (uint64_t)p->mtu);
  int64_t last = (int64_t)(f->bytes - (uint64_t)(n - 1) * (uint64_t)p->mtu);
  sa_data_t q = {J, rate, delay, p->mtu + p->header, last + p->header, n};

  /* ACKs never wait if each serialises faster than data arrives at the end. */
  int64_t amax = 0, aback = 0, gap = eng_ser(q.s < q.l ? q.s : q.l, rate[J - 1]);
  for (int k = 0; k < K; k++) {
    int64_t a = eng_ser(p->ctrl_bytes, arate[k]);
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
      free_at[k] = start + eng_ser(p->ctrl_bytes, arate[k]);
      at = free_at[k] + adelay[k];
    }
    done = at;
  }
  return done;
}

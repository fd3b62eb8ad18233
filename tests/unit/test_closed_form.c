/* Closed forms: a flow alone on an idle path completes in exactly the
 * store-and-forward time of its packets plus the return of its last ACK, to the
 * picosecond; its standalone FCT equals its FCT; counters count what they say. */
#include "mvsim.h"
#include "mvtest.h"
#include "sim/eng_standalone.h"

static int64_t ser(int64_t bytes, int64_t rate) {
  return (bytes * 8 * 1000000000000LL + rate - 1) / rate;
}

/* Independent max-plus recursion over every packet and hop: departure of packet
 * i from hop j = max(its arrival there, departure of packet i-1) + serialisation. */
static int64_t tandem_last_arrival(int64_t n, const int64_t *wire, int hops, const int64_t *rate,
                                   const int64_t *delay) {
  int64_t prev[16] = {0}, last = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t at = 0;
    for (int j = 0; j < hops; j++) {
      int64_t start = at > prev[j] ? at : prev[j];
      prev[j] = start + ser(wire[i], rate[j]);
      at = prev[j] + delay[j];
    }
    last = at;
  }
  return last;
}

/* One flow of `bytes` on a chain; checks FCT and standalone against the formula. */
static void check_chain(int hops, const int64_t *rate, const int64_t *delay, uint64_t bytes,
                        int ack_every, int64_t start) {
  eng_params_t p = mvsim_params();
  p.ack_every = ack_every;
  topo_t t = mvsim_chain(hops, rate, delay);
  trf_flow_t f = mvsim_flow(0, 1, bytes, start);
  trf_flows_t fl = {.n = 1, .f = &f};
  tg_t g = mvsim_tg(&fl);
  eng_exp_desc_t ex = {.topo = &t, .tasks = &g, .params = &p, .seed = 42};
  eng_batch_t *w = mvsim_run(1, &ex, ENG_BACKEND_CPU);

  int64_t n = (int64_t)((bytes + (uint64_t)p.mtu - 1) / (uint64_t)p.mtu);
  int64_t *wire = malloc((size_t)n * sizeof *wire);
  for (int64_t i = 0; i < n; i++)
    wire[i] = (i + 1 < n ? p.mtu : (int64_t)bytes - (n - 1) * p.mtu) + p.header;
  int64_t data = tandem_last_arrival(n, wire, hops, rate, delay);
  int64_t ack = 0; /* the last ACK's way back: the reverse hops, same links */
  for (int j = hops - 1; j >= 0; j--)
    ack += ser(p.ctrl_bytes, rate[j]) + delay[j];
  int64_t fct = mvsim_end(w, 0, 0) - start;
  CHECK_EQ_I64(fct, data + ack);
  CHECK_EQ_I64(eng_standalone_fct(&t, &p, &f), fct);

  eng_result_t r;
  eng_exp_result(w, 0, &r);
  int64_t acks = n / ack_every + (n % ack_every != 0);
  CHECK_EQ_I64(r.packet_hops, (n + acks) * hops);
  CHECK_EQ_I64(r.drops, 0);
  CHECK_EQ_I64(r.pfc_pauses, 0);
  CHECK_EQ_I64(r.retransmits, 0);
  CHECK(r.status == ENG_OK);
  free(wire);
  tg_free(&g);
  eng_batch_destroy(w);
  topo_free(&t);
}

int main(void) {
  const int64_t G = 1000000000LL, US = 1000000LL;
  int64_t r100[2] = {100 * G, 100 * G}, d1[2] = {US, US};
  /* 10 full packets over one switch: 11 serialisations + 2 delays, plus the ACK. */
  {
    eng_params_t p = mvsim_params();
    int64_t w = p.mtu + p.header;
    int64_t expect = 11 * ser(w, 100 * G) + 2 * US + 2 * (ser(p.ctrl_bytes, 100 * G) + US);
    topo_t t = mvsim_chain(2, r100, d1);
    trf_flow_t f = mvsim_flow(0, 1, 10 * (uint64_t)p.mtu, 0);
    trf_flows_t fl = {.n = 1, .f = &f};
    tg_t g = mvsim_tg(&fl);
    eng_exp_desc_t ex = {.topo = &t, .tasks = &g, .params = &p, .seed = 1};
    eng_batch_t *wd = mvsim_run(1, &ex, ENG_BACKEND_CPU);
    CHECK_EQ_I64(mvsim_end(wd, 0, 0), expect);
    CHECK_EQ_I64(expect, 7669600); /* 4158 B at 80 ps/B, 66 B ACK, 1 us links */
    tg_free(&g);
    eng_batch_destroy(wd);
    topo_free(&t);
  }
  check_chain(2, r100, d1, 10 * 4096, 1, 0);
  check_chain(2, r100, d1, 10 * 4096 + 100, 1, 0);         /* a short last packet */
  check_chain(2, r100, d1, 1, 1, 0);                       /* a single 1-byte packet */
  check_chain(2, r100, d1, 10 * 4096, 4, 0);               /* coalesced ACKs */
  check_chain(2, r100, d1, 10 * 4096, 1, 2000001000000LL); /* starts at 2.000001 s */
  /* 100G hosts, 400G fabric, 5 switches (a 3-tier fat-tree path), unequal delays. */
  int64_t r6[6] = {100 * G, 400 * G, 400 * G, 400 * G, 400 * G, 100 * G};
  int64_t d6[6] = {US, 2 * US, 3 * US, US, 1500000, 700000};
  check_chain(6, r6, d6, 1000000, 1, 0);
  check_chain(6, r6, d6, 1000000 + 7, 2, 0);
  /* A slow middle hop: the bottleneck sets the pace (25G behind 100G). */
  int64_t r3[3] = {100 * G, 25 * G, 100 * G}, d3[3] = {US, US, US};
  check_chain(3, r3, d3, 300000, 1, 0);
  return mvtest_end();
}

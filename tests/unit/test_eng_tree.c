/* A switch's tournament tree over its ports' keys (eng_step.h) names the port
 * a scan for the first smallest key names: for every port count from 1 to
 * 300, keys drawn from a small range (many ties) and from the full one, after
 * building it and after each of many single-port updates. In the engine: a
 * 40:1 incast with PFC through one switch of 41 ports (a tree, rebuilt when a
 * PFC frame takes transmission time) equals the reference simulator to the
 * picosecond, by default in key order (a switch with a tree takes no port
 * phases unless MULTIVERSE_PHASES=1 asks: then some of its windows do, with
 * the same results).
 * The GPU's form of the scan (four keys at once, eng_keys_min_fours) names
 * what the scan names. A tie broken to the higher port fails the first part
 * and, in the GPU's form, the second; dropping the tree's rebuild after a PFC
 * frame, or the update of the egress port, fails the third. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "mvsim.h"
#include "mvtest.h"
#include "ref/ref.h"
#include "sim/eng_step.h"

#define MAX_PORTS 300
#define SENDERS 40

static int32_t scan_first_min(const int64_t *key, int32_t np) {
  int32_t idx = 0;
  for (int32_t lp = 1; lp < np; lp++)
    if (key[lp] < key[idx]) idx = lp;
  return idx;
}

static uint64_t next(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

/* A key below range - 1, or ENG_INF (a port with no event) for range - 1. */
static int64_t draw_key(uint64_t *s, int64_t range) {
  int64_t v = (int64_t)(next(s) % (uint64_t)range);
  return v == range - 1 ? ENG_INF : v;
}

static void tree_against_scan(void) {
  static int64_t key[MAX_PORTS + 5];
  static int32_t twin[MAX_PORTS + 5];
  const int32_t p0 = 5; /* the node's ports are rows p0 .. p0 + np - 1, not from row 0 */
  eng_cols_t c = {0};
  c.port_key = key;
  c.port_twin = twin;
  uint64_t s = 1;
  for (int32_t np = 1; np <= MAX_PORTS; np++) {
    for (int r = 0; r < 2; r++) {
      int64_t range = r == 0 ? 4 : 1LL << 40;
      for (int32_t lp = 0; lp < np; lp++)
        key[p0 + lp] = draw_key(&s, range);
      eng_tree_build(&c, p0, np);
      CHECK_EQ_I64(np > 1 ? twin[p0 + 1] : 0, scan_first_min(key + p0, np));
      for (int u = 0; u < 200; u++) {
        int32_t lp = (int32_t)(next(&s) % (uint64_t)np);
        key[p0 + lp] = draw_key(&s, range);
        eng_tree_update(&c, p0, np, lp);
        CHECK_EQ_I64(np > 1 ? twin[p0 + 1] : 0, scan_first_min(key + p0, np));
      }
    }
  }
}

/* The GPU's form of the next port (eng_keys_min_fours: four keys at once,
 * matched in pairs) names the port and key the scan names, for every count
 * from 0 to 300 (a remainder of 0 to 3 after the fours), with many ties, keys
 * of ENG_INF and a starting key that some keys beat and some tie. */
static void fours_against_scan(void) {
  static int64_t key[MAX_PORTS];
  uint64_t s = 7;
  for (int32_t n = 0; n <= MAX_PORTS; n++)
    for (int r = 0; r < 3; r++) {
      int64_t range = r == 0 ? 4 : r == 1 ? 64 : 1LL << 40;
      for (int rep = 0; rep < 20; rep++) {
        for (int32_t i = 0; i < n; i++)
          key[i] = draw_key(&s, range);
        const int64_t from = rep % 2 ? ENG_INF : draw_key(&s, range);
        int32_t i_scan = -1, i_fours = -1;
        int64_t k_scan = eng_keys_min_scan(key, n, from, &i_scan);
        int64_t k_fours = eng_keys_min_fours(key, n, from, &i_fours);
        CHECK_EQ_I64(k_fours, k_scan);
        CHECK_EQ_I64(i_fours, i_scan);
        if (n > 0 && from == ENG_INF && k_scan < ENG_INF)
          CHECK_EQ_I64(i_scan, scan_first_min(key, n));
      }
    }
}

static void incast_against_reference(void) {
  topo_t t = mvsim_star(SENDERS + 1, 100000000000LL, 1000000); /* host SENDERS receives */
  CHECK(SENDERS + 1 >= ENG_TREE_PORTS);                        /* the switch keeps a tree */
  trf_flow_t f[SENDERS];
  for (int i = 0; i < SENDERS; i++)
    f[i] = mvsim_flow(i, SENDERS, 200000, 0);
  trf_flows_t fl = {.n = SENDERS, .f = f};
  tg_t g = mvsim_tg(&fl);
  eng_params_t p = mvsim_params();
  p.pfc = 1;
  p.buffer = 1 << 20;     /* pauses */
  p.pfc_frame_bytes = 43; /* each frame holds its port: every key of the switch moves */
  eng_exp_desc_t ex = {.topo = &t, .tasks = &g, .params = &p, .seed = 3};
  unsetenv("MULTIVERSE_PHASES");
  eng_batch_t *w = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  setenv("MULTIVERSE_PHASES", "1", 1);
  eng_batch_t *wp = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  unsetenv("MULTIVERSE_PHASES");
  eng_result_t r, rp;
  eng_exp_result(w, 0, &r);
  eng_exp_result(wp, 0, &rp);
  CHECK_EQ_I64(r.phased, 0);
  CHECK(rp.phased > 0);
  CHECK_EQ_I64(rp.packet_hops, r.packet_hops);
  for (int i = 0; i < SENDERS; i++)
    CHECK_EQ_I64(mvsim_end(wp, 0, i), mvsim_end(w, 0, i));
  ref_result_t rr;
  if (ref_run(&t, &g, &p, 3, &rr)) exit(2);
  CHECK(rr.status == REF_OK && r.status == ENG_OK);
  CHECK(rr.pfc_pauses > 0);
  CHECK_EQ_I64(r.pfc_pauses, rr.pfc_pauses);
  CHECK_EQ_I64(r.packet_hops, rr.packet_hops);
  for (int i = 0; i < SENDERS; i++)
    CHECK_EQ_I64(mvsim_end(w, 0, i), rr.end_ps[i]);
  printf("incast: %lld pauses, %lld packet-hops; %lld switch steps in port phases when asked\n",
         (long long)rr.pfc_pauses, (long long)rr.packet_hops, (long long)rp.phased);
  ref_result_free(&rr);
  eng_batch_destroy(w);
  eng_batch_destroy(wp);
  tg_free(&g);
  topo_free(&t);
}

int main(void) {
  tree_against_scan();
  fours_against_scan();
  incast_against_reference();
  return mvtest_end();
}

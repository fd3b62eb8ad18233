/* Zero-load RTT across the HPCC paper's 320-server fat-tree (16 servers per ToR,
 * 100 Gb/s hosts, 400 Gb/s fabric, 1 us links; shared/data/cc_parameters.json
 * hpcc_fat_tree_topology): a one-packet flow's FCT equals the analytical base
 * RTT, sum over the hops out of (serialisation + delay) plus the same for the
 * ACK back, for every path length (the 6-hop path's 12 us of propagation is
 * the data file's max_base_rtt_us).
 * Paths of 2, 4 and 6 hops. */
#include <jansson.h>

#include "mvsim.h"
#include "mvtest.h"
#include "sim/eng_standalone.h"

static int64_t ser(int64_t bytes, int64_t rate) {
  return (bytes * 8 * 1000000000000LL + rate - 1) / rate;
}

int main(void) {
  const char *spec = "{\"kind\":\"fat_tree\",\"tiers\":3,\"pods\":5,\"tors_per_pod\":4,"
                     "\"aggs_per_pod\":4,\"cores\":16,\"hosts_per_tor\":16,\"host_gbps\":100,"
                     "\"link_gbps\":400,\"link_delay_ns\":1000}";
  json_error_t je;
  json_t *o = json_loads(spec, 0, &je);
  topo_t t = {0};
  char err[256];
  if (!o || topo_from_json(o, "hpcc", &t, err, sizeof err)) return 2;
  json_decref(o);
  CHECK_EQ_I64(t.n_hosts, 320);

  eng_params_t p = mvsim_params();
  const int64_t G = 1000000000LL, US = 1000000LL;
  const int64_t payload = 1000, w = payload + p.header;
  /* Destinations: same ToR (2 hops), same pod (4), another pod (6). */
  const int32_t dst[3] = {1, 16, 64 + 16 * 4 + 3};
  const int hops[3] = {2, 4, 6};
  trf_flow_t f[3];
  for (int i = 0; i < 3; i++)
    f[i] = mvsim_flow(0, dst[i], (uint64_t)payload, (int64_t)i * 100 * US);
  trf_flows_t fl = {.n = 3, .f = f};
  tg_t g = mvsim_tg(&fl);
  eng_exp_desc_t ex = {.topo = &t, .tasks = &g, .params = &p, .seed = 3};
  eng_batch_t *wd = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  for (int i = 0; i < 3; i++) {
    CHECK_EQ_I64(topo_distance(&t, 0, dst[i]), hops[i]);
    /* Host links (first and last hop) at 100G, the fabric at 400G, 1 us each. */
    int64_t rtt = 0;
    for (int h = 0; h < hops[i]; h++) {
      int64_t r = (h == 0 || h == hops[i] - 1) ? 100 * G : 400 * G;
      rtt += ser(w, r) + US + ser(p.ctrl_bytes, r) + US;
    }
    int64_t fct = mvsim_end(wd, 0, i) - f[i].start_ps;
    printf("%d hops: FCT %lld ps, base RTT %lld ps\n", hops[i], (long long)fct, (long long)rtt);
    CHECK_EQ_I64(fct, rtt);
    CHECK_EQ_I64(eng_standalone_fct(&t, &p, &f[i]), rtt);
  }
  tg_free(&g);
  eng_batch_destroy(wd);
  topo_free(&t);
  return mvtest_end();
}

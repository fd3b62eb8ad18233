/* SimAI's own SimAI.conf (tests/data/peers/simai, unchanged) read as an ns-3
 * configuration: its CC, ECN and packet keys become the parameters --ns3-config
 * gives (DCQCN, 9000-byte payload, its six-rate ECN table in ns-3's KB of 1000
 * bytes, a 32 MB buffer), its stop time of 4e13 s (SimAI's "never") our limit, its
 * monitors' settings accepted and its output files named as not written; a training
 * job's network takes it as ns3_config before its own keys. */
#include "driver/drv.h"
#include "mvtest.h"

static job_presets_t ps;

static int has_set(const drv_ns3_config_t *o, const char *kv) {
  for (int i = 0; i < o->n_sets; i++)
    if (strcmp(o->sets[i], kv) == 0) return 1;
  return 0;
}

static void simai_conf(void) {
  static drv_ns3_config_t o;
  char err[2400] = "";
  const char *path = mvtest_data("peers/simai/SimAI.conf");
  CHECK_EQ_I64(drv_ns3_settings(path, &ps, &o, err, sizeof err), 0);
  if (err[0]) fprintf(stderr, "%s\n", err);
  CHECK(has_set(&o, "cc=dcqcn"));
  CHECK(has_set(&o, "preset=ns3_hpcc"));
  CHECK(has_set(&o, "mtu=9000"));
  CHECK(has_set(&o, "buffer_mb=32"));
  CHECK(has_set(&o, "max_time_s=1e6"));
  CHECK(has_set(&o, "dcqcn_rate_ai_mbps=50"));
  CHECK(has_set(&o, "dcqcn_rate_hai_mbps=100"));
  CHECK(has_set(&o, "dcqcn_rate_inc_timer_us=900"));
  CHECK(has_set(&o, "dcqcn_g=0.00390625"));
  CHECK(has_set(&o, "dcqcn_window_kb=-1")); /* HAS_WIN 1, GLOBAL_T 0: each pair's BDP */
  CHECK(o.dcqcn_global_window == 0);
  CHECK(o.topology[0] == '\0'); /* SimAI takes the topology on its command line */
  CHECK_STR_CONTAINS(o.unwritten, "TRACE_OUTPUT_FILE /etc/astra-sim/simulation/llama_hpn7_mix.tr");
  CHECK_STR_CONTAINS(o.unwritten, "PFC_OUTPUT_FILE");
  CHECK_STR_CONTAINS(o.unwritten, "QLEN_MON_FILE");
  CHECK_STR_CONTAINS(o.unwritten, "BW_MON_FILE");
  CHECK_STR_CONTAINS(o.unwritten, "RATE_MON_FILE");
  CHECK_STR_CONTAINS(o.unwritten, "llama_hpn7_cnp.txt (SimAI's CNP monitor)");
  /* applied: the parameters a training job's network gets from it, then its own keys */
  eng_params_t p = ps.defaults;
  json_t *net = json_pack("{s:s,s:i}", "ns3_config", path, "buffer_mb", 8);
  static const char *const skip[] = {"ns3_config", NULL};
  CHECK_EQ_I64(drv_train_network(&ps, NULL, &p, net, skip, "job.json: base.network", err,
                                 sizeof err),
               0);
  if (err[0]) fprintf(stderr, "%s\n", err);
  CHECK_EQ_I64(p.mtu, 9000);
  CHECK(p.classes); /* the ns3_hpcc preset */
  CHECK_EQ_I64(p.max_time, 1000000LL * 1000000000000LL);
  CHECK_EQ_I64(p.buffer, 8LL << 20); /* the job's own key after the configuration */
  json_decref(net);
  /* a missing file is named by its JSON path */
  p = ps.defaults;
  net = json_pack("{s:s}", "ns3_config", "no_such.conf");
  CHECK_EQ_I64(drv_train_network(&ps, "/nonexistent", &p, net, skip, "job.json: base.network", err,
                                 sizeof err),
               -1);
  CHECK_STR_CONTAINS(err, "job.json: base.network.ns3_config: cannot open /nonexistent/no_such.conf");
  json_decref(net);
}

/* astra-network-ns3's scratch/config/config.txt: CC_MODE 12, which its rdma-hw matches
 * to no algorithm, with HAS_WIN 1: line rate under each pair's BDP window, run as DCQCN
 * whose switches never mark (its rate stays at line rate); NIC_TOTAL_PAUSE_TIME 0. */
static void astra_ns3_conf(void) {
  static drv_ns3_config_t o;
  char err[2400] = "";
  CHECK_EQ_I64(drv_ns3_settings(mvtest_data("peers/astra-ns3/config.txt"), &ps, &o, err, sizeof err),
               0);
  if (err[0]) fprintf(stderr, "%s\n", err);
  CHECK(has_set(&o, "cc=dcqcn"));
  CHECK(has_set(&o, "ecn=false")); /* its ENABLE_QCN 1 marks packets nobody reads */
  CHECK(has_set(&o, "dcqcn_window_kb=-1"));
  CHECK(o.dcqcn_global_window == 0); /* GLOBAL_T 0 */
  CHECK(has_set(&o, "mtu=1000"));
  CHECK(has_set(&o, "max_time_s=1e6"));
  CHECK_STR_CONTAINS(o.topology, "8_nodes_1_switch_topology.txt");
  CHECK_STR_CONTAINS(o.unwritten, "PFC_OUTPUT_FILE ../../scratch/output/pfc.txt");
}

int main(void) {
  char err[1024], path[2048];
  const char *dir = getenv("MV_PRESETS");
  snprintf(path, sizeof path, "%s/network.json", dir ? dir : "jobs/presets");
  if (job_presets_load(path, &ps, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  simai_conf();
  astra_ns3_conf();
  return mvtest_end();
}

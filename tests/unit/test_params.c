/* Network parameters: the presets file loads and is checked against the key
 * table both ways; `--set` converts units exactly (ps, bytes, Q16) and rejects
 * unknown keys and bad values naming them; presets set what their sources
 * say; the engine's checks name the key (docs/parameters.md's tables are
 * generated from the same rows: params_doc).
 * Units exactly: 0.3 MiB = 314573 bytes, 95.2 KiB = 97485, pfc_alpha 0.1 =
 * 6554/2^16, sub-ps digits rejected; each broken variant of the presets file is
 * rejected naming its JSON path. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "jobs/job_param_int.h"
#include "mvsim.h"
#include "mvtest.h"

static void defaults_and_units(void) {
  eng_params_t p = mvsim_params();
  char err[512];
  CHECK_EQ_I64(p.mtu, 4096);
  CHECK_EQ_I64(p.buffer, 32LL << 20);
  CHECK_EQ_I64(p.rto, 1048576000LL); /* 1048.576 us in ps */
  CHECK_EQ_I64(p.pfc_resume, 3 * 1024);
  CHECK_EQ_I64(p.pfc_a16, 8192);           /* 0.125 * 2^16 */
  CHECK_EQ_I64(p.flowlet_gap, 10000000LL); /* 10 us */
  CHECK_EQ_I64(p.sync, 1000000LL);
  CHECK_EQ_I64(p.max_time, 10000000000000LL);
  CHECK(p.ccp.kind == CC_NONE && p.lb == ENG_LB_ECMP && p.pfc == 1 && p.reorder == 0);
  /* The SimAI table by port speed: 100G -> 400/1600 KB, 0.2; 400G -> 800/3200. */
  int64_t kmin, kmax;
  double pmax;
  CHECK_EQ_I64(p.ecn_table.n, 6);
  eng_params_ecn_for(&p, 100000000000LL, &kmin, &kmax, &pmax);
  CHECK(kmin == 400 * 1024 && kmax == 1600 * 1024 && pmax == 0.2);
  eng_params_ecn_for(&p, 400000000000LL, &kmin, &kmax, &pmax);
  CHECK(kmin == 800 * 1024 && kmax == 3200 * 1024);
  eng_params_ecn_for(&p, 10000000000LL, &kmin, &kmax, &pmax); /* below the table: lowest row */
  CHECK(kmin == 100 * 1024);

  /* --set, each unit exactly: MiB and KiB to the nearest byte, us and s to
   * the ps (finer is an error), Mb/s as the double nearest the decimal. */
  CHECK(mvsim_set(&p, "buffer_mb=0.5", err, sizeof err) == 0 && p.buffer == 524288);
  CHECK(mvsim_set(&p, "buffer_mb=0.3", err, sizeof err) == 0 && p.buffer == 314573);
  CHECK(mvsim_set(&p, "ecn_kmin_kb=95.2", err, sizeof err) == 0 && p.ecn_kmin == 97485);
  CHECK(mvsim_set(&p, "ecn_kmin_kb=-1", err, sizeof err) == 0 && p.ecn_kmin == -1);
  CHECK(mvsim_set(&p, "ecn_kmin_kb=-5", err, sizeof err) == -1); /* only -1 means derived */
  CHECK_STR_CONTAINS(err, "--set ecn_kmin_kb: '-5' is out of range: -1 (by port speed) or 0 to "
                          "2097152 KiB (2 GiB)");
  CHECK(mvsim_set(&p, "rto_us=2.5", err, sizeof err) == 0 && p.rto == 2500000);
  CHECK(mvsim_set(&p, "rto_us=0.000001", err, sizeof err) == 0 && p.rto == 1);
  CHECK(mvsim_set(&p, "rto_us=0.0000015", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "--set rto_us: bad value '0.0000015' (expected a time in us (whole ps))");
  CHECK(mvsim_set(&p, "max_time_s=1e-3", err, sizeof err) == 0 && p.max_time == 1000000000LL);
  CHECK(mvsim_set(&p, "pfc_alpha=0.1", err, sizeof err) == 0 && p.pfc_a16 == 6554);
  CHECK(mvsim_set(&p, "hpcc_ai_mbps=0.1", err, sizeof err) == 0 && p.ccp.hpcc_ai == 100000.0);
  CHECK(mvsim_set(&p, "hpcc_ai_mbps=-1", err, sizeof err) == 0 && p.ccp.hpcc_ai == -1.0);
  CHECK(mvsim_set(&p, "hpcc_ai_mbps=-3", err, sizeof err) == -1);
  CHECK(mvsim_set(&p, "pfc=off", err, sizeof err) == 0 && p.pfc == 0);
  CHECK(mvsim_set(&p, "lb=adaptive", err, sizeof err) == 0 && p.lb == ENG_LB_ADAPTIVE);
  CHECK(mvsim_set(&p, "ecn_by_link_gbps={\"10\":[1,2,0.5]}", err, sizeof err) == 0);
  CHECK(p.ecn_table.n == 1 && p.ecn_table.row[0].gbps == 10 && p.ecn_table.row[0].kmax == 2048);
  CHECK(mvsim_set(&p, "nope=1", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "unknown key 'nope'");
  CHECK(mvsim_set(&p, "mtu=12.5", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "--set mtu: bad value '12.5' (expected an integer)");
  CHECK(mvsim_set(&p, "mtu=1e3", err, sizeof err) == 0 && p.mtu == 1000);
  CHECK(mvsim_set(&p, "mtu=0x10", err, sizeof err) == -1);
  CHECK(mvsim_set(&p, "ack_every", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "KEY=VALUE");
  CHECK(mvsim_set(&p, "lb=magic", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "lb: unknown load balancing 'magic'");
  /* Past the largest double (fuzz_params_set): refused, not stored as inf. */
  CHECK(mvsim_set(&p, "hpcc_eta=1e400", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "--set hpcc_eta: '1e400' is out of range: more than 0 and at most 1");
  CHECK(mvsim_set(&p, "dcqcn_rate_ai_mbps=1e305", err, sizeof err) == -1);
  /* A message is one line whatever the value quotes. */
  CHECK(mvsim_set(&p, "mtu=1\n2", err, sizeof err) == -1);
  CHECK(strchr(err, '\n') == NULL);

  /* Out of its key's range: refused by --set, naming the range; the engine's
   * checks, for values set otherwise, name the key. */
  eng_params_t q = mvsim_params();
  char why[256];
  CHECK(mvsim_set(&q, "ring_cap=3", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "--set ring_cap: '3' is out of range: 0 (derived) or a power of two up "
                          "to 134217728 (2^27) packets");
  q.ring_cap = 3;
  CHECK(eng_params_check(&q, why, sizeof why) == -1);
  CHECK_STR_CONTAINS(why, "ring_cap: must be 0 (derived) or a power of two");
  q = mvsim_params();
  CHECK(mvsim_set(&q, "pfc_alpha=0", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "--set pfc_alpha: '0' is out of range: more than 0 and at most 64");
  CHECK(mvsim_set(&q, "pfc_alpha=0.000001", err, sizeof err) == -1); /* rounds to 0 x 2^-16 */
  CHECK_STR_CONTAINS(err, "--set pfc_alpha: rounds to 0, out of range: more than 0");
  q.pfc_a16 = 0;
  CHECK(eng_params_check(&q, why, sizeof why) == -1);
  CHECK_STR_CONTAINS(why, "pfc_alpha");
  q = mvsim_params();
  CHECK(mvsim_set(&q, "ecn_by_link_gbps={\"10\":[5,2,0.5]}", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "--set ecn_by_link_gbps: 10: out of range: a speed of 1 to 1000000 Gb/s, "
                          "0 <= kmin_KB <= kmax_KB <= 2097152 (2 GiB), pmax 0 to 1");
  q.ecn_table.n = 1;
  q.ecn_table.row[0] = (eng_ecn_row_t){10, 5 * 1024, 2 * 1024, 0.5};
  CHECK(eng_params_check(&q, why, sizeof why) == -1);
  CHECK_STR_CONTAINS(why, "ecn_by_link_gbps");
  q = mvsim_params();
  q.rto = ENG_MAX_TIMER_PS + 1; /* past the clock's headroom */
  CHECK(eng_params_check(&q, why, sizeof why) == -1);
  CHECK_STR_CONTAINS(why, "rto_us: must be more than 0 and at most 1e11 us (1e5 s)"); /* its row's */
}

static void presets(void) {
  eng_params_t p = mvsim_params();
  char err[512];
  CHECK(mvsim_set(&p, "cc=dcqcn_paper", err, sizeof err) == 0);
  CHECK(p.ccp.kind == CC_DCQCN && p.ccp.alpha_timer == 55000000LL && p.ccp.fast_steps == 5);
  CHECK(p.ecn_kmin == 5 * 1024 && p.ecn_kmax == 200 * 1024 && p.ecn_pmax == 0.01);
  CHECK(p.ccp.min_rate == 1e9 && p.ccp.rate_ai == 40e6 && p.ccp.window == 0);
  CHECK(mvsim_set(&p, "dcqcn_fast_steps=3", err, sizeof err) == 0 && p.ccp.fast_steps == 3);
  /* The alias dcqcn = dcqcn_mlx; its ECN thresholds stay those of the table. */
  eng_params_t m = mvsim_params();
  CHECK(mvsim_set(&m, "cc=dcqcn", err, sizeof err) == 0);
  CHECK(m.ccp.kind == CC_DCQCN && m.ccp.inc_timer == 300000000LL && m.ccp.window == -1);
  CHECK(m.ecn_kmin == -1 && m.ccp.var_window == 1);
  CHECK(mvsim_set(&p, "cc=hpcc", err, sizeof err) == 0);
  CHECK(p.ccp.kind == CC_HPCC && p.ccp.eta == 0.95 && p.ccp.max_stage == 0 && p.ccp.fast_react);
  CHECK(p.ccp.g == 0 && p.ccp.alpha_timer == 0); /* a preset sets the whole cc_params_t */
  CHECK(eng_params_check(&p, err, sizeof err) == 0);
  CHECK(mvsim_set(&p, "cc=dctcp", err, sizeof err) == 0);
  CHECK(p.ccp.kind == CC_DCTCP && p.ccp.dctcp_g == 0.0625 && p.ccp.init_cwnd == 40 * 1024);
  CHECK_EQ_I64(p.ecn_kmin, 97485); /* 95.2 KiB to the nearest byte */
  CHECK(mvsim_set(&p, "cc=none", err, sizeof err) == 0);
  CHECK(p.ccp.kind == CC_NONE && p.ccp.dctcp_g == 0 && p.ccp.init_cwnd == 0);
  CHECK(mvsim_set(&p, "cc=cubic", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "unknown congestion control 'cubic' (none, dcqcn_mlx, dcqcn,");
}

/* The network preset ns3_hpcc: its network keys, then those of the CC kind in
 * effect; a later cc=... sets the CC keys again (so the preset follows cc);
 * in a job file's object cc applies first, then the preset, then the rest. */
static void net_presets(void) {
  eng_params_t p = mvsim_params();
  char err[512];
  CHECK(mvsim_set(&p, "cc=hpcc", err, sizeof err) == 0);
  CHECK(mvsim_set(&p, "preset=ns3_hpcc", err, sizeof err) == 0);
  CHECK(p.ser_floor_ns && p.classes && p.ack_with_data && p.ack_pause && p.ecmp_ns3);
  CHECK(p.base_rtt_ns3 && p.pfc_alpha_by_rate && p.pfc_frame_bytes == 43);
  CHECK(p.pfc_reserve == 4096 && p.pfc_headroom == 3 && p.standalone_header == 48);
  CHECK(p.mtu == 1000 && p.header == 90 && p.ctrl_bytes == 88); /* with HPCC's telemetry */
  CHECK(p.ccp.global_t && p.ccp.hpcc_ns3 && p.ccp.int_multi == 1 && p.ccp.hpcc_min_rate == 100e6);
  CHECK(p.ccp.eta == 0.95 && !p.ccp.dcqcn_ns3);
  eng_params_t d = mvsim_params();
  CHECK(mvsim_set(&d, "cc=dcqcn", err, sizeof err) == 0);
  CHECK(mvsim_set(&d, "preset=ns3_hpcc", err, sizeof err) == 0);
  CHECK(d.header == 48 && d.ctrl_bytes == 60 && d.ccp.dcqcn_ns3 && !d.ccp.global_t);
  CHECK(mvsim_set(&d, "cc=hpcc", err, sizeof err) == 0); /* after the preset: HPCC's preset */
  CHECK(!d.ccp.global_t && d.header == 48 && d.ser_floor_ns);
  CHECK(mvsim_set(&d, "preset=ns2", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "--set preset: unknown preset 'ns2' (ns3_hpcc)");
  json_t *o = json_loads("{\"preset\":\"ns3_hpcc\",\"header\":100,\"cc\":\"hpcc\"}", 0, NULL);
  eng_params_t j = mvsim_params();
  CHECK(job_params_apply(mvsim_presets(), &j, o, NULL, "job.json: network", err, sizeof err) == 0);
  CHECK(j.ccp.global_t && j.header == 100 && j.ctrl_bytes == 88);
  json_decref(o);
  o = json_loads("{\"preset\":3}", 0, NULL);
  CHECK(job_params_apply(mvsim_presets(), &j, o, NULL, "job.json: network", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "job.json: network.preset: expected a preset's name");
  json_decref(o);
  /* the canonical text holds what the preset set, not the preset */
  char *text = job_params_canonical(&p);
  CHECK(text && !strstr(text, "preset") && strstr(text, "\"hpcc_global_t\":true"));
  free(text);
}

/* The presets file with one change: `edit` runs on its JSON, then it loads
 * from a temporary file; returns the loader's result and message. */
static int load_edited(void (*edit)(json_t *), char *err, size_t errlen) {
  char src[1024], tmp[] = "/tmp/mv_presets_XXXXXX";
  const char *dir = getenv("MV_PRESETS");
  snprintf(src, sizeof src, "%s/network.json", dir ? dir : "jobs/presets");
  json_t *root = json_load_file(src, 0, NULL);
  int fd = mkstemp(tmp);
  if (!root || fd < 0) exit(2);
  close(fd);
  edit(root);
  json_dump_file(root, tmp, JSON_INDENT(1));
  json_decref(root);
  job_presets_t ps;
  int rc = job_presets_load(tmp, &ps, err, errlen);
  unlink(tmp);
  return rc;
}

static void no_edit(json_t *r) {
  (void)r;
}
static void drop_default(json_t *r) {
  json_object_del(json_object_get(r, "defaults"), "ack_every");
}
static void extra_default(json_t *r) {
  json_object_set_new(json_object_get(r, "defaults"), "buffer_kb", json_integer(3));
}
static void cc_default(json_t *r) {
  json_object_set_new(json_object_get(r, "defaults"), "dcqcn_g", json_real(0.5));
}
static void drop_source(json_t *r) {
  json_object_del(json_object_get(r, "sources"), "rto_us");
}
static void stale_source(json_t *r) {
  json_object_set_new(json_object_get(r, "sources"), "ecn_columns", json_string("x"));
}
static void preset_incomplete(json_t *r) {
  json_object_del(json_object_get(json_object_get(r, "cc_presets"), "dcqcn_paper"), "dcqcn_g");
}
static void preset_foreign(json_t *r) {
  json_object_set_new(json_object_get(json_object_get(r, "cc_presets"), "hpcc"), "dctcp_g",
                      json_real(0.5));
}
static void preset_network_key(json_t *r) {
  json_object_set_new(json_object_get(json_object_get(r, "cc_presets"), "hpcc"), "mtu",
                      json_integer(1000));
}
static void no_kind_preset(json_t *r) {
  json_object_del(json_object_get(r, "cc_presets"), "dctcp");
}
static void bad_kind(json_t *r) {
  json_object_set_new(json_object_get(json_object_get(r, "cc_presets"), "dctcp"), "kind",
                      json_string("cubic"));
}
static void bad_value(json_t *r) {
  json_object_set_new(json_object_get(r, "defaults"), "pfc", json_integer(1));
}
static json_t *ns3_preset(json_t *r) {
  return json_object_get(json_object_get(r, "presets"), "ns3_hpcc");
}
static void net_preset_no_source(json_t *r) {
  json_object_del(ns3_preset(r), "source");
}
static void net_preset_bad_section(json_t *r) {
  json_object_set_new(ns3_preset(r), "cubic", json_object());
}
static void net_preset_foreign(json_t *r) {
  json_object_set_new(json_object_get(ns3_preset(r), "network"), "hpcc_eta", json_real(0.9));
}
static void net_preset_bad_value(json_t *r) {
  json_object_set_new(json_object_get(ns3_preset(r), "dcqcn"), "dcqcn_ns3", json_integer(2));
}

static void presets_file_checks(void) {
  char err[512];
  CHECK(load_edited(no_edit, err, sizeof err) == 0);
  struct {
    void (*edit)(json_t *);
    const char *msg;
  } cases[] = {
      {drop_default, "defaults.ack_every: missing (every parameter has a default and a source)"},
      {extra_default, "defaults.buffer_kb: unknown key"},
      {cc_default, "defaults.dcqcn_g: set by the cc presets, not a default"},
      {drop_source, "sources.rto_us: missing"},
      {stale_source, "sources.ecn_columns: not a default"},
      {preset_incomplete, "cc_presets.dcqcn_paper.dcqcn_g: missing (a dcqcn preset sets every"},
      {preset_foreign, "cc_presets.hpcc.dctcp_g: of another kind"},
      {preset_network_key, "cc_presets.hpcc.mtu: not a CC key"},
      {no_kind_preset, "cc_presets: needs a dctcp preset named \"dctcp\""},
      {bad_value, "defaults.pfc: expected true or false"},
      {bad_kind, "cc_presets.dctcp.kind: expected one of dcqcn dctcp hpcc"},
      {net_preset_no_source, "presets.ns3_hpcc.source: missing (every preset names its source)"},
      {net_preset_bad_section,
       "presets.ns3_hpcc.cubic: expected an object named network, dcqcn, dctcp or hpcc"},
      {net_preset_foreign, "presets.ns3_hpcc.network.hpcc_eta: of another kind"},
      {net_preset_bad_value, "presets.ns3_hpcc.dcqcn.dcqcn_ns3: expected true or false"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    CHECK(load_edited(cases[i].edit, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, cases[i].msg);
  }
}

int main(void) {
  defaults_and_units();
  presets();
  net_presets();
  presets_file_checks();
  return mvtest_end();
}

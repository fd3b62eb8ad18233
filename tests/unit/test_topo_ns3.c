/* ns-3 HPCC topology files and topo_load: what a good file gives, and the one-line
 * `file:line: message` of each kind of mistake. */
#include "mvtest.h"
#include "topo/topo.h"
#include "topo/topo_int.h"

/* Reads a bad fixture and checks the message names file:line and the problem. */
static void check_bad(const char *name, const char *where, const char *phrase) {
  topo_t t;
  char err[TOPO_ERR_LEN] = "";
  int rc = topo_load(mvtest_data(name), &t, err, sizeof err);
  CHECK_EQ_I64(rc, -1);
  CHECK_STR_CONTAINS(err, where);
  CHECK_STR_CONTAINS(err, phrase);
  CHECK(strchr(err, '\n') == NULL);         /* one line */
  CHECK(t.n_nodes == 0 && t.links == NULL); /* nothing left to free */
}

static void test_line3(void) {
  topo_t t;
  char err[TOPO_ERR_LEN] = "";
  CHECK_EQ_I64(topo_read_ns3(mvtest_data("line3.txt"), &t, err, sizeof err), 0);
  CHECK_STR_CONTAINS(t.kind, "file");
  CHECK_EQ_I64(t.n_nodes, 3);
  CHECK_EQ_I64(t.n_hosts, 2);
  CHECK_EQ_I64(t.n_links, 2);
  CHECK(!t.is_switch[0] && !t.is_switch[1] && t.is_switch[2]);
  CHECK(!t.forwards[0] && !t.forwards[1] && t.forwards[2]);
  CHECK_EQ_I64(t.links[1].a, 1);
  CHECK_EQ_I64(t.links[1].b, 2);
  CHECK_EQ_I64(t.links[1].rate_bps, 100000000000LL);
  CHECK_EQ_I64(t.links[1].delay_ps, 1000000);
  /* Switch 2: port 0 to host 0, port 1 to host 1; each host's only port is 0. */
  CHECK_EQ_I64(t.port_off[2 + 1] - t.port_off[2], 2);
  CHECK_EQ_I64(topo_port_to(&t, 2, 1), 1);
  CHECK_EQ_I64(t.ports[t.port_off[1]].peer_port, 1);
  CHECK_EQ_I64(t.ports[t.port_off[2] + 1].peer_port, 0);
  CHECK_EQ_I64(t.routes.n_groups, 1); /* both hosts hang from switch 2 */
  CHECK_EQ_I64(t.routes.group_node[0], 2);
  CHECK_EQ_I64(t.routes.host_edge_port[0], 0);
  CHECK_EQ_I64(t.routes.host_edge_port[1], 1);
  CHECK_EQ_I64(topo_distance(&t, 0, 1), 2);
  CHECK_EQ_I64(topo_distance(&t, 2, 1), 1);
  uint16_t p[4];
  CHECK_EQ_I64(topo_next_hops(&t, 2, 1, p, 4), 1);
  CHECK_EQ_I64(p[0], 1);
  topo_free(&t);
}

/* Switches need not be the last ids; hosts are whatever is not listed; trailing blank
 * lines are fine. */
static void test_switch_first(void) {
  topo_t t;
  char err[TOPO_ERR_LEN] = "";
  CHECK_EQ_I64(topo_read_ns3(mvtest_data("switch_first.txt"), &t, err, sizeof err), 0);
  CHECK_EQ_I64(t.n_hosts, 2);
  CHECK(t.is_switch[0] && !t.is_switch[2]);
  CHECK_EQ_I64(t.links[0].rate_bps, 25000000000LL);
  CHECK(t.links[0].error_rate == 0.01);
  CHECK_EQ_I64(t.links[1].delay_ps, 500000);
  CHECK_EQ_I64(topo_distance(&t, 1, 2), 2);
  topo_free(&t);
}

/* Lines after the declared links are ignored and counted, as ns-3's third.cc reads
 * the declared number and nothing after: the HPCC repository's own mix/topology.txt
 * declares 65 links and holds 256 link lines and 5 lines of help (196 ignored). */
static void test_extra_lines(void) {
  topo_t t;
  char err[TOPO_ERR_LEN] = "";
  CHECK_EQ_I64(topo_read_ns3(mvtest_data("bad/topo_more_links.txt"), &t, err, sizeof err), 0);
  CHECK_EQ_I64(t.n_links, 1);
  CHECK_EQ_I64(t.ignored_lines, 1);
  topo_free(&t);
  CHECK_EQ_I64(topo_read_ns3(mvtest_data("peers/hpcc/mix/topology.txt"), &t, err, sizeof err), 0);
  CHECK_EQ_I64(t.n_nodes, 66);
  CHECK_EQ_I64(t.n_links, 65);
  CHECK_EQ_I64(t.ignored_lines, 196);
  CHECK_EQ_I64(t.links[64].b, 65);
  CHECK_EQ_I64(t.links[64].rate_bps, 100000000000LL);
  topo_free(&t);
}

/* SimAI's topology files, as its gen_Topo_Template.py writes them (6-field header,
 * NVSwitch ids first): DCN+ with one ToR, 16 H100 in 2 servers. Its GPUs reach the
 * GPUs of their server over NVLink only (SimAI's routing), though the ToR is as short
 * a path: read as a plain ns-3 file (its switches alike) the first hop is either. */
static void test_simai(void) {
  topo_t t, plain;
  char err[TOPO_ERR_LEN] = "";
  const char *f = "peers/simai/DCN+SingleToR_16g_8gps_400Gbps_H100";
  CHECK_EQ_I64(topo_read_ns3(mvtest_data(f), &t, err, sizeof err), 0);
  if (err[0]) fprintf(stderr, "%s\n", err);
  CHECK_EQ_I64(t.n_nodes, 27);
  CHECK_EQ_I64(t.n_hosts, 16);
  CHECK_EQ_I64(t.n_links, 40);
  CHECK_EQ_I64(t.gpus_per_server, 8);
  CHECK(strcmp(t.gpu_type, "H100") == 0);
  CHECK(t.nvswitch && t.nvswitch[16] && t.nvswitch[17] && !t.nvswitch[18] && t.is_switch[16]);
  uint16_t hop[8];
  CHECK_EQ_I64(topo_next_hops(&t, 0, 1, hop, 8), 1);
  CHECK_EQ_I64(t.ports[t.port_off[0] + hop[0]].peer, 16);
  CHECK_EQ_I64(topo_next_hops(&t, 0, 9, hop, 8), 1); /* another server: the ToR, 18 */
  CHECK_EQ_I64(t.ports[t.port_off[0] + hop[0]].peer, 18);
  CHECK_EQ_I64(t.links[0].rate_bps, 2880000000000LL);
  /* the same links under an ns-3 header: both first hops */
  char *text;
  size_t len;
  CHECK_EQ_I64(topo_read_file(mvtest_data(f), &text, &len, err, sizeof err), 0);
  const char *nl = memchr(text, '\n', len);
  char *alt = malloc(len + 16);
  int k = snprintf(alt, 16, "27 11 40");
  memcpy(alt + k, nl, len - (size_t)(nl - text));
  CHECK_EQ_I64(topo_parse_ns3("plain.txt", alt, (size_t)k + len - (size_t)(nl - text), &plain, err,
                              sizeof err),
               0);
  CHECK(plain.nvswitch == NULL && plain.gpus_per_server == 0);
  CHECK_EQ_I64(topo_next_hops(&plain, 0, 1, hop, 8), 2);
  free(alt);
  free(text);
  topo_free(&plain);
  topo_free(&t);
  CHECK_EQ_I64(topo_read_ns3(mvtest_data("peers/simai/Spectrum-X_16g_8gps_400Gbps_H100"), &t, err,
                             sizeof err),
               0);
  CHECK_EQ_I64(t.n_hosts, 16);
  CHECK_EQ_I64(t.n_links, 544);
  topo_free(&t);
}

static void test_errors(void) {
  check_bad("bad/topo_header.txt", "topo_header.txt:1:", "expected 'nodes switches links'");
  check_bad("bad/topo_dup_switch.txt", "topo_dup_switch.txt:2:", "switch id 7 listed twice");
  check_bad("bad/topo_switch_range.txt",
            "topo_switch_range.txt:2:", "switch id 10, but there are only 10 nodes (0..9)");
  check_bad("bad/topo_switch_count.txt",
            "topo_switch_count.txt:2:", "expected 3 switch ids, found 2");
  check_bad("bad/topo_no_unit.txt",
            "topo_no_unit.txt:3:", "rate '100' has no unit (write e.g. 100Gbps)");
  check_bad("bad/topo_bad_unit.txt", "topo_bad_unit.txt:3:", "rate '100GBps' has an unknown unit");
  check_bad("bad/topo_zero_delay.txt", "topo_zero_delay.txt:4:", "delay must be > 0");
  check_bad("bad/topo_delay_no_unit.txt", "topo_delay_no_unit.txt:3:", "delay '0.001' has no unit");
  check_bad("bad/topo_delay_fine.txt", "topo_delay_fine.txt:3:", "finer than 1 ps");
  check_bad("bad/topo_node_range.txt",
            "topo_node_range.txt:5:", "link to node 99, but there are only 80 nodes (0..79)");
  check_bad("bad/topo_fewer_links.txt", "topo_fewer_links.txt:1:", "expected 3 links, found 2");
  check_bad("bad/topo_self.txt", "topo_self.txt:4:", "link from node 2 to itself");
  check_bad("bad/topo_error_rate.txt",
            "topo_error_rate.txt:3:", "error rate '1.5' is not a number in [0, 1)");
  check_bad("bad/topo_fields.txt",
            "topo_fields.txt:3:", "expected 'src dst rate delay error_rate', found 4 fields");
  check_bad("bad/no_such_file.txt", "cannot open ", "no_such_file.txt: No such file or directory");
  /* csg-htsim's own sim/datacenter/topologies/leaf_spine_tiny.topo: refused by name */
  check_bad("peers/htsim/leaf_spine_tiny.topo", "leaf_spine_tiny.topo:1:",
            "an htsim topology (Nodes, Tiers, Podsize, per-tier speeds): not read here");
}

/* topo_parse_ns3 of text with one link line `link`: rc -1 and a message with phrase. */
static void check_link(const char *link, const char *phrase) {
  char text[256], err[TOPO_ERR_LEN] = "";
  topo_t t;
  int n = snprintf(text, sizeof text, "3 1 2\n2\n0 2 100Gbps 0.001ms 0\n%s\n", link);
  CHECK_EQ_I64(topo_parse_ns3("mem.txt", text, (size_t)n, &t, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "mem.txt:4: ");
  CHECK_STR_CONTAINS(err, phrase);
  CHECK(t.n_nodes == 0 && t.links == NULL);
}

/* The limits of docs/formats.md "Limits": 1 ps to 1 s, 1 Gb/s to 1 Pb/s, and text only. */
static void test_limits(void) {
  char err[TOPO_ERR_LEN] = "";
  topo_t t;
  const char ok[] = "3 1 2\n2\n0 2 1Gbps 1s 0\n1 2 1000Tbps 1ps 0\n";
  CHECK_EQ_I64(topo_parse_ns3("mem.txt", ok, sizeof ok - 1, &t, err, sizeof err), 0);
  CHECK_EQ_I64(t.links[0].delay_ps, 1000000000000LL);
  CHECK_EQ_I64(t.links[1].rate_bps, 1000000000000000LL);
  topo_free(&t);
  check_link("1 2 100Gbps 10s 0", "delay '10s' is more than 1s, the largest delay");
  check_link("1 2 100Gbps 1.000000000001s 0", "is more than 1s, the largest delay");
  check_link("1 2 100Gbps 9223372036854775807ps 0",
             "delay '9223372036854775807ps' is more than 1s, the largest delay");
  check_link("1 2 100Gbps 99999999999999999999999ps 0", "is more than 1s, the largest delay");
  check_link("1 2 100Gbps 0.0010000000000000000000001ms 0", "is finer than 1 ps");
  check_link("1 2 999999999bps 1us 0", "rate '999999999bps' is below 1Gbps, the smallest rate");
  check_link("1 2 1000.000001Tbps 1us 0", "rate '1000.000001Tbps' is above 1000Tbps (1 Pb/s)");
  check_link("1 2 99999999999999999999Gbps 1us 0", "is above 1000Tbps (1 Pb/s), the largest rate");
  const char nul[] = "3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms\0 junk\n";
  CHECK_EQ_I64(topo_parse_ns3("mem.txt", nul, sizeof nul - 1, &t, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "mem.txt:4: a NUL byte");
  /* A hand-made topology meets the same limits in topo_finish. */
  CHECK_EQ_I64(topo_alloc(&t, 2, 1, "file", err, sizeof err), 0);
  topo_add_link(&t, 0, 1, 100000000000LL, 2000000000000LL, 0);
  CHECK_EQ_I64(topo_finish(&t, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "link 0: delay 2000000000000 ps is more than 1s, the largest delay");
  t.links[0].delay_ps = 1000;
  t.links[0].rate_bps = 100000000;
  CHECK_EQ_I64(topo_finish(&t, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "link 0: rate 100000000 bit/s is below 1Gbps, the smallest rate");
  topo_free(&t);
}

static void test_json(void) {
  topo_t t;
  char err[TOPO_ERR_LEN] = "";
  /* {"topology": {"kind": "file", "path": "line3.txt"}}: found next to the JSON. */
  CHECK_EQ_I64(topo_load(mvtest_data("topo_file.json"), &t, err, sizeof err), 0);
  CHECK_EQ_I64(t.n_nodes, 3);
  CHECK_EQ_I64(t.n_links, 2);
  topo_free(&t);
  /* A bare topology object. */
  CHECK_EQ_I64(topo_load(mvtest_data("leafspine_k4.json"), &t, err, sizeof err), 0);
  CHECK_EQ_I64(t.n_hosts, 8); /* 4 leaves x 2 hosts */
  CHECK_EQ_I64(t.n_nodes, 14);
  CHECK_EQ_I64(t.links[t.n_links - 1].rate_bps, 400000000000LL);
  CHECK_EQ_I64(t.links[0].rate_bps, 400000000000LL); /* host_gbps defaults to link_gbps */
  topo_free(&t);
  check_bad("bad/topo_syntax.json", "topo_syntax.json:3: JSON error:", "");
  check_bad("bad/topo_k5.json", "topo_k5.json: topology.k:", "must be an even number >= 2, got 5");
}

int main(void) {
  test_line3();
  test_switch_first();
  test_errors();
  test_extra_lines();
  test_simai();
  test_limits();
  test_json();
  return mvtest_end();
}

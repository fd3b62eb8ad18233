/* Flow files: fields, ns-3 source ports, exact start times, and the `file:line:
 * message` of each kind of bad line. */
#include "mvtest.h"
#include "traffic/trf.h"

static topo_t line3, island; /* host 0 - switch 2 - host 1; island adds host 3, unlinked */

static void check_bad(const char *name, const topo_t *t, const char *where, const char *phrase) {
  trf_flows_t fl;
  char err[TOPO_ERR_LEN] = "";
  CHECK_EQ_I64(trf_read_ns3(mvtest_data(name), t, &fl, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, where);
  CHECK_STR_CONTAINS(err, phrase);
  CHECK(fl.n == 0 && fl.f == NULL);
}

static void test_seconds(void) {
  CHECK_EQ_I64(trf_parse_seconds("2"), 2000000000000LL);
  CHECK_EQ_I64(trf_parse_seconds("2.5"), 2500000000000LL);
  CHECK_EQ_I64(trf_parse_seconds("2.000001"), 2000001000000LL);
  CHECK_EQ_I64(trf_parse_seconds("0.000001"), 1000000);
  CHECK_EQ_I64(trf_parse_seconds("1e-3"), 1000000000);
  CHECK_EQ_I64(trf_parse_seconds("2.0e-6"), 2000000);
  CHECK_EQ_I64(trf_parse_seconds("1.5E+2"), 150000000000000LL);
  CHECK_EQ_I64(trf_parse_seconds("0.000000000001"), 1);
  CHECK_EQ_I64(trf_parse_seconds("0.000000000001000000"), 1); /* zeros below the ps */
  CHECK_EQ_I64(trf_parse_seconds("0"), 0);
  CHECK_EQ_I64(trf_parse_seconds("0.0"), 0);
  CHECK_EQ_I64(trf_parse_seconds(".5"), 500000000000LL);
  CHECK_EQ_I64(trf_parse_seconds("0.0000000000015"), -1); /* half a ps */
  CHECK_EQ_I64(trf_parse_seconds("1e-13"), -1);
  CHECK_EQ_I64(trf_parse_seconds("-1"), -1);
  CHECK_EQ_I64(trf_parse_seconds("1s"), -1);
  CHECK_EQ_I64(trf_parse_seconds("1e"), -1);
  CHECK_EQ_I64(trf_parse_seconds(""), -1);
  CHECK_EQ_I64(trf_parse_seconds("."), -1);
  CHECK_EQ_I64(trf_parse_seconds("1e30"), BASE_DEC_TOO_LARGE); /* past int64 ps */
  CHECK_EQ_I64(trf_parse_seconds("9223372.036854775807"), INT64_MAX);
  CHECK_EQ_I64(trf_parse_seconds("9223372.036854775808"), BASE_DEC_TOO_LARGE);
  CHECK_EQ_I64(trf_parse_seconds("10000000"), BASE_DEC_TOO_LARGE); /* 10^19 ps */
  CHECK_EQ_I64(trf_parse_seconds("1e99999999999"), BASE_DEC_TOO_LARGE);
  CHECK_EQ_I64(trf_parse_seconds("0e99999999999"), 0);
  /* Any number of digits: zeros at either end cost nothing, others must reach the ps. */
  CHECK_EQ_I64(trf_parse_seconds("100000000000000000000000e-20"), 1000000000000000LL);
  CHECK_EQ_I64(trf_parse_seconds("0.00000000000000000000000001e26"), 1000000000000LL);
  CHECK_EQ_I64(trf_parse_seconds("123456789012345678901234e-20"), -1); /* below the ps */
  CHECK_EQ_I64(trf_parse_seconds("1234567.890123456789"), 1234567890123456789LL);
  CHECK_EQ_I64(trf_parse_seconds("1e-12"), 1);
  CHECK_EQ_I64(trf_parse_seconds("1e+6"), 1000000000000000000LL);
  CHECK_EQ_I64(trf_parse_seconds("1.e1"), 10000000000000LL);
  CHECK_EQ_I64(trf_parse_seconds("1e+"), -1);
  CHECK_EQ_I64(trf_parse_seconds("1.2.3"), -1);
  CHECK_EQ_I64(trf_parse_seconds("+1"), -1);
}

/* trf_parse_ns3 of one flow line `flow` on line3: rc -1 and a message with phrase. */
static void check_line(const char *flow, size_t len, const char *phrase) {
  char text[256], err[TOPO_ERR_LEN] = "";
  trf_flows_t fl;
  memcpy(text, "1\n", 2);
  memcpy(text + 2, flow, len);
  CHECK_EQ_I64(trf_parse_ns3("mem.txt", text, len + 2, &line3, &fl, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "mem.txt:2: ");
  CHECK_STR_CONTAINS(err, phrase);
  CHECK(fl.n == 0 && fl.f == NULL);
}
#define CHECK_LINE(flow, phrase) check_line(flow, sizeof flow - 1, phrase)

/* The limits of docs/formats.md "Limits": start at most 1e6 s, at most 2^40 bytes, priority 1..7. */
static void test_limits(void) {
  trf_flows_t fl;
  char err[TOPO_ERR_LEN] = "";
  const char ok[] = "2\n0 1 3 100 1099511627776 1000000\n1 0 3 100 1 999999.999999999999\n";
  CHECK_EQ_I64(trf_parse_ns3("mem.txt", ok, sizeof ok - 1, &line3, &fl, err, sizeof err), 0);
  CHECK_EQ_I64(fl.f[0].start_ps, 1000000000000000000LL);
  CHECK_EQ_I64(fl.f[0].bytes, 1099511627776LL);
  CHECK_EQ_I64(fl.f[1].start_ps, 999999999999999999LL);
  trf_free(&fl);
  CHECK_LINE("0 1 3 100 4096 1e9\n", "start time '1e9' is past 1000000 s (1e6), the latest start");
  CHECK_LINE("0 1 3 100 4096 4000000\n", "start time '4000000' is past 1000000 s");
  CHECK_LINE("0 1 3 100 4096 9223372.036854\n", "start time '9223372.036854' is past");
  CHECK_LINE("0 1 3 100 4096 1000000.000000000001\n", "is past 1000000 s");
  CHECK_LINE("0 1 3 100 4096 1e30\n", "start time '1e30' is past 1000000 s");
  CHECK_LINE("0 1 0 100 4096 0\n",
             "priority '0': a data class 1..7 is accepted (ns-3's queue 0 is for control packets)");
  CHECK_LINE("0 1 8 100 4096 0\n", "priority '8': a data class 1..7");
  CHECK_LINE("0 1 4294967296 100 4096 0\n", "priority '4294967296': a data class 1..7");
  CHECK_LINE("0 1 3 100 4096 0\0 junk\n", "a NUL byte: this is not a text file");
  CHECK_LINE("0 1 3 100 4096 0 \0\n", "a NUL byte");
}

static void test_read(void) {
  trf_flows_t fl;
  char err[TOPO_ERR_LEN] = "";
  CHECK_EQ_I64(trf_read_ns3(mvtest_data("flows_line3.txt"), &line3, &fl, err, sizeof err), 0);
  CHECK_EQ_I64(fl.n, 3);
  CHECK_EQ_I64(fl.f[0].src, 0);
  CHECK_EQ_I64(fl.f[0].dst, 1);
  CHECK_EQ_I64(fl.f[0].prio, TRF_PRIO);
  CHECK_EQ_I64(fl.f[0].dport, 100);
  CHECK_EQ_I64(fl.f[0].bytes, 200000000);
  CHECK_EQ_I64(fl.f[0].start_ps, 2000001000000LL);
  CHECK_EQ_I64(fl.f[0].line, 2);
  /* sport: 10000 + earlier flows of the same (src, dst). */
  CHECK_EQ_I64(fl.f[0].sport, 10000);
  CHECK_EQ_I64(fl.f[1].sport, 10001);
  CHECK_EQ_I64(fl.f[2].sport, 10000);
  CHECK_EQ_I64(fl.f[2].start_ps, 1000000);
  trf_free(&fl);
  CHECK(fl.f == NULL && fl.n == 0);
}

static void test_errors(void) {
  check_bad("bad/flows_empty.txt", &line3, "flows_empty.txt:1:", "empty file");
  check_bad("bad/flows_count.txt", &line3, "flows_count.txt:1:", "expected the number of flows");
  check_bad("bad/flows_fewer.txt", &line3, "flows_fewer.txt:1:", "expected 3 flows, found 2");
  check_bad("bad/flows_switch.txt", &line3,
            "flows_switch.txt:2:", "flow to switch 2: flows must start and end at hosts");
  check_bad("bad/flows_node.txt", &line3,
            "flows_node.txt:3:", "node '9' is not in the topology (nodes 0..2)");
  check_bad("bad/flows_self.txt", &line3, "flows_self.txt:2:", "flow from node 1 to itself");
  check_bad("bad/flows_size0.txt", &line3, "flows_size0.txt:2:", "flow size must be > 0");
  check_bad("bad/flows_size_big.txt", &line3, "flows_size_big.txt:2:",
            "flow size '1099511627777' is not a number of bytes up to 2^40");
  check_bad("bad/flows_negative.txt", &line3,
            "flows_negative.txt:2:", "start time '-1' must be >= 0");
  check_bad("bad/flows_fine.txt", &line3, "flows_fine.txt:2:", "start time '1e-13' is not");
  check_bad("bad/flows_fields.txt", &line3, "flows_fields.txt:2:",
            "expected 'src dst priority dport size start_seconds', found 5 fields");
  check_bad("bad/flows_dport.txt", &line3, "flows_dport.txt:2:", "dport '70000'");
  check_bad("bad/flows_unreachable.txt", &island,
            "flows_unreachable.txt:2:", "flow from 0 to 3: no path");
  check_bad("bad/no_such_flows.txt", &line3, "cannot open ", "No such file or directory");
}

/* Lines after the announced flows are ignored and counted, as ns-3's third.cc reads
 * the announced number: the HPCC repository's own mix/flow.txt announces 2 flows and
 * holds 256 flow lines and 3 of help (259 ignored), on its own mix/topology.txt. */
static void test_extra_lines(void) {
  trf_flows_t fl;
  topo_t mix;
  char err[TOPO_ERR_LEN] = "";
  CHECK_EQ_I64(trf_read_ns3(mvtest_data("bad/flows_more.txt"), &line3, &fl, err, sizeof err), 0);
  CHECK_EQ_I64(fl.n, 1);
  CHECK_EQ_I64(fl.ignored_lines, 1);
  trf_free(&fl);
  CHECK_EQ_I64(topo_read_ns3(mvtest_data("peers/hpcc/mix/topology.txt"), &mix, err, sizeof err), 0);
  CHECK_EQ_I64(trf_read_ns3(mvtest_data("peers/hpcc/mix/flow.txt"), &mix, &fl, err, sizeof err), 0);
  CHECK_EQ_I64(fl.n, 2);
  CHECK_EQ_I64(fl.f[1].src, 3);
  CHECK_EQ_I64(fl.f[1].bytes, 200000000);
  CHECK_EQ_I64(fl.f[1].start_ps, 2000000000000LL);
  CHECK_EQ_I64(fl.ignored_lines, 259);
  trf_free(&fl);
  topo_free(&mix);
}

int main(void) {
  char err[TOPO_ERR_LEN];
  if (topo_read_ns3(mvtest_data("line3.txt"), &line3, err, sizeof err) < 0 ||
      topo_read_ns3(mvtest_data("island.txt"), &island, err, sizeof err) < 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  test_seconds();
  test_read();
  test_errors();
  test_extra_lines();
  test_limits();
  topo_free(&line3);
  topo_free(&island);
  return mvtest_end();
}

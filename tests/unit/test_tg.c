/* Task graphs: ns-3 source ports, and the message of each kind of bad graph.
 * GPU and stream indices up to 16777215 are accepted, one past refused. */
#include "mvsim.h"
#include "mvtest.h"
#include "tg/tg.h"

static topo_t star; /* hosts 0..3 around switch 4 */

static tg_task_t flow(int32_t src, int32_t dst, uint64_t bytes) {
  tg_task_t t = tg_task_default(TG_FLOW);
  t.host = src;
  t.dst = dst;
  t.bytes = bytes;
  return t;
}

static void check_bad(const tg_t *g, const char *phrase) {
  char err[512] = "";
  CHECK_EQ_I64(tg_check(g, &star, "g.json", err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "g.json");
  CHECK_STR_CONTAINS(err, phrase);
}

static void test_ports(void) {
  tg_t g = {0};
  tg_task_t f = flow(0, 1, 10);
  tg_add(&g, &f); /* 0 -> 1: 10000 */
  tg_add(&g, &f); /* 0 -> 1: 10001 */
  f.dst = 2;
  tg_add(&g, &f); /* 0 -> 2: 10000 */
  f.dst = 1;
  f.sport = 20000;
  tg_add(&g, &f); /* given */
  f.sport = 0;
  tg_add(&g, &f); /* 0 -> 1 after 20000: 20001 */
  tg_task_t c = tg_task_default(TG_COMPUTE);
  tg_add(&g, &c);
  tg_assign_ports(&g);
  CHECK_EQ_I64(g.t[0].sport, 10000);
  CHECK_EQ_I64(g.t[1].sport, 10001);
  CHECK_EQ_I64(g.t[2].sport, 10000);
  CHECK_EQ_I64(g.t[3].sport, 20000);
  CHECK_EQ_I64(g.t[4].sport, 20001);
  CHECK_EQ_I64(g.t[0].dport, 100);
  CHECK_EQ_I64(g.t[5].sport, 0);
  char err[256];
  CHECK_EQ_I64(tg_check(&g, &star, "g", err, sizeof err), 0);
  tg_free(&g);
}

static void test_bad(void) {
  tg_t g = {0};
  tg_task_t f = flow(0, 4, 10);
  tg_add(&g, &f);
  check_bad(&g, "destination 4 is not a host");
  g.t[0] = flow(0, 0, 10);
  check_bad(&g, "to itself");
  g.t[0] = flow(0, 1, 0);
  check_bad(&g, "0 bytes");
  g.t[0] = flow(4, 1, 10);
  check_bad(&g, "host 4 is not a host");
  g.t[0] = flow(0, 1, 10);
  g.t[0].stream = TG_MAX_ID + 1; /* arrays are sized by the largest index */
  check_bad(&g, "GPU -1, stream 16777216: each must be -1 (none) or 0..16777215");
  g.t[0].stream = -1;
  g.t[0].gpu = -2;
  check_bad(&g, "GPU -2, stream -1");
  g.t[0] = flow(0, 1, 10);
  g.t[0].line = 7;
  g.t[0].start = -1;
  check_bad(&g, "g.json:7: start, delay and duration must be >= 0");
  /* The limits of docs/formats.md "Limits", at the edge (accepted) and one past. */
  char err0[256];
  g.t[0].start = 1000000000000000000LL;
  g.t[0].bytes = (uint64_t)1 << 40;
  CHECK_EQ_I64(tg_check(&g, &star, "g.json", err0, sizeof err0), 0);
  g.t[0].start++;
  check_bad(&g, "g.json:7: start 1000000000000000001 ps is past 1e18 ps (1e6 s), the latest start");
  g.t[0].start = 0;
  g.t[0].bytes++;
  check_bad(&g, "g.json:7: a flow of 1099511627777 bytes: 1 to 2^40 (1 TiB)");
  g.t[0].bytes = 10;
  g.t[0].delay = 60000000000000000LL;
  g.t[0].dur = 40000000000000000LL;
  CHECK_EQ_I64(tg_check(&g, &star, "g.json", err0, sizeof err0), 0);
  g.t[0].dur++;
  check_bad(&g, "g.json:7: delay 60000000000000000 ps + duration 40000000000000001 ps: more than "
                "1e17 ps (1e5 s)");
  g.t[0].delay = INT64_MAX;
  check_bad(&g, "more than 1e17 ps (1e5 s)");
  g.t[0].delay = g.t[0].dur = 0;
  g.t[0].start = 0;
  tg_task_t c = tg_task_default(TG_COMPUTE);
  c.host = 2;
  c.dur = 5;
  tg_add(&g, &c);
  tg_edge(&g, 1, 1, TG_ON_END);
  check_bad(&g, "task 1: the task waits for itself");
  g.e[0] = (tg_edge_t){1, 5, TG_ON_END};
  check_bad(&g, "no such task");
  { /* one line whatever the file's name holds (base_errf) */
    char err[512];
    CHECK_EQ_I64(tg_check(&g, &star, "a\nb.json", err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "a?b.json: an edge names task 1 after task 5: no such task");
    g.e[0] = (tg_edge_t){1, 1, TG_ON_END};
    CHECK_EQ_I64(tg_check(&g, &star, "a\rb", err, sizeof err), -1);
    CHECK_STR_CONTAINS(err, "a?b: task 1: the task waits for itself");
    g.e[0] = (tg_edge_t){1, 5, TG_ON_END};
  }
  g.e[0] = (tg_edge_t){0, 1, TG_ON_RECV};
  check_bad(&g, "not a flow");
  g.e[0] = (tg_edge_t){1, 0, TG_ON_RECV};
  char err[256];
  CHECK_EQ_I64(tg_check(&g, &star, "g", err, sizeof err), 0);
  g.t[1].need = 2;
  check_bad(&g, "needs 2 predecessors but has 1");
  g.t[1].need = 1;
  tg_edge(&g, 0, 1, TG_ON_END); /* 0 <-> 1 */
  check_bad(&g, "cycle");
  g.n_edges = 1;
  /* Streams: 2 waits for 1 by stream order; an edge 1 <- 2 closes a cycle. */
  c.stream = 3;
  g.t[1].stream = 3;
  tg_add(&g, &c);
  tg_edge(&g, 1, 2, TG_ON_END);
  check_bad(&g, "cycle");
  g.n_edges = 1;
  CHECK_EQ_I64(tg_check(&g, &star, "g", err, sizeof err), 0);
  g.t[2].host = 3;
  check_bad(&g, "stream 3 is on host 2, not 3");
  g.t[2].host = 2;
  g.t[1].gpu = 5;
  g.t[0].gpu = 5;
  check_bad(&g, "GPU 5 is on host 0, not 2");
  tg_free(&g);
}

int main(void) {
  star = mvsim_star(4, 100000000000LL, 1000000);
  test_ports();
  test_bad();
  topo_free(&star);
  return mvtest_end();
}

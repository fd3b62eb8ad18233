/* htsim connection matrices: a hand-written .cm with triggers gives the
 * hand-computed task graph; each malformed line fails with file:line; flow
 * files are told apart by content. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <unistd.h>

#include "mvsim.h"
#include "mvtest.h"
#include "traffic/trf.h"

static topo_t star; /* hosts 0..7 around switch 8 */
static char dir[64];

static int has_edge(const tg_t *g, int32_t task, int32_t pred, tg_on_t on) {
  for (int32_t i = 0; i < g->n_edges; i++)
    if (g->e[i].task == task && g->e[i].pred == pred && g->e[i].on == (int32_t)on) return 1;
  return 0;
}

static void join(const tg_t *g, int32_t i, int32_t host, int32_t need, int32_t line) {
  CHECK_EQ_I64(g->t[i].kind, TG_JOIN);
  CHECK_EQ_I64(g->t[i].host, host);
  CHECK_EQ_I64(g->t[i].need, need);
  CHECK_EQ_I64(g->t[i].line, line);
}

static void test_triggers(void) {
  tg_t g = {0};
  char err[512] = "";
  CHECK_EQ_I64(trf_read_cm(mvtest_data("triggers.cm"), &star, &g, err, sizeof err), 0);
  if (err[0]) fprintf(stderr, "%s\n", err);
  /* flows 0..6 in file order, then the joins of triggers 1, 2, 3 */
  CHECK_EQ_I64(g.n, 12);
  CHECK_EQ_I64(g.n_edges, 13);
  static const int32_t src[7] = {0, 1, 3, 2, 5, 6, 7}, dst[7] = {1, 2, 2, 4, 6, 7, 0};
  static const uint64_t bytes[7] = {4096, 8192, 100, 1000, 1000, 1000, 1000};
  for (int32_t i = 0; i < 7; i++) {
    CHECK_EQ_I64(g.t[i].kind, TG_FLOW);
    CHECK_EQ_I64(g.t[i].host, src[i]);
    CHECK_EQ_I64(g.t[i].dst, dst[i]);
    CHECK_EQ_I64(g.t[i].bytes, bytes[i]);
    CHECK_EQ_I64(g.t[i].line, 7 + i);
    CHECK_EQ_I64(g.t[i].sport, 10000);
  }
  CHECK_EQ_I64(g.t[0].start, 1000000); /* ps, as htsim reads it */
  CHECK_EQ_I64(g.t[2].start, 2000000);
  CHECK_EQ_I64(g.t[1].start, 0);
  CHECK_EQ_I64(g.t[1].prio, 3);
  /* oneshot 1: fired by flow 0's end; targets on hosts 1 and 7: a join each */
  join(&g, 7, 1, 1, 14);
  join(&g, 8, 7, 1, 14);
  CHECK(has_edge(&g, 7, 0, TG_ON_END) && has_edge(&g, 8, 0, TG_ON_END));
  CHECK(has_edge(&g, 1, 7, TG_ON_END) && has_edge(&g, 6, 8, TG_ON_END));
  /* barrier 2 (count 2): the arrivals of flows 1 and 2 */
  join(&g, 9, 2, 2, 15);
  CHECK(has_edge(&g, 9, 1, TG_ON_RECV) && has_edge(&g, 9, 2, TG_ON_RECV));
  CHECK(has_edge(&g, 3, 9, TG_ON_END));
  /* multishot 3: two signals from flow 3 (end, recv); its first target starts
   * on the first, the second on the second */
  join(&g, 10, 5, 1, 16);
  join(&g, 11, 6, 2, 16);
  for (int32_t j = 10; j <= 11; j++)
    CHECK(has_edge(&g, j, 3, TG_ON_END) && has_edge(&g, j, 3, TG_ON_RECV));
  CHECK(has_edge(&g, 4, 10, TG_ON_END) && has_edge(&g, 5, 11, TG_ON_END));
  tg_free(&g);
}

/* The same file run by the engine: a trigger fires at its signal's time, and
 * a target on another host than the signal starts sync later. */
static void test_run(void) {
  tg_t g = {0};
  char err[512] = "";
  CHECK_EQ_I64(trf_read_cm(mvtest_data("triggers.cm"), &star, &g, err, sizeof err), 0);
  eng_params_t par = mvsim_params();
  eng_exp_desc_t ex = {.topo = &star, .tasks = &g, .params = &par, .seed = 1};
  eng_batch_t *w = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  eng_result_t r;
  eng_exp_result(w, 0, &r);
  CHECK_EQ_I64(r.status, ENG_OK);
  int64_t s = par.sync;
  CHECK_EQ_I64(mvsim_start(w, 0, 0), 1000000);
  CHECK_EQ_I64(mvsim_start(w, 0, 1), mvsim_end(w, 0, 0) + s); /* oneshot, host 0 -> 1 */
  CHECK_EQ_I64(mvsim_start(w, 0, 6), mvsim_end(w, 0, 0) + s);
  int64_t r1 = mvsim_recv(w, 0, 1), r2 = mvsim_recv(w, 0, 2);
  CHECK_EQ_I64(mvsim_start(w, 0, 3), r1 > r2 ? r1 : r2);       /* barrier: both at host 2 */
  CHECK_EQ_I64(mvsim_start(w, 0, 4), mvsim_recv(w, 0, 3) + s); /* multishot: 1st, 2nd */
  CHECK_EQ_I64(mvsim_start(w, 0, 5), mvsim_end(w, 0, 3) + s);
  eng_batch_destroy(w);
  tg_free(&g);
}

/* Writes `text` to DIR/NAME and returns the path. */
static const char *file(const char *name, const char *text) {
  static char path[4][256];
  static int k;
  k = (k + 1) % 4;
  snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
  FILE *f = fopen(path[k], "w");
  fputs(text, f);
  fclose(f);
  return path[k];
}

static void bad(const char *body, const char *want) {
  char text[2048];
  snprintf(text, sizeof text, "Nodes 8\nConnections 1\n%s", body);
  tg_t g = {0};
  char err[512] = "";
  CHECK_EQ_I64(trf_read_cm(file("bad.cm", text), &star, &g, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, want);
  tg_free(&g);
}

/* size 0: htsim's flow without end (no set_flowsize), a long-lived flow that sends
 * until the experiment's end; not a finite one of 1 TiB (it never ends). */
static void test_open(void) {
  tg_t g = {0};
  char err[512] = "";
  const char *text = "Nodes 8\nConnections 2\n0->1 start 0 size 0\n2->1 start 0 size 10 prio 63\n";
  CHECK_EQ_I64(trf_read_cm(file("open.cm", text), &star, &g, err, sizeof err), 0);
  CHECK_EQ_I64(g.n, 2);
  CHECK_EQ_I64(g.t[0].open, 1);
  CHECK_EQ_I64(g.t[0].bytes, TG_MAX_BYTES);
  CHECK_EQ_I64(g.t[1].open, 0);
  CHECK_EQ_I64(g.t[1].bytes, 10);
  CHECK_EQ_I64(g.t[1].prio, TRF_PRIO); /* htsim's RoCE ignores prio */
  tg_free(&g);
}

static void test_errors(void) {
  bad("0->1 start 0 size -1\n", "bad.cm:3: size '-1': expected an integer in [0,");
  bad("0->1 start 0\n", "bad.cm:3: a flow needs size BYTES");
  bad("0->1 size 10\n", "bad.cm:3: a flow needs start PS or trigger ID");
  bad("0->1 start 0 trigger 1 size 10\ntrigger id 1 oneshot\n",
      "bad.cm:3: a flow has start and trigger");
  bad("0->1 start 0 size 10 colour red\n", "bad.cm:3: unknown token 'colour'");
  bad("0->1 start 0 size 10 size 20\n", "bad.cm:3: size given twice");
  bad("0->1 start 0 size\n", "bad.cm:3: size needs a value");
  bad("0->1 start 1.5 size 10\n", "bad.cm:3: start '1.5': expected a whole number of ps");
  bad("0->1 start -1 size 10\n", "bad.cm:3: start '-1'");
  bad("0->9 start 0 size 10\n", "bad.cm:3: node 9: the file has Nodes 8 (0..7)");
  bad("a->1 start 0 size 10\n", "bad.cm:3: expected SRC->DST with node numbers");
  bad("2->2 start 0 size 10\n", "bad.cm:3: a flow from node 2 to itself");
  bad("0->1 id 0 start 0 size 10\n", "bad.cm:3: id '0'");
  bad("0->1 trigger 4 size 10\n", "bad.cm:3: trigger 4: no trigger line defines it");
  bad("0->1 start 0 size 10 send_done_trigger 2\n", "bad.cm:3: send_done_trigger 2: no trigger");
  bad("0->1 start 0 size 10\nNodes 8\n", "bad.cm:4: Nodes after the first connection");
  bad("0->1 start 0 size 10\nfailure switch_type TOR\n", "bad.cm:4: link failures are not");
  bad("0->1 start 0 size 10\n0->2 start 0 size 10\n", "bad.cm: Connections 1 but 2 connection");
  bad("0->1 start 0 size 10\ntrigger id 1 oneshot\n", "bad.cm: Triggers 0 but 1 trigger lines");
  bad("Triggers 1\n0->1 start 0 size 10\ntrigger oneshot\n", "bad.cm:5: a trigger needs id ID");
  bad("Triggers 1\n0->1 start 0 size 10\ntrigger id 1\n", "bad.cm:5: a trigger needs a type");
  bad("Triggers 1\n0->1 start 0 size 10\ntrigger id 1 barrier\n",
      "bad.cm:5: a barrier needs count C");
  bad("Triggers 1\n0->1 start 0 size 10\ntrigger id 1 oneshot multishot\n",
      "bad.cm:5: a trigger has one type");
  bad("Triggers 1\n0->1 start 0 size 10\ntrigger id 1 sometimes\n",
      "bad.cm:5: unknown token 'sometimes'");
  bad("Triggers 2\n0->1 start 0 size 10\ntrigger id 1 oneshot\ntrigger id 1 oneshot\n",
      "bad.cm:6: trigger id 1 already used on line 5");
  bad("Triggers 1\n0->1 id 1 trigger 1 size 10\ntrigger id 1 barrier count 2\n",
      "bad.cm:5: trigger 1 gets 0 signals (send_done_trigger, recv_done_trigger) but needs 2");
  bad("Hosts 8\n", "bad.cm:3: unknown line 'Hosts'");
  /* The limits of docs/formats.md "Limits": starts up to 1e6 s, sizes up to 2^40 bytes. */
  bad("0->1 start 1000000000000000001 size 10\n",
      "bad.cm:3: start '1000000000000000001' is past 1e18 ps (1e6 s), the latest start");
  bad("0->1 start 1e30 size 10\n", "bad.cm:3: start '1e30' is past 1e18 ps (1e6 s)");
  bad("0->1 start 0 size 1099511627777\n", "bad.cm:3: size '1099511627777': expected an integer in "
                                           "[0, 1099511627776]");
  tg_t g = {0};
  char err[512] = "";
  CHECK_EQ_I64(trf_read_cm(file("big.cm", "Nodes 9\nConnections 0\n"), &star, &g, err, sizeof err),
               -1);
  CHECK_STR_CONTAINS(err, "big.cm:1: Nodes 9 but the topology has 8 hosts");
  CHECK_EQ_I64(trf_read_cm(file("dup.cm", "Nodes 8\nConnections 2\n0->1 id 3 start 0 size 1\n"
                                          "1->0 id 3 start 0 size 1\n"),
                           &star, &g, err, sizeof err),
               -1);
  CHECK_STR_CONTAINS(err, "dup.cm:4: flow id 3 already used on line 3");
  CHECK_EQ_I64(trf_read_cm(file("nohead.cm", "0->1 start 0 size 1\n"), &star, &g, err, sizeof err),
               -1);
  CHECK_STR_CONTAINS(err, "nohead.cm:1: expected the header 'Nodes N' and 'Connections M' first");
  static const char nul[] = "Nodes 8\nConnections 1\n0->1 start 0\0 size 1\n";
  const char *path = file("nul.cm", "");
  FILE *f = fopen(path, "wb");
  fwrite(nul, 1, sizeof nul - 1, f);
  fclose(f);
  CHECK_EQ_I64(trf_read_cm(path, &star, &g, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "nul.cm:3: a NUL byte: this is not a text file");
  tg_free(&g);
}

static void test_detect(void) {
  char err[512];
  CHECK_EQ_I64(trf_detect(mvtest_data("flows_line3.txt"), err, sizeof err), TRF_FORMAT_NS3);
  CHECK_EQ_I64(trf_detect(mvtest_data("triggers.cm"), err, sizeof err), TRF_FORMAT_CM);
  CHECK_EQ_I64(trf_detect(file("g.json", "\n  {\"tasks\": []}\n"), err, sizeof err),
               TRF_FORMAT_JSON);
  CHECK_EQ_I64(trf_detect(file("h.cm", "0->1 start 0 size 1\n"), err, sizeof err), TRF_FORMAT_CM);
  CHECK_EQ_I64(trf_detect(file("x.txt", "hello world\n"), err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "x.txt: neither an ns-3 flow file");
  CHECK_EQ_I64(trf_detect(file("e.txt", ""), err, sizeof err), -1);
  CHECK_EQ_I64(trf_detect("no/such/file", err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "no/such/file: cannot open");
}

int main(void) {
  star = mvsim_star(8, 100000000000LL, 1000000);
  snprintf(dir, sizeof dir, "trf_cm_XXXXXX");
  if (!mkdtemp(dir)) return 2;
  test_triggers();
  test_run();
  test_errors();
  test_open();
  test_detect();
  const char *names[] = {"bad.cm", "big.cm", "dup.cm", "nohead.cm", "g.json",
                         "h.cm",   "x.txt",  "e.txt",  "nul.cm"};
  char path[256];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
  topo_free(&star);
  return mvtest_end();
}

/* JSON task graphs: every field of a task, exact us-to-ps conversion, "after"
 * by id, index and event, and the JSON path of each kind of mistake. */
#include "mvsim.h"
#include "mvtest.h"
#include "tg/tg_json.h"

static topo_t star; /* hosts 0..5 around switch 6 */

static int has_edge(const tg_t *g, int32_t task, int32_t pred, tg_on_t on) {
  for (int32_t i = 0; i < g->n_edges; i++)
    if (g->e[i].task == task && g->e[i].pred == pred && g->e[i].on == (int32_t)on) return 1;
  return 0;
}

static void test_example(void) {
  tg_t g = {0};
  char err[512] = "";
  CHECK_EQ_I64(tg_read_json(mvtest_data("taskgraph.json"), &g, err, sizeof err), 0);
  CHECK_EQ_I64(g.n, 5);
  CHECK_EQ_I64(g.n_edges, 4);
  CHECK(g.t[0].kind == TG_FLOW && g.t[0].host == 0 && g.t[0].dst == 5);
  CHECK_EQ_I64(g.t[0].bytes, 1000000);
  CHECK_EQ_I64(g.t[0].start, 1500000);
  CHECK(g.t[1].kind == TG_COMPUTE && g.t[1].host == 5 && g.t[1].gpu == 5);
  CHECK_EQ_I64(g.t[1].dur, 10000000);
  CHECK(has_edge(&g, 1, 0, TG_ON_RECV) && has_edge(&g, 2, 1, TG_ON_END));
  CHECK_EQ_I64(g.t[2].prio, 3);
  CHECK_EQ_I64(g.t[3].dur, 2000001); /* a string: every digit kept */
  CHECK_EQ_I64(g.t[3].stream, 0);
  CHECK(g.t[4].kind == TG_JOIN && g.t[4].label >= 0);
  CHECK(strcmp(g.labels[g.t[4].label], "step 2") == 0);
  CHECK(has_edge(&g, 4, 2, TG_ON_RECV) && has_edge(&g, 4, 3, TG_ON_END));
  CHECK_EQ_I64(tg_check(&g, &star, "taskgraph.json", err, sizeof err), 0);
  tg_free(&g);
}

static int read_text(const char *text, tg_t *g, char *err, size_t errlen) {
  json_error_t je;
  json_t *root = json_loads(text, 0, &je);
  if (!root) {
    snprintf(err, errlen, "bad test JSON: %s", je.text);
    return -2;
  }
  int rc = tg_from_json(root, "g.json", g, err, errlen);
  json_decref(root);
  return rc;
}

/* Every field; tasks appended after existing ones. */
static void test_fields(void) {
  tg_t g = {0};
  tg_task_t pre = tg_task_default(TG_JOIN);
  tg_add(&g, &pre);
  char err[512] = "";
  const char *doc =
      "{\"tasks\": ["
      "{\"id\": \"f\", \"kind\": \"flow\", \"host\": 1, \"dst\": 2, \"bytes\": 1e6, \"sport\": "
      "7, \"dport\": 9, \"prio\": 4, \"start_us\": 0.000001, \"delay_us\": 0.1, \"gpu\": 3, "
      "\"stream\": 2, \"label\": \"x\"},"
      "{\"kind\": \"coll\", \"host\": 2, \"dur_us\": 123456.789012, \"need\": 1,"
      " \"after\": [{\"task\": 0, \"on\": \"recv\"}, {\"task\": \"f\"}]},"
      "{\"kind\": \"compute\", \"host\": 2, \"dur_us\": 1e-06, \"delay_us\": 5}]}";
  CHECK_EQ_I64(read_text(doc, &g, err, sizeof err), 0);
  CHECK_EQ_I64(g.n, 4);
  const tg_task_t *f = &g.t[1];
  CHECK(f->host == 1 && f->dst == 2 && f->bytes == 1000000 && f->sport == 7 && f->dport == 9);
  CHECK(f->prio == 4 && f->gpu == 3 && f->stream == 2 && f->need == 0);
  CHECK_EQ_I64(f->start, 1);
  CHECK_EQ_I64(f->delay, 100000);
  CHECK_EQ_I64(g.t[2].kind, TG_COLL);
  CHECK_EQ_I64(g.t[2].dur, 123456789012LL);
  CHECK_EQ_I64(g.t[2].need, 1);
  CHECK(has_edge(&g, 2, 1, TG_ON_RECV) && has_edge(&g, 2, 1, TG_ON_END));
  CHECK_EQ_I64(g.t[3].dur, 1);
  CHECK_EQ_I64(g.t[3].delay, 5000000);
  tg_free(&g);
}

static void bad(const char *tasks, const char *want) {
  char doc[2048], err[512] = "";
  snprintf(doc, sizeof doc, "{\"tasks\": [%s]}", tasks);
  tg_t g = {0};
  CHECK_EQ_I64(read_text(doc, &g, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, want);
  tg_free(&g);
}

#define FLOW "{\"id\": \"a\", \"kind\": \"flow\", \"src\": 0, \"dst\": 5, \"bytes\": 10}"

static void test_errors(void) {
  bad(FLOW ", {\"kind\": \"join\", \"host\": 0, \"after\": [\"a\", \"x\"]}",
      "g.json: tasks[1].after[1]: unknown task \"x\"");
  bad(FLOW ", {\"kind\": \"join\", \"host\": 0, \"after\": [2]}",
      "g.json: tasks[1].after[0]: must be an integer in [0, 1]");
  bad(FLOW ", {\"kind\": \"join\", \"host\": 0, \"after\": [1]}",
      "tasks[1].after[0]: a task cannot wait for itself");
  bad(FLOW ", {\"kind\": \"join\", \"host\": 0}, {\"kind\": \"join\", \"host\": 0, \"after\": "
           "[{\"task\": 1, \"on\": \"recv\"}]}",
      "tasks[2].after[0]: \"on\": \"recv\" needs a flow, tasks[1] is a join");
  bad(FLOW ", {\"kind\": \"join\", \"host\": 0, \"after\": [{\"task\": 0, \"on\": \"start\"}]}",
      "tasks[1].after[0].on: must be \"end\" or \"recv\"");
  bad(FLOW ", {\"kind\": \"join\", \"host\": 0, \"after\": [{\"task\": 0, \"when\": 1}]}",
      "tasks[1].after[0].when: unknown key (task, on)");
  bad(FLOW ", {\"kind\": \"join\", \"host\": 0, \"after\": [{\"on\": \"end\"}]}",
      "tasks[1].after[0].task: is required");
  bad(FLOW ", {\"kind\": \"join\", \"host\": 0, \"after\": [true]}",
      "tasks[1].after[0]: must name a task");
  bad(FLOW ", {\"kind\": \"join\", \"host\": 0, \"after\": \"a\"}",
      "tasks[1].after: must be an array");
  bad(FLOW ", {\"kind\": \"join\", \"host\": 0, \"need\": 2, \"after\": [\"a\"]}",
      "tasks[1].need: 2, more than its 1 predecessors");
  bad(FLOW ", " FLOW, "g.json: tasks[1].id: \"a\" is also tasks[0]'s id");
  bad("{\"kind\": \"flow\", \"src\": 0, \"dst\": 5}", "tasks[0].bytes: is required for a flow");
  bad("{\"kind\": \"flow\", \"src\": 0, \"bytes\": 5}", "tasks[0].dst: is required for a flow");
  bad("{\"kind\": \"flow\", \"src\": 0, \"host\": 0, \"dst\": 5, \"bytes\": 1}",
      "tasks[0].src: give src or host, not both");
  bad("{\"kind\": \"compute\", \"dur_us\": 1}", "tasks[0].host: is required");
  bad("{\"kind\": \"compute\", \"host\": 0, \"stream\": 666E6}",
      "g.json: tasks[0].stream: must be an integer in [-1, 16777215]");
  bad("{\"kind\": \"compute\", \"host\": 0, \"gpu\": 16777216}",
      "g.json: tasks[0].gpu: must be an integer in [-1, 16777215]");
  bad("{\"kind\": \"compute\", \"host\": 0, \"dst\": 1}", "tasks[0].dst: only flows have it");
  bad("{\"kind\": \"join\", \"host\": 0, \"dur_us\": 1}",
      "tasks[0].dur_us: only compute and coll tasks have a duration");
  bad("{\"kind\": \"task\", \"host\": 0}", "tasks[0].kind: must be \"flow\", \"compute\"");
  bad("{\"kind\": \"join\", \"host\": 0, \"colour\": 1}", "tasks[0].colour: unknown key");
  bad("{\"kind\": \"join\", \"host\": -1}", "tasks[0].host: must be an integer in [0,");
  bad("{\"kind\": \"join\", \"host\": 0.5}", "tasks[0].host: must be an integer");
  bad("{\"kind\": \"join\", \"host\": 0, \"start_us\": -1}",
      "tasks[0].start_us: must be a number of us >= 0, exact to the ps");
  bad("{\"kind\": \"join\", \"host\": 0, \"start_us\": 1e-7}", "tasks[0].start_us: must be");
  bad("{\"kind\": \"join\", \"host\": 0, \"start_us\": \"1e13\"}",
      "tasks[0].start_us: is past INT64_MAX ps");
  bad("{\"kind\": \"join\", \"host\": 0, \"delay_us\": \"0.0000001\"}", "tasks[0].delay_us:");
  bad("{\"kind\": \"join\", \"host\": 0, \"label\": 3}", "tasks[0].label: must be a string");
  bad("{\"kind\": \"join\", \"host\": 0, \"id\": \"\"}", "tasks[0].id: must be a non-empty");
  bad("{\"kind\": \"join\", \"host\": 0, \"gpu\": -2}", "tasks[0].gpu: must be an integer in [-1,");
  bad("{\"kind\": \"flow\", \"src\": 0, \"dst\": 5, \"bytes\": 1, \"dport\": 70000}",
      "tasks[0].dport: must be an integer in [0, 65535]");
  bad("3", "g.json: tasks[0]: must be an object");
  tg_t g = {0};
  char err[512] = "";
  CHECK_EQ_I64(read_text("{\"task\": []}", &g, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "g.json: task: unknown key (tasks, description)");
  CHECK_EQ_I64(read_text("{\"tasks\": {}}", &g, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "g.json: tasks: must be an array of tasks");
  /* A cycle passes the reader; tg_check names it. */
  CHECK_EQ_I64(read_text("{\"tasks\": [{\"kind\": \"join\", \"host\": 0, \"after\": [1]},"
                         "{\"kind\": \"join\", \"host\": 0, \"after\": [0]}]}",
                         &g, err, sizeof err),
               0);
  CHECK_EQ_I64(tg_check(&g, &star, "g.json", err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "g.json: task 0: the dependencies form a cycle");
  tg_free(&g);
  FILE *f = fopen("tg_json_broken.json", "w");
  fputs("{\"tasks\": [\n  {\"kind\": \"join\",,}\n]}\n", f);
  fclose(f);
  CHECK_EQ_I64(tg_read_json("tg_json_broken.json", &g, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "tg_json_broken.json:2:");
  remove("tg_json_broken.json");
}

int main(void) {
  star = mvsim_star(6, 100000000000LL, 1000000);
  test_example();
  test_fields();
  test_errors();
  topo_free(&star);
  return mvtest_end();
}

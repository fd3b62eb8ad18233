/* The engine's interface (eng.h): each experiment is validated on its own
 * (an invalid one is a result with its reason, the others run and give what
 * they give alone), memory estimates equal the tables a batch builds, and
 * task times read back (start, end, receive: closed forms of docs/model.md,
 * Tasks).
 * Invalid experiments: a bad parameter, an oversized flow, a dependency cycle,
 * unassigned ports, a bad trace selection; the memory estimate adds up over
 * experiments on distinct topologies. */
#include "mvsim.h"
#include "mvtest.h"

#define US 1000000LL

static tg_t one_flow(uint64_t bytes, int64_t start) {
  tg_t g = {0};
  tg_task_t t = tg_task_default(TG_FLOW);
  t.host = 0;
  t.dst = 1;
  t.bytes = bytes;
  t.sport = 10000;
  t.dport = 100;
  t.start = start;
  t.line = 2;
  if (tg_add(&g, &t) < 0) exit(2);
  return g;
}

static int64_t end_of(const eng_batch_t *b, int32_t e, int32_t task) {
  eng_task_times_t t;
  CHECK(eng_task_times(b, e, task, &t) == 0);
  return t.end;
}

int main(void) {
  topo_t t = mvsim_star(4, 100000000000LL, 1 * US);
  eng_params_t p = mvsim_params(), ring3 = p, tiny = p, hpcc = p;
  char err[512];
  ring3.ring_cap = 3; /* past what --set takes: the engine checks it too */
  CHECK(mvsim_set(&tiny, "mtu=64", err, sizeof err) == 0);
  CHECK(mvsim_set(&hpcc, "cc=hpcc", err, sizeof err) == 0);
  tg_t ok = one_flow(100000, 3 * US), huge = one_flow(1ULL << 40, 0);
  tg_t cyc = one_flow(1000, 0), noport = one_flow(1000, 0), two = one_flow(50000, 0);
  tg_t dep = one_flow(100000, 3 * US);
  tg_task_t f2 = two.t[0];
  f2.host = 2;
  noport.t[0].sport = 0;
  /* dep: task 1 computes on the sender after the flow ends, task 2 on the
   * receiver once it holds every byte, task 3 on a third host after the end. */
  tg_task_t c = tg_task_default(TG_COMPUTE);
  c.dur = 5 * US;
  if (tg_add(&cyc, &cyc.t[0]) < 0 || tg_edge(&cyc, 1, 0, TG_ON_END) ||
      tg_edge(&cyc, 0, 1, TG_ON_END) || tg_add(&two, &f2) < 0 || tg_add(&dep, &c) < 0 ||
      tg_edge(&dep, 1, 0, TG_ON_END))
    exit(2);
  c.host = 1;
  if (tg_add(&dep, &c) < 0 || tg_edge(&dep, 2, 0, TG_ON_RECV)) exit(2);
  c.host = 2;
  if (tg_add(&dep, &c) < 0 || tg_edge(&dep, 3, 0, TG_ON_END)) exit(2);
  int32_t bad_flow = 1;
  eng_trace_desc_t bad_trace = {10 * US, 100, 1, &bad_flow, 0, NULL};
  eng_exp_desc_t ex[] = {
      {&t, &ok, &p, 11, NULL, 0},      {&t, &ok, &ring3, 12, NULL, 0},
      {&t, &huge, &tiny, 13, NULL, 0}, {&t, &cyc, &p, 14, NULL, 0},
      {&t, &noport, &p, 15, NULL, 0},  {&t, &dep, &p, 16, &bad_trace, 0},
      {&t, &two, &hpcc, 17, NULL, 0},  {&t, &dep, &p, 18, NULL, 0},
  };
  const char *why[] = {
      NULL,
      "ring_cap: must be 0 (derived) or a power of two",
      "flow on line 2: 1099511627776 bytes are more than 2^31 packets of mtu 64 (raise mtu)",
      "tasks:2: the dependencies form a cycle through this task",
      "flow on line 2: ports not assigned (tg_assign_ports)",
      "trace: task 1 is not a flow (4 tasks)",
      NULL,
      NULL,
  };
  const int n = (int)(sizeof ex / sizeof ex[0]);
  eng_batch_desc_t d = {.n_exps = n, .exps = ex};
  eng_batch_t *b = NULL;
  eng_run_desc_t cpu = {.backend = ENG_BACKEND_CPU};
  CHECK(eng_batch_create(&d, &b, err, sizeof err) == 0);
  CHECK(eng_batch_run(b, &cpu, err, sizeof err) == 0);
  /* Memory: the estimate is what the batch holds, to the byte. */
  CHECK_EQ_I64(eng_batch_memory(&d), eng_batch_bytes(b));
  for (int e = 0; e < n; e++) {
    eng_result_t r;
    eng_exp_result(b, e, &r);
    char msg[512];
    CHECK_EQ_I64(eng_exp_validate(&ex[e], msg, sizeof msg), why[e] ? -1 : 0);
    if (why[e]) {
      CHECK(r.status == ENG_INVALID);
      CHECK(strcmp(r.message, why[e]) == 0 && strcmp(msg, why[e]) == 0);
      CHECK_EQ_I64(eng_exp_memory(&ex[e]), -1);
      CHECK_EQ_I64(eng_trace_samples(b, e), 0);
      eng_task_times_t tt;
      CHECK(eng_task_times(b, e, 0, &tt) == 0 && tt.start == -1 && tt.end == -1);
    } else {
      CHECK(r.status == ENG_OK && strcmp(r.message, "") == 0);
      CHECK(eng_exp_memory(&ex[e]) > 0);
    }
  }
  /* The counter of ended experiments: each valid one once, however the
   * threads take them (experiment-major: 3 on 2 and on 1 thread; one alone,
   * window-major on 2). */
  eng_exp_desc_t valid[] = {ex[0], ex[6], ex[7]};
  const int32_t counts[] = {3, 3, 1}, threads[] = {0, 0, 2}, most[] = {2, 1, 0};
  for (int k = 0; k < 3; k++) {
    int32_t ended = 0;
    eng_batch_t *cb = NULL;
    eng_run_desc_t run = {.backend = ENG_BACKEND_CPU,
                          .threads = threads[k],
                          .max_threads = most[k],
                          .finished = &ended};
    CHECK(eng_batch_create(&(eng_batch_desc_t){.n_exps = counts[k], .exps = valid}, &cb, err,
                           sizeof err) == 0);
    CHECK(eng_batch_run(cb, &run, err, sizeof err) == 0);
    CHECK_EQ_I64(ended, counts[k]);
    eng_batch_destroy(cb);
  }
  /* A lone flow ends at its start plus its standalone FCT (closed form). */
  eng_task_times_t tt;
  CHECK(eng_task_times(b, 0, 0, &tt) == 0 && tt.start == 3 * US);
  CHECK(tt.recv > tt.start && tt.recv < tt.end);
  CHECK_EQ_I64(tt.end - tt.start, eng_flow_standalone(&t, &p, &ok.t[0]));
  CHECK(eng_task_times(b, 0, 1, &tt) == -1);
  CHECK(end_of(b, 6, 0) > 0 && end_of(b, 6, 1) > 0);
  /* Dependencies: the sender's computation starts when the flow ends there,
   * the receiver's when it holds the last byte, a third host's sync_us after
   * the end; each ends dur later. */
  eng_task_times_t fl, c1, c2, c3;
  CHECK(eng_task_times(b, 7, 0, &fl) == 0 && eng_task_times(b, 7, 1, &c1) == 0);
  CHECK(eng_task_times(b, 7, 2, &c2) == 0 && eng_task_times(b, 7, 3, &c3) == 0);
  CHECK_EQ_I64(fl.end, end_of(b, 0, 0));
  CHECK(fl.recv > fl.start && fl.recv < fl.end && c1.recv == -1);
  CHECK_EQ_I64(c1.start, fl.end);
  CHECK_EQ_I64(c1.end, fl.end + 5 * US);
  CHECK_EQ_I64(c2.start, fl.recv);
  CHECK_EQ_I64(c3.start, fl.end + p.sync);
  CHECK_EQ_I64(c3.end, fl.end + p.sync + 5 * US);

  /* The valid ones alone give the same times; without HPCC in the batch the
   * estimates add up. */
  eng_exp_desc_t alone[] = {ex[0], ex[6]};
  eng_batch_desc_t da = {.n_exps = 2, .exps = alone};
  eng_batch_t *a = NULL;
  CHECK(eng_batch_create(&da, &a, err, sizeof err) == 0 &&
        eng_batch_run(a, &cpu, err, sizeof err) == 0);
  CHECK_EQ_I64(end_of(a, 0, 0), end_of(b, 0, 0));
  CHECK_EQ_I64(end_of(a, 1, 0), end_of(b, 6, 0));
  CHECK_EQ_I64(end_of(a, 1, 1), end_of(b, 6, 1));
  /* Without HPCC and on distinct topologies the estimates add up; on one
   * topology the batch holds its routing tables once. */
  topo_t t2 = mvsim_star(4, 100000000000LL, 1 * US);
  eng_exp_desc_t plain[] = {ex[0], ex[0]};
  plain[1].tasks = &two;
  eng_batch_desc_t dp = {.n_exps = 2, .exps = plain};
  int64_t shared = eng_batch_memory(&dp);
  plain[1].topo = &t2;
  CHECK_EQ_I64(eng_batch_memory(&dp), eng_exp_memory(&plain[0]) + eng_exp_memory(&plain[1]));
  CHECK(shared < eng_batch_memory(&dp));

  /* A batch of invalid experiments only builds and runs (nothing to do). */
  eng_batch_desc_t di = {.n_exps = 2, .exps = ex + 1};
  eng_batch_t *inv = NULL;
  CHECK(eng_batch_create(&di, &inv, err, sizeof err) == 0);
  CHECK(eng_batch_run(inv, &cpu, err, sizeof err) == 0);
  eng_result_t r;
  eng_exp_result(inv, 1, &r);
  CHECK(r.status == ENG_INVALID && strcmp(eng_status_name(r.status), "invalid") == 0);

  eng_batch_destroy(inv);
  eng_batch_destroy(a);
  eng_batch_destroy(b);
  tg_free(&ok);
  tg_free(&huge);
  tg_free(&dep);
  tg_free(&cyc);
  tg_free(&noport);
  tg_free(&two);
  topo_free(&t);
  topo_free(&t2);
  return mvtest_end();
}

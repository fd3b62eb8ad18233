/* Task graphs in the engine (docs/model.md, Tasks and dependencies), against
 * closed forms on an idle star: a compute task delays its successor flow by
 * exactly its duration; a chain of k flows takes k times one; a successor on
 * the receiver starts at the reception, one on another host `sync` later; a
 * join with need 1 fires on the first; streams serialise; the experiment ends
 * with its last task. Each lone flow's time is the standalone FCT (exact, see
 * test_closed_form). */
#include "mvsim.h"
#include "mvtest.h"
#include "sim/eng_net.h"
#include "sim/eng_standalone.h"
#include "tg/tg.h"

#define US 1000000LL

static topo_t star; /* hosts 0..3 around switch 4, 100 Gb/s, 1 us */
static eng_params_t par;

static tg_task_t task(tg_kind_t kind, int32_t host, int64_t dur) {
  tg_task_t t = tg_task_default(kind);
  t.host = host;
  t.dur = dur;
  return t;
}

static tg_task_t flow(int32_t src, int32_t dst, uint64_t bytes) {
  tg_task_t t = tg_task_default(TG_FLOW);
  t.host = src;
  t.dst = dst;
  t.bytes = bytes;
  return t;
}

/* The FCT of a lone flow of this graph's task i. */
static int64_t lone(const tg_t *g, int32_t i) {
  const tg_task_t *k = &g->t[i];
  trf_flow_t f = {k->host, k->dst, k->sport, k->dport, 3, k->bytes, 0, 0};
  return eng_standalone_fct(&star, &par, &f);
}

static eng_batch_t *run(tg_t *g) {
  tg_assign_ports(g);
  char err[512];
  if (tg_check(g, &star, "test", err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  eng_exp_desc_t ex = {.topo = &star, .tasks = g, .params = &par, .seed = 9};
  eng_batch_t *w = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  eng_result_t r;
  eng_exp_result(w, 0, &r);
  CHECK_EQ_I64(r.status, ENG_OK);
  return w;
}

static void compute_then_flow(void) {
  tg_t g = {0};
  tg_task_t c = task(TG_COMPUTE, 0, 37 * US + 5);
  c.start = 3 * US;
  tg_add(&g, &c);
  tg_task_t f = flow(0, 1, 1000000);
  tg_add(&g, &f);
  tg_edge(&g, 1, 0, TG_ON_END);
  eng_batch_t *w = run(&g);
  CHECK_EQ_I64(mvsim_start(w, 0, 0), 3 * US);
  CHECK_EQ_I64(mvsim_end(w, 0, 0), 40 * US + 5);
  CHECK_EQ_I64(mvsim_start(w, 0, 1), 40 * US + 5);
  CHECK_EQ_I64(mvsim_end(w, 0, 1), 40 * US + 5 + lone(&g, 1));
  eng_result_t r;
  eng_exp_result(w, 0, &r);
  CHECK_EQ_I64(r.end_ps, 40 * US + 5 + lone(&g, 1));
  eng_batch_destroy(w);
  tg_free(&g);
}

/* k flows 0 -> 1, each waiting for the end of the previous (at host 0). */
static void chain(void) {
  enum { K = 6 };
  tg_t g = {0};
  for (int32_t i = 0; i < K; i++) {
    tg_task_t f = flow(0, 1, 200000 + 1000 * (uint64_t)i);
    f.sport = 10000; /* one path for all, as one queue pair would */
    tg_add(&g, &f);
    if (i) tg_edge(&g, i, i - 1, TG_ON_END);
  }
  eng_batch_t *w = run(&g);
  int64_t t = 0;
  for (int32_t i = 0; i < K; i++) {
    CHECK_EQ_I64(mvsim_start(w, 0, i), t);
    t += lone(&g, i);
    CHECK_EQ_I64(mvsim_end(w, 0, i), t);
  }
  eng_batch_destroy(w);
  tg_free(&g);
}

/* 0 -> 1, then 1 -> 2 when host 1 holds every byte (a ring step), then a
 * compute on host 3 waiting for the second flow's end (at host 1: sync later)
 * and a join on host 2 that needs either. */
static void recv_and_sync(void) {
  tg_t g = {0};
  tg_task_t a = flow(0, 1, 500000), b = flow(1, 2, 300000);
  tg_add(&g, &a);
  tg_add(&g, &b);
  tg_edge(&g, 1, 0, TG_ON_RECV);
  tg_task_t c = task(TG_COMPUTE, 3, 2 * US);
  c.delay = 7;
  tg_add(&g, &c);
  tg_edge(&g, 2, 1, TG_ON_END);
  tg_task_t j = task(TG_JOIN, 2, 0);
  j.need = 1;
  tg_add(&g, &j);
  tg_edge(&g, 3, 2, TG_ON_END);  /* far: compute on host 3 */
  tg_edge(&g, 3, 1, TG_ON_RECV); /* near: flow b received at host 2 */
  eng_batch_t *w = run(&g);
  int64_t recv_a = mvsim_recv(w, 0, 0);
  CHECK(recv_a > 0 && recv_a < mvsim_end(w, 0, 0));
  CHECK_EQ_I64(mvsim_start(w, 0, 1), recv_a);
  /* At that instant host 1 also queues a's last ACK, which goes first (control
   * has priority): b runs one ACK serialisation later than alone. */
  CHECK_EQ_I64(mvsim_end(w, 0, 1), recv_a + eng_ser(par.ctrl_bytes, 100000000000LL) + lone(&g, 1));
  CHECK_EQ_I64(mvsim_start(w, 0, 2), mvsim_end(w, 0, 1) + par.sync + 7);
  CHECK_EQ_I64(mvsim_end(w, 0, 2), mvsim_start(w, 0, 2) + 2 * US);
  /* The join fires at b's reception, on its own host, before the compute. */
  CHECK_EQ_I64(mvsim_start(w, 0, 3), mvsim_recv(w, 0, 1));
  CHECK_EQ_I64(mvsim_end(w, 0, 3), mvsim_recv(w, 0, 1));
  eng_batch_destroy(w);
  tg_free(&g);
}

/* Two compute tasks on one stream with no edges run one after the other; a
 * third on another stream of the same host overlaps them; a join on host 1
 * that needs both streams' ends starts sync after the later one. */
static void streams(void) {
  tg_t g = {0};
  tg_task_t c = task(TG_COMPUTE, 0, 5 * US);
  c.stream = 0;
  tg_add(&g, &c);
  c.dur = 3 * US;
  tg_add(&g, &c);
  c.stream = 1;
  c.dur = 4 * US;
  tg_add(&g, &c);
  tg_task_t j = task(TG_JOIN, 1, 0);
  tg_add(&g, &j);
  tg_edge(&g, 3, 1, TG_ON_END);
  tg_edge(&g, 3, 2, TG_ON_END);
  eng_batch_t *w = run(&g);
  CHECK_EQ_I64(mvsim_end(w, 0, 0), 5 * US);
  CHECK_EQ_I64(mvsim_start(w, 0, 1), 5 * US);
  CHECK_EQ_I64(mvsim_end(w, 0, 1), 8 * US);
  CHECK_EQ_I64(mvsim_start(w, 0, 2), 0);
  CHECK_EQ_I64(mvsim_end(w, 0, 3), 8 * US + par.sync);
  eng_result_t r;
  eng_exp_result(w, 0, &r);
  CHECK_EQ_I64(r.end_ps, 8 * US + par.sync);
  eng_batch_destroy(w);
  tg_free(&g);
}

/* overlap_slowdown 1.5: a 100 us compute task of GPU 0 (host 0) runs at full
 * speed, slows to 2/3 while a flow of the same GPU runs, and speeds up again
 * after it; a compute task of GPU 1 (host 1) never slows. */
static void overlap(void) {
  eng_params_t p = par;
  p.overlap_q16 = 98304; /* 1.5 x 2^16 */
  tg_t g = {0};
  tg_task_t c = task(TG_COMPUTE, 0, 100 * US);
  c.gpu = 0;
  tg_add(&g, &c);
  tg_task_t f = flow(0, 2, 1000000);
  f.gpu = 0;
  f.start = 20 * US;
  tg_add(&g, &f);
  c.host = 1;
  c.gpu = 1;
  tg_add(&g, &c);
  tg_assign_ports(&g);
  eng_exp_desc_t ex = {.topo = &star, .tasks = &g, .params = &p, .seed = 9};
  eng_batch_t *w = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  int64_t t1 = 20 * US, t2 = mvsim_end(w, 0, 1);
  CHECK_EQ_I64(t2 - t1, lone(&g, 1));
  /* Work units: 100 us x 98304, 98304 a ps at full speed, 65536 slowed. */
  int64_t rem = 100 * US * 98304 - t1 * 98304 - (t2 - t1) * 65536;
  CHECK(rem > 0);
  CHECK_EQ_I64(mvsim_end(w, 0, 0), t2 + (rem + 98303) / 98304);
  CHECK_EQ_I64(mvsim_end(w, 0, 2), 100 * US);
  eng_batch_destroy(w);
  tg_free(&g);
}

int main(void) {
  star = mvsim_star(4, 100000000000LL, US);
  par = mvsim_params();
  compute_then_flow();
  chain();
  recv_and_sync();
  streams();
  overlap();
  topo_free(&star);
  return mvtest_end();
}

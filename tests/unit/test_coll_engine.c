/* Collectives' task graphs run by the engine on an idle star: a symmetric
 * intra-server step ends exactly the model's time after its members are
 * ready (sync accounted for), and ring steps start at the arrival of what
 * they forward (local dependencies, no sync). */
#include "coll/coll.h"
#include "mvsim.h"
#include "mvtest.h"

#define US 1000000LL

static topo_t star; /* hosts 0..3 around switch 4, 100 Gb/s, 1 us */
static eng_params_t par;
static coll_model_t model;

static eng_batch_t *run(tg_t *g) {
  char err[512];
  tg_assign_ports(g);
  if (tg_check(g, &star, "test", err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  eng_exp_desc_t ex = {.topo = &star, .tasks = g, .params = &par, .seed = 3};
  eng_batch_t *w = mvsim_run(1, &ex, ENG_BACKEND_CPU);
  eng_result_t r;
  eng_exp_result(w, 0, &r);
  CHECK_EQ_I64(r.status, ENG_OK);
  return w;
}

/* One server of 4 GPUs, each on its own NIC (host); every GPU computes 3 us,
 * then an allreduce among them. */
static void intra_step(void) {
  tg_t g = {0};
  int32_t gpus[4] = {0, 1, 2, 3}, after[4], done[4];
  for (int32_t k = 0; k < 4; k++) {
    tg_task_t c = tg_task_default(TG_COMPUTE);
    c.host = k;
    c.dur = 3 * US;
    after[k] = tg_add(&g, &c);
  }
  coll_cluster_t cl = {
      .gpus_per_server = 4, .gpu = "h100-sxm", .model = &model, .sync_ps = par.sync};
  coll_desc_t d = {.kind = COLL_ALLREDUCE, .bytes = 1 << 20};
  char err[512];
  CHECK_EQ_I64(coll_append(&g, &cl, &d, 4, gpus, after, done, err, sizeof err), 0);
  int64_t t;
  CHECK_EQ_I64(coll_model_time(&model, "h100-sxm", COLL_ALLREDUCE, 4, d.bytes, &t, err, sizeof err),
               0);
  eng_batch_t *w = run(&g);
  for (int32_t k = 0; k < 4; k++) {
    CHECK_EQ_I64(mvsim_start(w, 0, 4 + k), 3 * US + par.sync);
    CHECK_EQ_I64(mvsim_end(w, 0, 4 + k), 3 * US + t);
    CHECK_EQ_I64(mvsim_end(w, 0, done[k]), 3 * US + t);
  }
  eng_batch_destroy(w);
  tg_free(&g);
}

/* A ring allreduce among 4 servers of one GPU each (hosts 0..3): each step
 * starts when what it forwards has arrived; a member is done when its last
 * flow has ended and its last arrival is in. */
static void ring_steps(void) {
  tg_t g = {0};
  int32_t gpus[4] = {0, 1, 2, 3}, done[4];
  coll_cluster_t cl = {.gpus_per_server = 1};
  coll_desc_t d = {.kind = COLL_ALLREDUCE, .bytes = 4 * 65536};
  char err[512];
  CHECK_EQ_I64(coll_append(&g, &cl, &d, 4, gpus, NULL, done, err, sizeof err), 0);
  eng_batch_t *w = run(&g);
  for (int32_t s = 0; s < 6; s++)
    for (int32_t k = 0; k < 4; k++) {
      int32_t t = s * 4 + k;
      int64_t want = s ? mvsim_recv(w, 0, (s - 1) * 4 + (k + 3) % 4) : 0;
      CHECK(want >= 0);
      CHECK_EQ_I64(mvsim_start(w, 0, t), want);
    }
  for (int32_t k = 0; k < 4; k++) {
    int64_t last = 0;
    for (int32_t s = 0; s < 6; s++) {
      int64_t e = mvsim_end(w, 0, s * 4 + k), r = mvsim_recv(w, 0, s * 4 + (k + 3) % 4);
      last = e > last ? e : last;
      last = r > last ? r : last;
    }
    CHECK_EQ_I64(mvsim_end(w, 0, done[k]), last);
  }
  eng_batch_destroy(w);
  tg_free(&g);
}

int main(void) {
  char err[512];
  if (coll_model_load_default(&model, NULL, NULL, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  star = mvsim_star(4, 100000000000LL, US);
  par = mvsim_params();
  intra_step();
  ring_steps();
  topo_free(&star);
  coll_model_free(&model);
  return mvtest_end();
}

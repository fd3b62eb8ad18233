/* A world's rows do not depend on how many host threads fill them: a batch of
 * experiments of several shapes (two topologies, so two copies of routing
 * tables shared by the experiments on each; streams and edges, so predecessor
 * rows counted with room to spare; DCQCN, HPCC and no CC; a GPU's tasks) is
 * built on one thread and on three, and every column is compared byte for
 * byte. Then both run on the CPU backend and every task's end agrees. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "mvsim.h"
#include "mvtest.h"
#include "sim/eng_world.h"

#define N_EXPS 9

/* Flows i -> i + 1 on `hosts` hosts; with `streamed`, host 0's flows in one
 * stream and a compute task on GPU 0 after the first flow. */
static tg_t graph(int hosts, int streamed) {
  tg_t g = {0};
  for (int i = 0; i + 1 < hosts; i++) {
    for (int k = 0; k < 2; k++) {
      tg_task_t t = tg_task_default(TG_FLOW);
      t.host = streamed ? 0 : i;
      t.dst = streamed ? 1 + (i + k) % (hosts - 1) : i + 1;
      t.bytes = 3000 + 1000 * (uint64_t)k + 700 * (uint64_t)i;
      t.start = 1000 * (int64_t)i;
      t.stream = streamed ? 0 : -1;
      if (tg_add(&g, &t) < 0) abort();
    }
  }
  if (streamed) {
    tg_task_t c = tg_task_default(TG_COMPUTE);
    c.host = 0;
    c.gpu = 0;
    c.dur = 5000;
    int32_t ci = tg_add(&g, &c);
    if (ci < 0 || tg_edge(&g, ci, 0, TG_ON_END)) abort();
  }
  tg_assign_ports(&g);
  return g;
}

/* Columns of a and b (same row counts) that differ anywhere. */
static int differing_columns(const eng_world_t *a, const eng_world_t *b) {
  int bad = 0;
#define DIFF_COL(tab, type, name)                                                                  \
  bad += memcmp(a->c.name, b->c.name,                                                              \
                (size_t)(a->n[ENG_T_##tab] ? a->n[ENG_T_##tab] : 1) * sizeof(type)) != 0;
  ENG_COLUMNS(DIFF_COL)
#undef DIFF_COL
  return bad + (memcmp(a->exp_task_row, b->exp_task_row, (size_t)a->n[ENG_T_task] * 4) != 0);
}

int main(void) {
  topo_t small = mvsim_star(5, 100000000000LL, 1000000), big = mvsim_star(9, 100000000000LL, 2000000);
  tg_t g[4] = {graph(5, 0), graph(5, 1), graph(9, 0), graph(9, 1)};
  eng_params_t p[3] = {mvsim_params(), mvsim_params(), mvsim_params()};
  char err[256];
  CHECK(mvsim_set(&p[1], "cc=dcqcn", err, sizeof err) == 0);
  CHECK(mvsim_set(&p[2], "cc=hpcc", err, sizeof err) == 0);
  eng_exp_desc_t ex[N_EXPS];
  for (int e = 0; e < N_EXPS; e++) {
    const int on_big = e % 3 == 2;
    ex[e] = (eng_exp_desc_t){.topo = on_big ? &big : &small,
                             .tasks = &g[2 * on_big + (e / 2) % 2],
                             .params = &p[e % 3],
                             .seed = 11 + (uint64_t)e};
    CHECK(eng_exp_validate(&ex[e], err, sizeof err) == 0);
  }
  eng_world_t *w[2] = {NULL, NULL};
  for (int k = 0; k < 2; k++)
    CHECK(eng_world_create(&(eng_world_desc_t){.n_exps = N_EXPS, .exps = ex, .threads = 1 + 2 * k},
                           &w[k], err, sizeof err) == 0);
  for (int tab = 0; tab < ENG_T_COUNT; tab++)
    CHECK_EQ_I64(w[0]->n[tab], w[1]->n[tab]);
  CHECK(w[0]->n[ENG_T_gpu] > 0 && w[0]->n[ENG_T_hpcc] > 0 && w[0]->n[ENG_T_dcqcn] > 0);
  CHECK_EQ_I64(differing_columns(w[0], w[1]), 0);
  for (int k = 0; k < 2; k++)
    CHECK(eng_world_run(w[k], ENG_BACKEND_CPU, err, sizeof err) == 0);
  for (int e = 0; e < N_EXPS; e++) {
    eng_result_t r;
    eng_world_result(w[0], e, &r);
    CHECK_EQ_I64(r.status, ENG_OK);
    for (int32_t i = 0; i < ex[e].tasks->n; i++)
      CHECK_EQ_I64(eng_task_end(w[0], e, i), eng_task_end(w[1], e, i));
  }
  for (int k = 0; k < 2; k++)
    eng_world_destroy(w[k]);
  for (int i = 0; i < 4; i++)
    tg_free(&g[i]);
  topo_free(&small);
  topo_free(&big);
  return mvtest_end();
}

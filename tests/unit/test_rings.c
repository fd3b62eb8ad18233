/* Compact link rings: 200 one-byte flows into one host put 200 minimum-size
 * packets on one link within a window, more than a ring sized for MTU packets
 * holds. The overflow is detected, the experiment runs again with worst-case
 * rings, and the result equals the reference simulator and a run with large
 * rings given up front, to the picosecond. */
#include "mvsim.h"
#include "mvtest.h"
#include "ref/ref.h"
#include "sim/eng_world.h"

#define N 200

int main(void) {
  topo_t t = mvsim_star(N + 1, 100000000000LL, 1000000); /* host N receives */
  trf_flow_t f[N];
  for (int i = 0; i < N; i++)
    f[i] = mvsim_flow(i, N, 1, 0);
  trf_flows_t fl = {.n = N, .f = f};
  tg_t g = mvsim_tg(&fl);
  eng_params_t p = mvsim_params(), big = p;
  big.ring_cap = 1 << 12;
  eng_exp_desc_t ex[2] = {{.topo = &t, .tasks = &g, .params = &p, .seed = 5},
                          {.topo = &t, .tasks = &g, .params = &big, .seed = 5}};
  eng_world_desc_t d = {.n_exps = 2, .exps = ex};
  eng_world_t *w = NULL;
  char err[256];
  CHECK(eng_world_create(&d, &w, err, sizeof err) == 0);
  CHECK(eng_world_run(w, ENG_BACKEND_CPU, err, sizeof err) == 0);
  /* The compact experiment overflowed and ran again; the large one did not. */
  CHECK(w->n_parts == 1 && w->part_of[0] == 0 && w->part_of[1] == -1);
  CHECK(w->c.exp_fail[0] == ENG_FAIL_RING);
  ref_result_t rr;
  if (ref_run(&t, &g, &p, 5, &rr)) return 2;
  CHECK(rr.status == REF_OK);
  for (int e = 0; e < 2; e++) {
    eng_result_t r;
    eng_world_result(w, e, &r);
    CHECK_EQ_I64(r.status, ENG_OK);
    CHECK_EQ_I64(r.packet_hops, rr.packet_hops);
    for (int i = 0; i < N; i++)
      CHECK_EQ_I64(eng_task_end(w, e, i), rr.end_ps[i]);
  }
  ref_result_free(&rr);
  eng_world_destroy(w);
  tg_free(&g);
  topo_free(&t);
  return mvtest_end();
}
